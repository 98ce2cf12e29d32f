package containerd

import (
	"slices"
	"testing"
)

// TestRenderImportsConfigDir checks that a config rendered for AL2 input
// imports the fragments users drop into /etc/containerd/config.d/, as the
// AL2 image's config does (without the line containerd silently ignores
// them), and that one rendered for NodeConfig input has no imports line,
// as nodeadm's templates have none.
func TestRenderImportsConfigDir(t *testing.T) {
	tests := []struct {
		name      string
		version   string
		al2       bool
		userTOML  string
		wantValue []any
	}{
		{name: "AL2, containerd 1.x, version 2", version: "1.7.27", al2: true, wantValue: []any{ConfigDropInGlob}},
		{name: "AL2, containerd 2.x, version 3", version: "2.0.5", al2: true, wantValue: []any{ConfigDropInGlob}},
		{name: "AL2, containerd 2.x, user v2 fragment", version: "2.0.5", al2: true, userTOML: userV2RealCluster, wantValue: []any{ConfigDropInGlob}},
		{name: "AL2, containerd 1.x, user fragment merged", version: "1.6.20", al2: true, userTOML: userV2RealCluster, wantValue: []any{ConfigDropInGlob}},
		{name: "AL2, user imports win", version: "1.7.27", al2: true, userTOML: `imports = ["/opt/containerd/*.toml"]`,
			wantValue: []any{"/opt/containerd/*.toml"}},
		{name: "NodeConfig, containerd 1.x", version: "1.7.27"},
		{name: "NodeConfig, containerd 2.x", version: "2.0.5"},
		{name: "NodeConfig, user fragment merged", version: "1.7.27", userTOML: userV2RealCluster},
		{name: "NodeConfig, user imports kept", version: "1.7.27", userTOML: `imports = ["/opt/containerd/*.toml"]`,
			wantValue: []any{"/opt/containerd/*.toml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := nodeConfig(tc.version, "v1.34.4")
			cfg.Spec.Containerd.Config = tc.userTOML
			cfg.Spec.Containerd.ImportConfigDir = tc.al2
			files, err := Render(cfg, Inputs{})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := parseTOMLFile(t, fileData(t, files, ConfigPath))["imports"].([]any)
			if !slices.Equal(got, tc.wantValue) {
				t.Fatalf("imports = %#v, want %#v", got, tc.wantValue)
			}
		})
	}
}
