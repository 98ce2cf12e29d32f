package convert

import (
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/nodeboot/nodeboot/internal/config/decode"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bottlerocket"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// semantic turns a spec into generic JSON, so that specs compare equal when
// they mean the same (raw kubelet config compared as values, not bytes;
// nil and empty collections alike).
func semantic(t *testing.T, spec hub.Spec) any {
	t.Helper()
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// decodeNodeConfigUserData splits and decodes NodeConfig user data,
// failing on any problem other than those about the fields in invalid
// (the ones the spec converted was invalid in already).
func decodeNodeConfigUserData(t *testing.T, data []byte, invalid ...string) (hub.Spec, string) {
	t.Helper()
	docs, problems := userdata.Split(diag.Source{URI: "imds://user-data"}, data)
	if len(problems) > 0 {
		t.Fatalf("split: %v\n%s", problems, data)
	}
	if len(docs) != 1 || docs[0].Format != userdata.FormatNodeConfig {
		t.Fatalf("split gave %d documents (%+v), want one NodeConfig", len(docs), docs)
	}
	decoded, problems := decode.NodeConfig(docs[0])
	for _, p := range problems {
		if !slices.Contains(invalid, p.Field) {
			t.Fatalf("decode: %v\n%s", p, data)
		}
	}
	if len(decoded) != 1 {
		t.Fatalf("decode gave %d documents, want 1", len(decoded))
	}
	return decoded[0].Spec, decoded[0].APIVersion
}

// TestNodeConfigRoundTrip: hub → NodeConfig → Split → decode gives the
// same spec, for every golden case, except that decoding writes kubelet
// flags the way the kubelet receives them (kubeletflag.NormalizeItem), the
// service CIDR is its network address (with clusterDNS keeping the address
// its host bits gave) and flags the kubelet refuses are left out.
func TestNodeConfigRoundTrip(t *testing.T) {
	for _, name := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			spec := loadCase(t, filepath.Join("testdata", name))
			out, _, err := NodeConfig(spec)
			if err != nil {
				t.Fatal(err)
			}
			spec.Kubelet.Config = keepClusterDNS(spec, &notes{})             // the DNS address the host bits gave, kept
			spec.Cluster.CIDR = maskedCIDR(spec.Cluster.CIDR)                // written as the network address
			spec.Kubelet.Flags = acceptedFlags(spec.Kubelet.Flags, &notes{}) // the rest are left out, with a note
			var invalid []string                                             // a case may be invalid on purpose (notes about it)
			for _, e := range validate.Spec(spec) {
				invalid = append(invalid, e.Field)
			}
			got, _ := decodeNodeConfigUserData(t, out, invalid...)
			for i, f := range spec.Kubelet.Flags {
				spec.Kubelet.Flags[i] = kubeletflag.NormalizeItem(f)
			}
			if want := semantic(t, spec); !reflect.DeepEqual(semantic(t, got), want) {
				gotJSON, _ := json.Marshal(got)
				wantJSON, _ := json.Marshal(spec)
				t.Fatalf("round trip changed the spec:\n got %s\nwant %s", gotJSON, wantJSON)
			}
		})
	}
}

// maskedCIDR clears a valid CIDR's host bits.
func maskedCIDR(cidr string) string {
	if p, err := netip.ParsePrefix(cidr); err == nil {
		return p.Masked().String()
	}
	return cidr
}

// TestNodeConfigAPIVersion checks which group the emitter picks.
func TestNodeConfigAPIVersion(t *testing.T) {
	full := hub.Cluster{Name: "a", APIServerEndpoint: "https://a.example.com", CertificateAuthority: testCA(t), CIDR: "10.100.0.0/16"}
	yes := true
	tests := []struct {
		name  string
		spec  hub.Spec
		want  string
		notes int
	}{
		{name: "complete nodeadm spec", spec: hub.Spec{Cluster: full}, want: "node.eks.aws/v1alpha1"},
		{name: "identity extension", spec: hub.Spec{Cluster: full, Identity: hub.Identity{Mode: hub.IdentityExecCredential}}, want: "nodeboot.io/v1alpha1", notes: 1},
		{name: "max pods extension", spec: hub.Spec{Cluster: full, MaxPods: hub.MaxPodsPolicy{PrefixDelegation: &yes}}, want: "nodeboot.io/v1alpha1", notes: 1},
		{name: "cidr left to discovery", spec: hub.Spec{Cluster: hub.Cluster{Name: "a", APIServerEndpoint: "https://a.example.com", CertificateAuthority: testCA(t)}}, want: "nodeboot.io/v1alpha1", notes: 1},
		{name: "name only", spec: hub.Spec{Cluster: hub.Cluster{Name: "a"}}, want: "nodeboot.io/v1alpha1", notes: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, notes, err := NodeConfig(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(notes) != tc.notes {
				t.Errorf("notes = %q, want %d", notes, tc.notes)
			}
			_, apiVersion := decodeNodeConfigUserData(t, out)
			if apiVersion != tc.want {
				t.Errorf("apiVersion = %s, want %s", apiVersion, tc.want)
			}
		})
	}
}

// testCA is the golden cases' CA certificate.
func testCA(t *testing.T) []byte {
	t.Helper()
	return loadCase(t, filepath.Join("testdata", "minimal")).Cluster.CertificateAuthority
}

// TestBottlerocketRoundTrip: Bottlerocket → hub → Bottlerocket → hub keeps
// every mapped setting and the spec.
func TestBottlerocketRoundTrip(t *testing.T) {
	for _, name := range []string{"bottlerocket-table", "bottlerocket-dotted", "bottlerocket-many"} {
		t.Run(name, func(t *testing.T) {
			spec := loadCase(t, filepath.Join("testdata", name))
			out, notes, err := Bottlerocket(spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(notes) > 0 {
				t.Errorf("settings read from Bottlerocket could not be written back: %q", notes)
			}
			res, problems := bottlerocket.Decode(userdata.Document{Source: diag.Source{URI: "emitted", Line: 1}, Data: out})
			if len(problems) > 0 {
				t.Fatalf("emitted settings do not decode cleanly: %v\n%s", problems, out)
			}
			if !reflect.DeepEqual(semantic(t, res.Spec), semantic(t, spec)) {
				a, _ := json.Marshal(res.Spec)
				b, _ := json.Marshal(spec)
				t.Fatalf("round trip changed the spec:\n got %s\nwant %s\n%s", a, b, out)
			}
			input, err := os.ReadFile(filepath.Join("testdata", name, "user-data.toml"))
			if err != nil {
				t.Fatal(err)
			}
			kept := settingKeys(t, out)
			for _, key := range settingKeys(t, input) {
				if !slices.Contains(kept, key) {
					t.Errorf("setting %s was not written back", key)
				}
			}
		})
	}
}

// settingKeys lists the leaf keys under the mapped settings sections.
func settingKeys(t *testing.T, data []byte) []string {
	t.Helper()
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			keys = append(keys, prefix)
			return
		}
		for k, item := range m {
			walk(prefix+"."+k, item)
		}
	}
	settings, _ := doc["settings"].(map[string]any)
	for _, section := range []string{"kubernetes", "network", "dns"} {
		if v, ok := settings[section]; ok {
			walk("settings."+section, v)
		}
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		t.Fatal("no settings found")
	}
	return keys
}

// TestDeterministic runs every emitter twice on every case.
func TestDeterministic(t *testing.T) {
	for _, name := range goldenCases(t) {
		spec := loadCase(t, filepath.Join("testdata", name))
		for _, target := range Targets() {
			emit, _ := Target(target)
			first, firstNotes, _ := emit(spec)
			for range 5 {
				again, againNotes, _ := emit(spec)
				if string(again) != string(first) || !reflect.DeepEqual(againNotes, firstNotes) {
					t.Fatalf("%s/%s: output differs between runs", name, target)
				}
			}
		}
	}
}
