package containerd

import (
	"slices"
	"testing"
)

// TestRenderImportsConfigDir checks that every rendered config imports the
// fragments users drop into /etc/containerd/config.d/, as the AL2 and AL2023
// configs do; without the imports line containerd silently ignores them.
func TestRenderImportsConfigDir(t *testing.T) {
	tests := []struct {
		name      string
		version   string
		userTOML  string
		wantValue []any
	}{
		{name: "containerd 1.x, version 2", version: "1.7.27"},
		{name: "containerd 2.x, version 3", version: "2.0.5"},
		{name: "containerd 2.x, user v2 fragment", version: "2.0.5", userTOML: userV2RealCluster},
		{name: "containerd 1.x, user fragment merged", version: "1.6.20", userTOML: userV2RealCluster},
		{name: "user imports win", version: "1.7.27", userTOML: `imports = ["/opt/containerd/*.toml"]`,
			wantValue: []any{"/opt/containerd/*.toml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := nodeConfig(tc.version, "v1.34.4")
			cfg.Spec.Containerd.Config = tc.userTOML
			files, err := Render(cfg, Inputs{})
			if err != nil {
				t.Fatal(err)
			}
			want := tc.wantValue
			if want == nil {
				want = []any{ConfigDropInGlob}
			}
			got, _ := parseTOMLFile(t, fileData(t, files, ConfigPath))["imports"].([]any)
			if !slices.Equal(got, want) {
				t.Fatalf("imports = %#v, want %#v", got, want)
			}
		})
	}
}
