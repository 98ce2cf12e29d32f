//go:build oracle

package oracle

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// nodeadmCase is one of nodeadm's e2e cases, its run.sh retold as steps.
type nodeadmCase struct {
	// runSH is the SHA-256 of the case's run.sh this retelling follows: a
	// new nodeadm version that changes the script fails the test until the
	// steps are reviewed.
	runSH string
	// containerd are the containerd versions of the images the case runs
	// in (run.sh's dispatch: containerdv2-* on 2.0.5, containerd-* on both,
	// others on 1.7); empty means 1.7.
	containerd []string
	// lateIMDS starts no IMDS until the case asks (startIMDSLater).
	lateIMDS time.Duration
	// blackholeEC2 makes the EC2 endpoint never accept a connection.
	blackholeEC2 bool
	// proxy puts a logging HTTP proxy where the user data names one.
	proxy bool
	// aemm changes the instance AEMM serves (nil: the default config).
	aemm  func(t testing.TB, config map[string]any)
	steps func(t *testing.T, p *pair)
}

// cases retells every case of the pinned nodeadm.
var cases = map[string]nodeadmCase{}

var suiteStats = &stats{}

// TestNodeadmCases runs every e2e case nodeadm's module ships through both
// agents.
func TestNodeadmCases(t *testing.T) {
	t.Parallel()    // alongside TestGeneratedUserData: two cases mostly wait
	nodeadmAgent(t) // finds the tool
	names, err := tool.Cases()
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			c, ok := cases[name]
			if !ok {
				t.Fatalf("nodeadm %s has an e2e case %q this oracle does not run: retell its run.sh in cases_test.go", tool.Version, name)
			}
			src := filepath.Join(tool.CasesDir(), name)
			if got := fileSHA(t, filepath.Join(src, "run.sh")); got != c.runSH {
				t.Fatalf("%s/run.sh changed (sha256 %s, retold from %s): review the steps", name, got, c.runSH)
			}
			t.Parallel()
			ran++
			versions := c.containerd
			if len(versions) == 0 {
				versions = []string{"1.7.27"}
			}
			for _, v := range versions {
				t.Run("containerd-"+v, func(t *testing.T) {
					p := newPair(t, name, src, c, suiteStats)
					p.both(t, func(n *node) error { return n.write("/etc/eks/containerd-version.txt", v+"\n", 0o644) })
					c.steps(t, p)
				})
			}
		})
	}
	t.Cleanup(func() { t.Logf("nodeadm %s: %d e2e cases; %s", tool.Version, len(names), suiteStats) })
}

func fileSHA(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
