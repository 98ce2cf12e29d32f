package netmanager

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// LinkState is one link as `networkctl list --json=short` reports it.
type LinkState struct {
	Name                string `json:"Name"`
	AdministrativeState string `json:"AdministrativeState"`
}

// ParseNetworkctl reads `networkctl list --json=...` output.
func ParseNetworkctl(out []byte) ([]LinkState, error) {
	var list struct {
		Interfaces []LinkState `json:"Interfaces"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("networkctl list output: %w", err)
	}
	return list.Interfaces, nil
}

// Ready reports whether networking is as the node expects: every link in
// managed (the primary interface and those remembered for networkd) is
// "configured", and every other link is "unmanaged" (left to the VPC CNI,
// or loopback). Otherwise it says what is still awaited.
func Ready(links []LinkState, managed []string) (bool, string) {
	var waiting []string
	for _, name := range managed {
		i := slices.IndexFunc(links, func(l LinkState) bool { return l.Name == name })
		switch {
		case i < 0:
			waiting = append(waiting, name+" (not listed yet)")
		case links[i].AdministrativeState != "configured":
			waiting = append(waiting, fmt.Sprintf("%s to be configured (%s)", name, links[i].AdministrativeState))
		}
	}
	for _, l := range links {
		if !slices.Contains(managed, l.Name) && l.AdministrativeState != "unmanaged" {
			waiting = append(waiting, fmt.Sprintf("%s to be unmanaged (%s)", l.Name, l.AdministrativeState))
		}
	}
	return len(waiting) == 0, strings.Join(waiting, ", ")
}
