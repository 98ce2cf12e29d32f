package v1

import (
	"errors"
	"testing"
)

func TestCurrent(t *testing.T) {
	ctx := []NamedContext{{Name: "c", Context: Context{Cluster: "k", AuthInfo: "u"}}}
	tests := []struct {
		name       string
		config     Config
		wantServer string
		wantToken  string
		wantErr    error
	}{
		{name: "no contexts", config: Config{CurrentContext: "x"}, wantErr: ErrNoCurrentContext},
		{name: "missing cluster", config: Config{CurrentContext: "c", Contexts: ctx}, wantErr: ErrNoCurrentContext},
		{name: "missing user", config: Config{CurrentContext: "c", Contexts: ctx, Clusters: []NamedCluster{{Name: "k"}}}, wantErr: ErrNoCurrentContext},
		{name: "current context", wantServer: "https://k", wantToken: "t", config: Config{CurrentContext: "c", Contexts: ctx,
			Clusters: []NamedCluster{{Name: "k", Cluster: Cluster{Server: "https://k"}}}, AuthInfos: []NamedAuthInfo{{Name: "u", AuthInfo: AuthInfo{Token: "t"}}}}},
		{name: "the only context when none is current", wantServer: "https://k", wantToken: "t", config: Config{Contexts: ctx,
			Clusters: []NamedCluster{{Name: "k", Cluster: Cluster{Server: "https://k"}}}, AuthInfos: []NamedAuthInfo{{Name: "u", AuthInfo: AuthInfo{Token: "t"}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, u, err := tc.config.Current()
			if !errors.Is(err, tc.wantErr) || c.Server != tc.wantServer || u.Token != tc.wantToken {
				t.Errorf("Current() = %+v, %+v, %v", c, u, err)
			}
		})
	}
}
