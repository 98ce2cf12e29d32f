package provenance

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bottlerocket"
	"github.com/nodeboot/nodeboot/internal/config/tomlsyntax"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// overrideMarker is in the message of every override warning.
const overrideMarker = "overridden by"

// orderText says how the producer merges the parts.
func orderText(f generate.Family, p generate.Producer) string {
	name := p.Name()
	switch {
	case f == generate.FamilyBottlerocket && p == generate.ProducerEKS:
		return "EKS merges the user's TOML into its own settings, the user's values winning"
	case f == generate.FamilyBottlerocket && p == generate.ProducerKarpenter:
		return "Karpenter writes its settings over the user's TOML: cluster fields, max pods and kubelet settings replaced, labels merged with its own winning, node-taints replaced wholesale, settings its model lacks dropped"
	case f == generate.FamilyBottlerocket:
		return name + " writes the node group's settings into its own TOML"
	case f == generate.FamilyWindows:
		return "one <powershell> block: the user's commands run first, then " + name + "'s Start-EKSBootstrap.ps1 call"
	}
	return "MIME parts apply in order, " + name + "'s part last; NodeConfigs and bootstrap.sh calls merge in that order, the last value winning (a kubelet flag beats the config field it stands for)"
}

// important reports whether an override of key is worth a warning:
// labels, taints, cluster fields and kubelet settings.
func important(key string) bool {
	return strings.HasPrefix(key, "cluster.") || strings.HasPrefix(key, labelKeyPrefix) || key == KeyTaints || strings.HasPrefix(key, "kubelet.")
}

// overrideWarnings warns about every value a user part set that the
// generated part overrides, and every generated value a user part
// overrides.
func overrideWarnings(settings []Setting, f generate.Family, p generate.Producer) diag.List {
	var out diag.List
	for _, s := range settings {
		if !important(s.Key) {
			continue
		}
		for _, o := range s.Overridden {
			switch {
			case isUser(o.By.Origin) && !isUser(s.SetBy.Origin):
				out.Warnf(o.By.Source, o.By.Field, o.By.Position, "%s: %s set here is %s %s's part %d (%s): %s",
					s.Key, quote(o.Value), overrideMarker, s.SetBy.Origin, s.SetBy.Part, quote(s.Value), why(s, o, f, p))
			case !isUser(o.By.Origin) && isUser(s.SetBy.Origin):
				out.Warnf(s.SetBy.Source, s.SetBy.Field, s.SetBy.Position, "%s: %s set here wins; %s's value %s is %s this part: %s",
					s.Key, quote(s.Value), o.By.Origin, quote(o.Value), overrideMarker, why(s, o, f, p))
			}
		}
	}
	return out
}

// isUser reports whether a value comes from the user (their user data or
// their node group's settings) rather than the producer.
func isUser(origin string) bool {
	return origin == generate.OriginUser || origin == generate.OriginNodeGroup
}

// why explains an override.
func why(s Setting, o Overridden, f generate.Family, p generate.Producer) string {
	switch {
	case s.SetBy.Flag && !o.By.Flag:
		return "a kubelet flag beats the config field, whatever the order"
	case f == generate.FamilyBottlerocket && p == generate.ProducerKarpenter && s.Key == KeyTaints:
		return "Karpenter replaces node-taints wholesale"
	case f == generate.FamilyBottlerocket && p == generate.ProducerKarpenter:
		return "Karpenter writes its settings over the user's"
	case f == generate.FamilyBottlerocket && p == generate.ProducerEKS:
		return "EKS lets the user's settings override its own; check that the node still carries what EKS needs"
	}
	return fmt.Sprintf("%s's part comes after the user's and the last value wins", p.Name())
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// partWarnings flags user parts the producer handles in a way users do
// not expect: Amazon Linux parts that call bootstrap.sh themselves,
// Windows commands that call Start-EKSBootstrap.ps1, and Bottlerocket
// settings Karpenter drops.
func partWarnings(part generate.Part, f generate.Family, p generate.Producer, applied bool) diag.List {
	var out diag.List
	if part.Generated() {
		return nil
	}
	switch {
	case part.Format == userdata.FormatShell && applied:
		out.Warnf(part.Source, "", diag.Position{Line: part.Source.Line}, "this part calls /etc/eks/bootstrap.sh itself; %s's part calls it again after it with its own arguments, so the node is bootstrapped twice (EKS: do not start or configure the kubelet in user data)", p.Name())
	case part.Format == generate.FormatPowerShell && strings.Contains(strings.ToLower(string(part.Body)), "start-eksbootstrap.ps1"):
		out.Warnf(part.Source, "", diag.Position{Line: part.Source.Line}, "these commands call Start-EKSBootstrap.ps1; %s calls it again after them", p.Name())
	case part.Format == userdata.FormatBottlerocket && p == generate.ProducerKarpenter:
		out = append(out, karpenterDrops(part)...)
	}
	return out
}

// karpenterDrops warns about each settings.kubernetes key Karpenter's
// model lacks, on its line.
func karpenterDrops(part generate.Part) diag.List {
	var tree map[string]any
	if toml.Unmarshal(part.Body, &tree) != nil {
		return nil
	}
	settings, _ := tree["settings"].(map[string]any)
	k8s, _ := settings["kubernetes"].(map[string]any)
	positions := bottlerocket.KeyPositions(part.Body, part.Source.Line)
	var out diag.List
	for _, key := range slices.Sorted(maps.Keys(k8s)) {
		if _, ok := generate.KarpenterBottlerocketKind(key); ok {
			continue
		}
		path := "settings.kubernetes." + tomlsyntax.QuoteKey(key)
		out.Warnf(part.Source, path, positions[path], "Karpenter's Bottlerocket model has no %s setting: Karpenter drops it and the node never sees it", key)
	}
	return out
}
