package convert

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bootstrapsh"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// bootstrapShRoundTripSkips lists golden cases whose bootstrap.sh output is
// rejected on purpose.
var bootstrapShRoundTripSkips = map[string]string{
	"flags-to-settings": "carries a node label key the kubelet rejects, to test Bottlerocket's refusal",
}

// TestBootstrapShRoundTrip: hub → BootstrapSh → Split → ParseScript gives
// the same cluster fields, max pods switch, local disks and effective
// kubelet flags, for every golden case bootstrap.sh can hold.
func TestBootstrapShRoundTrip(t *testing.T) {
	for _, name := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			if why, skip := bootstrapShRoundTripSkips[name]; skip {
				t.Skip(why)
			}
			spec := loadCase(t, filepath.Join("testdata", name))
			keptDNS := keepClusterDNS(spec, &notes{})
			out, notes, err := BootstrapSh(spec)
			if err != nil {
				t.Fatal(err)
			}
			docs, problems := userdata.Split(diag.Source{URI: "imds://user-data"}, out)
			if len(problems) > 0 || len(docs) != 1 || docs[0].Format != userdata.FormatShell {
				t.Fatalf("split: %v %+v", problems, docs)
			}
			res, problems := bootstrapsh.ParseScript(docs[0])
			if !res.Found || problems.HasErrors() {
				t.Fatalf("ParseScript found=%v: %v\n%s", res.Found, problems, out)
			}
			wantCluster := spec.Cluster
			wantCluster.CIDR = maskedCIDR(wantCluster.CIDR) // written as the network address
			if got, want := res.Spec.Cluster, wantCluster; !reflect.DeepEqual(got, want) {
				t.Errorf("cluster:\n got %+v\nwant %+v", got, want)
			}
			if got, want := res.Spec.MaxPods.Set, spec.MaxPods.Set; !reflect.DeepEqual(got, want) {
				t.Errorf("maxPods.set = %v, want %v", got, want)
			}
			if got, want := res.Spec.Instance.LocalStorage.Strategy, spec.Instance.LocalStorage.Strategy; got != want {
				t.Errorf("local storage strategy = %q, want %q", got, want)
			}
			got := effectiveKubeletFlags(t, res.Spec.Kubelet, nil)
			spec.Kubelet.Config = keptDNS // the DNS address the host bits gave, kept
			want := effectiveKubeletFlags(t, spec.Kubelet, notes)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("kubelet flags:\n got %v\nwant %v\n%s", got, want, out)
			}
		})
	}
}

// effectiveKubeletFlags is what the kubelet ends up with, as flag name →
// value: config fields with a flag spelling (clusterDNS as cluster-dns),
// then the extra flags, later ones winning. Fields and flags named in
// notes (not expressible) and null config values (unset) are left out.
func effectiveKubeletFlags(t *testing.T, k hub.Kubelet, notes []string) map[string]string {
	t.Helper()
	noted := func(path string) bool {
		for _, n := range notes {
			if strings.HasPrefix(n, path+":") {
				return true
			}
		}
		return false
	}
	out := map[string]string{}
	for key, raw := range k.Config {
		path := "spec.kubelet.config[" + key + "]"
		if string(raw) == "null" || noted(path) {
			continue
		}
		form, ok := kubeletflag.FormByConfig(key)
		if !ok {
			t.Fatalf("%s has no flag form and was not noted", path)
		}
		arg, err := configFlag(form, json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		f, _ := kubeletflag.Split(arg)
		out[f.Name] = f.Value
	}
	for i, arg := range k.Flags {
		if noted(indexPath("spec.kubelet.flags", i)) {
			continue
		}
		f, ok := kubeletflag.Split(arg)
		if !ok || !f.HasValue {
			t.Fatalf("flag %q is not --name=value", arg)
		}
		out[f.Name] = f.Value
	}
	return out
}
