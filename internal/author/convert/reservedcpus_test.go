package convert

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

func TestUnsetByReservedCPUs(t *testing.T) {
	tests := []struct {
		name   string
		config map[string]string
		key    string
		want   bool
	}{
		{name: "null cgroup with reserved cpus", config: map[string]string{"reservedSystemCPUs": `"0-1"`, "kubeReservedCgroup": `null`}, key: "kubeReservedCgroup", want: true},
		{name: "system cgroup too", config: map[string]string{"reservedSystemCPUs": `"0"`, "systemReservedCgroup": `null`}, key: "systemReservedCgroup", want: true},
		{name: "cgroup with a value", config: map[string]string{"reservedSystemCPUs": `"0"`, "kubeReservedCgroup": `"/runtime"`}, key: "kubeReservedCgroup"},
		{name: "null cgroup without reserved cpus", config: map[string]string{"kubeReservedCgroup": `null`}, key: "kubeReservedCgroup"},
		{name: "reserved cpus null", config: map[string]string{"reservedSystemCPUs": `null`, "kubeReservedCgroup": `null`}, key: "kubeReservedCgroup"},
		{name: "other null field", config: map[string]string{"reservedSystemCPUs": `"0"`, "maxPods": `null`}, key: "maxPods"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			config := map[string]json.RawMessage{}
			for k, v := range tc.config {
				config[k] = json.RawMessage(v)
			}
			if got := unsetByReservedCPUs(config, tc.key); got != tc.want {
				t.Fatalf("unsetByReservedCPUs(%s) = %v, want %v", tc.key, got, tc.want)
			}
		})
	}
}

// TestReservedCPUsCgroupsNotNoted checks that the null cgroups that go with
// reserved CPUs are neither noted nor written by the script targets, while
// a null cgroup on its own still is noted.
func TestReservedCPUsCgroupsNotNoted(t *testing.T) {
	withCPUs := hub.Spec{Cluster: hub.Cluster{Name: "a"}, Kubelet: hub.Kubelet{Config: map[string]json.RawMessage{
		"reservedSystemCPUs": json.RawMessage(`"0-1"`), "kubeReservedCgroup": json.RawMessage(`null`), "systemReservedCgroup": json.RawMessage(`null`)}}}
	alone := hub.Spec{Cluster: hub.Cluster{Name: "a"}, Kubelet: hub.Kubelet{Config: map[string]json.RawMessage{"kubeReservedCgroup": json.RawMessage(`null`)}}}
	tests := []struct {
		name string
		emit Emitter
		spec hub.Spec
		want []string
	}{
		{name: "bottlerocket", emit: Bottlerocket, spec: withCPUs},
		{name: "bootstrap.sh", emit: BootstrapSh, spec: withCPUs},
		{name: "windows", emit: Windows, spec: withCPUs,
			want: []string{"spec.kubelet.config[reservedSystemCPUs]: is a Linux-only kubelet setting; Windows nodes do not have it"}},
		{name: "bottlerocket without reserved cpus", emit: Bottlerocket, spec: alone,
			want: []string{"spec.kubelet.config[kubeReservedCgroup]: Bottlerocket has no setting for this kubelet field (newer releases accept it in settings.kubernetes.kubelet-extra-config)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, notes, err := tc.emit(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if text := strings.ToLower(string(out)); strings.Contains(text, "reservedcgroup") || strings.Contains(text, "reserved-cgroup") {
				t.Errorf("output sets a reserved cgroup:\n%s", out)
			}
			if len(notes) == 0 {
				notes = nil
			}
			if !reflect.DeepEqual([]string(notes), tc.want) {
				t.Fatalf("notes = %q, want %q", notes, tc.want)
			}
		})
	}
}
