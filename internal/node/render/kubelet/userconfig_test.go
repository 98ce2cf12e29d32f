package kubelet

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/render"
)

// TestMergePatch checks mergePatch against the examples of RFC 7386 §3.
func TestMergePatch(t *testing.T) {
	tests := []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`{"e":null}`, `{"a":1}`, `{"a":1,"e":null}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	}
	for _, tc := range tests {
		var target, patch, want map[string]any
		for _, p := range []struct {
			s string
			v *map[string]any
		}{{tc.target, &target}, {tc.patch, &patch}, {tc.want, &want}} {
			if err := json.Unmarshal([]byte(p.s), p.v); err != nil {
				t.Fatal(err)
			}
		}
		mergePatch(target, patch)
		if !reflect.DeepEqual(target, want) {
			t.Errorf("%s + %s = %v, want %s", tc.target, tc.patch, target, tc.want)
		}
	}
}

// TestUserConfigPerKubeletVersion checks where spec.kubelet.config ends up
// for each kubelet version range: what the base file and the drop-in say,
// and whether --config-dir and the alpha variable are passed.
func TestUserConfigPerKubeletVersion(t *testing.T) {
	user := map[string]json.RawMessage{
		"maxPods":            json.RawMessage(`17`),
		"evictionHard":       json.RawMessage(`{"imagefs.available":"20%","nodefs.inodesFree":null}`),
		"kubeReservedCgroup": json.RawMessage(`null`),
	}
	tests := []struct {
		version   string
		base      map[string]any // decisive base-file values; nil means absent
		dropIn    string         // "" means no drop-in
		configDir bool
		alphaEnv  bool
	}{
		{version: "v1.28.15",
			base: map[string]any{"maxPods": 17.0, "kubeReservedCgroup": nil, "systemReservedCgroup": "/system", "cgroupDriver": "systemd",
				"evictionHard": map[string]any{"imagefs.available": "20%", "memory.available": "100Mi", "nodefs.available": "10%"}}},
		{version: "v1.29.15", configDir: true, alphaEnv: true,
			base: map[string]any{"maxPods": 29.0, "kubeReservedCgroup": nil, "systemReservedCgroup": "/system",
				"evictionHard": map[string]any{"memory.available": "100Mi", "nodefs.available": "10%"}},
			dropIn: `{"apiVersion":"kubelet.config.k8s.io/v1beta1","evictionHard":{"imagefs.available":"20%"},"kind":"KubeletConfiguration","maxPods":17}`},
		{version: "v1.31.14", configDir: true,
			base: map[string]any{"maxPods": 29.0, "kubeReservedCgroup": nil,
				"evictionHard": map[string]any{"memory.available": "100Mi", "nodefs.available": "10%"}},
			dropIn: `{"apiVersion":"kubelet.config.k8s.io/v1beta1","evictionHard":{"imagefs.available":"20%"},"kind":"KubeletConfiguration","maxPods":17}`},
		{version: "v1.34.4", configDir: true,
			base:   map[string]any{"maxPods": 29.0, "kubeReservedCgroup": nil},
			dropIn: `{"apiVersion":"kubelet.config.k8s.io/v1beta1","evictionHard":{"imagefs.available":"20%"},"kind":"KubeletConfiguration","maxPods":17}`},
	}
	for _, tc := range tests {
		t.Run(tc.version, func(t *testing.T) {
			cfg, in := baseCase(t)
			cfg.Status.KubeletVersion = tc.version
			cfg.Spec.Kubelet.Config = user
			files, err := Render(cfg, in)
			if err != nil {
				t.Fatal(err)
			}
			var base map[string]any
			if err := json.Unmarshal(fileNamed(t, files, ConfigPath), &base); err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.base {
				if got := base[k]; !reflect.DeepEqual(got, want) {
					t.Errorf("base %s = %#v, want %#v", k, got, want)
				}
			}
			if _, has := base["evictionHard"].(map[string]any)["nodefs.inodesFree"]; has {
				t.Error("the base file keeps evictionHard.nodefs.inodesFree, which the user removed")
			}
			gotDropIn := ""
			for _, f := range files {
				if f.Path == DropInPath {
					var v any
					if err := json.Unmarshal(f.Data, &v); err != nil {
						t.Fatal(err)
					}
					b, _ := json.Marshal(v)
					gotDropIn = string(b)
				}
			}
			if gotDropIn != tc.dropIn {
				t.Errorf("drop-in = %s\nwant       %s", gotDropIn, tc.dropIn)
			}
			env := string(fileNamed(t, files, EnvironmentPath))
			if got := strings.Contains(env, "--config-dir="); got != tc.configDir {
				t.Errorf("--config-dir passed = %v, want %v", got, tc.configDir)
			}
			if got := strings.Contains(env, dropInAlphaVariable); got != tc.alphaEnv {
				t.Errorf("%s set = %v, want %v", dropInAlphaVariable, got, tc.alphaEnv)
			}
		})
	}
}

// TestReservedCPUsNeverLeaveReservedCgroups: however the user reserves CPUs
// (config, flag, or bootstrap.sh's nulls), no kubelet version gets a base
// file with reserved cgroups, and no drop-in carries a null.
func TestReservedCPUsNeverLeaveReservedCgroups(t *testing.T) {
	inputs := map[string]func(*testing.T) (map[string]json.RawMessage, []string){
		"kubelet.config reservedSystemCPUs": func(*testing.T) (map[string]json.RawMessage, []string) {
			return map[string]json.RawMessage{"reservedSystemCPUs": json.RawMessage(`"0"`)}, nil
		},
		"--reserved-cpus flag": func(*testing.T) (map[string]json.RawMessage, []string) {
			return nil, []string{"--reserved-cpus=0-1"}
		},
		"bootstrap.sh --reserved-cpus (flag and nulls)": func(*testing.T) (map[string]json.RawMessage, []string) {
			return map[string]json.RawMessage{"kubeReservedCgroup": json.RawMessage(`null`), "systemReservedCgroup": json.RawMessage(`null`)},
				[]string{"--reserved-cpus=0"}
		},
	}
	for name, input := range inputs {
		for _, version := range []string{"v1.28.15", "v1.29.15", "v1.30.14", "v1.31.14", "v1.32.13", "v1.34.4"} {
			t.Run(name+"/"+version, func(t *testing.T) {
				cfg, in := baseCase(t)
				cfg.Status.KubeletVersion = version
				cfg.Spec.Kubelet.Config, cfg.Spec.Kubelet.Flags = input(t)
				files, err := Render(cfg, in)
				if err != nil {
					t.Fatal(err)
				}
				var base map[string]any
				if err := json.Unmarshal(fileNamed(t, files, ConfigPath), &base); err != nil {
					t.Fatal(err)
				}
				for _, k := range []string{"kubeReservedCgroup", "systemReservedCgroup"} {
					if v, _ := base[k].(string); v != "" {
						t.Errorf("base file sets %s = %q next to reserved CPUs", k, v)
					}
				}
				for _, f := range files {
					if f.Path == DropInPath && strings.Contains(string(f.Data), "null") {
						t.Errorf("the drop-in carries a null, which kubelets before 1.32 ignore:\n%s", f.Data)
					}
				}
			})
		}
	}
}

func fileNamed(t *testing.T, files []render.File, path string) []byte {
	t.Helper()
	for _, f := range files {
		if f.Path == path {
			return f.Data
		}
	}
	t.Fatalf("%s not rendered", path)
	return nil
}
