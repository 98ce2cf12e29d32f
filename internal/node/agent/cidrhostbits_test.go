package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestBootstrapShCIDRHostBitsBoots: AL2 boots a bootstrap.sh call whose
// --service-ipv4-cidr has host bits (172.20.5.0/16) with cluster DNS
// 172.20.5.10; so must init, warning about it, while --strict refuses it.
func TestBootstrapShCIDRHostBitsBoots(t *testing.T) {
	base := readCase(t, "al2-labels-taints")
	userData := regexp.MustCompile(`(?m)^  --apiserver-endpoint`).ReplaceAll(base, []byte("  --service-ipv4-cidr 172.20.5.0/16 \\\n  --apiserver-endpoint"))
	if bytes.Equal(userData, base) {
		t.Fatal("the case changed: no --apiserver-endpoint line to add the CIDR before")
	}
	for _, strict := range []bool{false, true} {
		root := t.TempDir()
		a, _, _ := newTestAgent(t, root, userData, loadCase(t, filepath.Join("testdata/cases", "al2-labels-taints")))
		var log bytes.Buffer
		a.Log = slog.New(slog.NewTextHandler(&log, nil))
		a.Strict = strict
		err := a.Init(context.Background(), initOpts())
		if strict {
			if err == nil || !strings.Contains(err.Error(), "host bits") {
				t.Errorf("--strict: err = %v, want the host bits refused", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("init: %v", err)
		}
		if !strings.Contains(log.String(), "host bits are set") {
			t.Errorf("no warning about the host bits:\n%s", log.String())
		}
		data, err := os.ReadFile(filepath.Join(root, "etc/kubernetes/kubelet/config.json"))
		if err != nil {
			t.Fatal(err)
		}
		var config struct{ ClusterDNS []string }
		if err := json.Unmarshal(data, &config); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(config.ClusterDNS, []string{"172.20.5.10"}) {
			t.Errorf("clusterDNS = %v, want [172.20.5.10] as AL2 derives it", config.ClusterDNS)
		}
	}
}
