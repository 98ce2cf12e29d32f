package kubeleteffective

import (
	"encoding/json"
	"errors"
	"io/fs"
	"reflect"
	"testing"
	"testing/fstest"
)

const typeMeta = `"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1"`

// TestRead pins the merge the real kubelet does (test/kubeletcompat runs
// the same kinds of cases through kubelets 1.31 and 1.34).
func TestRead(t *testing.T) {
	base := `{` + typeMeta + `,"maxPods":29,"clusterDNS":["a","b"],"evictionHard":{"memory.available":"100Mi","nodefs.available":"10%"},"kubeReservedCgroup":"/runtime"}`
	tests := []struct {
		name    string
		files   map[string]string
		want    map[string]any // fields checked
		wantErr error
	}{
		{name: "no drop-ins", want: map[string]any{"maxPods": 29.0}},
		{name: "objects merge, lists are replaced", files: map[string]string{
			"d/40.conf": `{` + typeMeta + `,"evictionHard":{"memory.available":"200Mi"},"clusterDNS":["c"]}`},
			want: map[string]any{"evictionHard": map[string]any{"memory.available": "200Mi", "nodefs.available": "10%"}, "clusterDNS": []any{"c"}}},
		{name: "lexical order, subdirectories included", files: map[string]string{
			"d/20.conf": `{` + typeMeta + `,"maxPods":30}`, "d/10.conf": `{` + typeMeta + `,"maxPods":20}`, "d/30/x.conf": `{` + typeMeta + `,"maxPods":40}`},
			want: map[string]any{"maxPods": 40.0}},
		{name: "only .conf files", files: map[string]string{"d/10.json": `{` + typeMeta + `,"maxPods":20}`},
			want: map[string]any{"maxPods": 29.0}},
		{name: "null removes", files: map[string]string{"d/10.conf": `{` + typeMeta + `,"kubeReservedCgroup":null}`},
			want: map[string]any{"kubeReservedCgroup": nil}},
		{name: "YAML", files: map[string]string{"d/10.conf": "kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nmaxPods: 50\n"},
			want: map[string]any{"maxPods": 50.0}},
		{name: "drop-in without its type", files: map[string]string{"d/10.conf": `{"maxPods":50}`}, wantErr: ErrDropInType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"etc/config.json": {Data: []byte(base)}}
			for name, data := range tc.files {
				fsys["etc/"+name] = &fstest.MapFile{Data: []byte(data)}
			}
			merged, err := Read(fsys, "/etc/config.json", "/etc/d")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Read = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			var got map[string]any
			if err := json.Unmarshal(merged, &got); err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.want {
				if v, ok := got[k]; !reflect.DeepEqual(v, want) || (want == nil && ok) {
					t.Errorf("%s = %#v (present %v), want %#v", k, v, ok, want)
				}
			}
		})
	}
	if _, err := Read(fstest.MapFS{}, "/etc/config.json", ""); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing config file: %v", err)
	}
}

// TestApplyFlags pins how flags override the config file, as the real
// kubelet applies them (test/kubeletcompat checks the same against kubelets
// 1.31 and 1.34).
func TestApplyFlags(t *testing.T) {
	base := []byte(`{` + typeMeta + `,"maxPods":29,"clusterDNS":["a"],"kubeReserved":{"cpu":"70m","memory":"1Gi"},"failSwapOn":true}`)
	tests := []struct {
		name string
		args []string
		want map[string]any
	}{
		{name: "no flags", want: map[string]any{"maxPods": 29.0}},
		{name: "a scalar flag wins, the last one", args: []string{"--max-pods=7", "--max_pods=8"}, want: map[string]any{"maxPods": 8.0}},
		{name: "a map flag replaces the field, its values added up", args: []string{"--kube-reserved=cpu=1", "--kube-reserved=ephemeral-storage=2Gi"},
			want: map[string]any{"kubeReserved": map[string]any{"cpu": "1", "ephemeral-storage": "2Gi"}}},
		{name: "a list flag replaces the field, its values appended", args: []string{"--cluster-dns=1.1.1.1", "--cluster-dns=2.2.2.2,3.3.3.3"},
			want: map[string]any{"clusterDNS": []any{"1.1.1.1", "2.2.2.2", "3.3.3.3"}}},
		{name: "a bare boolean flag is true", args: []string{"--fail-swap-on=false", "--fail-swap-on"}, want: map[string]any{"failSwapOn": true}},
		{name: "flags without a field are left alone", args: []string{"--node-ip=10.0.0.1", "--hostname-override=x"}, want: map[string]any{"maxPods": 29.0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := ApplyFlags(base, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.want {
				if !reflect.DeepEqual(got[k], want) {
					t.Errorf("%s = %#v, want %#v", k, got[k], want)
				}
			}
		})
	}
}
