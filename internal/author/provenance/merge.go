package provenance

import (
	"cmp"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/fragment"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// Ref names where a value came from.
type Ref struct {
	// Part is the part's number (generate.Part.Number).
	Part int `json:"part"`
	// Origin is "user" or the producer that wrote the part.
	Origin string `json:"origin"`
	// Source and Position place the value in the user's files.
	Source   diag.Source   `json:"source"`
	Position diag.Position `json:"position,omitempty"`
	// Field is the field path nodeboot read the value from.
	Field string `json:"field"`
	// Flag is set when the value was a kubelet flag.
	Flag bool `json:"flag,omitempty"`
}

// Overridden is a value that lost.
type Overridden struct {
	Value string `json:"value"`
	By    Ref    `json:"from"`
}

// Setting is one setting of the merged configuration.
type Setting struct {
	// Key names the setting: cluster.name, labels[team], taints,
	// kubelet.maxPods, kubelet.evictionHard[memory.available],
	// kubelet.flags --v, containerd.config[…], ….
	Key   string `json:"key"`
	Value string `json:"value"`
	// SetBy is where the winning value came from.
	SetBy Ref `json:"setBy"`
	// Overridden are the other values given for it, in order.
	Overridden []Overridden `json:"overridden,omitempty"`
}

// PartInfo describes one part of the merged user data.
type PartInfo struct {
	Number int         `json:"number"`
	Origin string      `json:"origin"`
	Source diag.Source `json:"source"`
	Format string      `json:"format"`
	// Applied is false for parts that set nothing nodeboot reads
	// (scripts without a bootstrap.sh call, cloud-init parts).
	Applied bool `json:"applied"`
}

// Report is the merged configuration with the provenance of every setting.
type Report struct {
	Family   generate.Family   `json:"family"`
	Producer generate.Producer `json:"producer"`
	// Order says how the producer orders and merges the parts.
	Order    string     `json:"order"`
	Parts    []PartInfo `json:"parts"`
	Settings []Setting  `json:"settings"`
	// Problems are the user parts' own problems and every override
	// between a user part and the generated part that matters.
	Problems diag.List `json:"problems,omitempty"`
	// Notes are generate's notes on what the output leaves out.
	Notes []string `json:"notes,omitempty"`
	// UserData is the merged user data.
	UserData []byte `json:"-"`
}

// Overrides returns the warnings about overridden values.
func (r Report) Overrides() diag.List {
	var out diag.List
	for _, p := range r.Problems {
		if p.Severity == diag.SeverityWarning && strings.Contains(p.Message, overrideMarker) {
			out = append(out, p)
		}
	}
	return out
}

// Merge generates the producer's part for in.Group, merges in.User with
// it as the producer does, and reports every resulting setting with the
// part that set it and the values it overrode.
func Merge(in generate.Input) (Report, error) {
	out, err := generate.Generate(in)
	if err != nil {
		return Report{}, err
	}
	r := Report{Family: in.Family, Producer: in.Producer, Order: orderText(in.Family, in.Producer), Notes: out.Notes, UserData: out.UserData}
	var entries []entry
	for _, p := range out.Parts {
		assigned, info, problems := decodePart(p, in.Producer)
		r.Parts = append(r.Parts, info)
		r.Problems = append(r.Problems, problems...)
		entries = append(entries, assigned...)
		r.Problems = append(r.Problems, partWarnings(p, in.Family, in.Producer, len(assigned) > 0)...)
	}
	r.Settings = fold(entries)
	r.Problems = append(r.Problems, overrideWarnings(r.Settings, in.Family, in.Producer)...)
	sortProblems(r.Problems)
	return r, nil
}

// sortProblems orders problems by source, part and position.
func sortProblems(ps diag.List) {
	slices.SortStableFunc(ps, func(a, b diag.Problem) int {
		return cmp.Or(strings.Compare(a.Source.URI, b.Source.URI), cmp.Compare(a.Source.Part, b.Source.Part),
			cmp.Compare(a.Position.Line, b.Position.Line), cmp.Compare(a.Position.Column, b.Position.Column))
	})
}

// entry is an assignment with where it came from.
type entry struct {
	assignment
	ref Ref
}

// decodePart reads one part as nodeboot does and lists what it assigns.
func decodePart(p generate.Part, producer generate.Producer) ([]entry, PartInfo, diag.List) {
	info := PartInfo{Number: p.Number, Origin: p.Origin, Source: p.Source, Format: string(p.Format)}
	var frags []fragment.Fragment
	var problems diag.List
	switch {
	case p.Spec != nil:
		frags = []fragment.Fragment{{Spec: *p.Spec, Source: p.Source, Positions: diag.Positions{}}}
	case p.Format == generate.FormatPowerShell:
	default:
		frags, problems = decodeDocument(p)
		if p.Format == userdata.FormatBottlerocket && !p.Generated() {
			problems = withoutClusterName(problems)
		}
	}
	var out []entry
	for _, f := range frags {
		for _, a := range flatten(f.Spec) {
			ref := Ref{Part: p.Number, Origin: p.Origin, Source: f.Source, Field: a.path, Flag: a.flag}
			if p.Origin == generate.OriginUser {
				// Lines of generated text would point nowhere.
				ref.Position = f.Positions.Lookup(a.path)
			}
			out = append(out, entry{assignment: a, ref: ref})
		}
	}
	info.Applied = len(out) > 0
	if info.Format == string(userdata.FormatShell) && info.Applied {
		info.Format = fragment.FormatBootstrapSh
	}
	return out, info, problems
}

// withoutClusterName drops the missing-cluster-name error of a user's
// Bottlerocket layer: the producer writes the name.
func withoutClusterName(ps diag.List) diag.List {
	var out diag.List
	for _, p := range ps {
		if !strings.Contains(p.Message, "cluster-name is required") {
			out = append(out, p)
		}
	}
	return out
}

// decodeDocument decodes a part's body, or for values the producer keeps
// of it (Applied) decodes those and takes positions from the body.
func decodeDocument(p generate.Part) ([]fragment.Fragment, diag.List) {
	doc := userdata.Document{Source: p.Source, Format: p.Format, Data: p.Body}
	frags, problems := fragment.Decode(doc)
	if p.Applied == nil {
		return frags, problems
	}
	applied, _ := fragment.Decode(userdata.Document{Source: p.Source, Format: p.Format, Data: p.Applied})
	for i := range applied {
		if i < len(frags) {
			applied[i].Positions = frags[i].Positions
		}
	}
	return applied, problems
}

// fold merges the entries in order: per setting, the last kubelet flag
// wins if there is one, else the last value.
func fold(entries []entry) []Setting {
	byKey := map[string][]entry{}
	var keys []string
	for _, e := range entries {
		if _, seen := byKey[e.key]; !seen {
			keys = append(keys, e.key)
		}
		byKey[e.key] = append(byKey[e.key], e)
	}
	settings := make([]Setting, 0, len(keys))
	for _, k := range keys {
		es := byKey[k]
		win := len(es) - 1
		for i := len(es) - 1; i >= 0; i-- {
			if es[i].flag {
				win = i
				break
			}
		}
		s := Setting{Key: k, Value: es[win].value, SetBy: es[win].ref}
		for i, e := range es {
			if i != win && e.value != s.Value {
				s.Overridden = append(s.Overridden, Overridden{Value: e.value, By: e.ref})
			}
		}
		settings = append(settings, s)
	}
	slices.SortStableFunc(settings, func(a, b Setting) int {
		return cmp.Or(cmp.Compare(keyRank(a.Key), keyRank(b.Key)), strings.Compare(a.Key, b.Key))
	})
	return settings
}

// keyRank orders settings: cluster, labels, taints, kubelet, the rest.
func keyRank(key string) int {
	for i, prefix := range []string{"cluster.", labelKeyPrefix, KeyTaints, "kubelet.", "containerd.", "instance.", "featureGates", "identity.", "maxPods."} {
		if strings.HasPrefix(key, prefix) {
			return i
		}
	}
	return 99
}
