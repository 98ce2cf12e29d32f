package bottlerocket

import "testing"

func TestKeyPositions(t *testing.T) {
	data := []byte("[settings.kubernetes]\ncluster-name = \"c\"\n\n[settings.kubernetes.node-labels]\n\"a/b\" = \"x\"\n")
	got := KeyPositions(data, 10)
	for key, line := range map[string]int{
		"settings.kubernetes":                   10,
		"settings.kubernetes.cluster-name":      11,
		`settings.kubernetes.node-labels."a/b"`: 14,
	} {
		if got[key].Line != line {
			t.Errorf("%s at %+v, want line %d (all: %v)", key, got[key], line, got)
		}
	}
}
