package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/doctor"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
	"github.com/nodeboot/nodeboot/internal/testing/nodetest"
)

// TestDoctorBundleAndJoinWait runs the built binary on a node rendered
// under a scratch root whose API server port is closed: doctor fails the
// API endpoint check and exits 1, bundle writes its archive, and init's
// run phase gives up waiting for the Node, prints the report and writes
// the bundle. (The e2e suite does the same against a real cluster.)
func TestDoctorBundleAndJoinWait(t *testing.T) {
	awstest.IsolateEnv(t)
	closed := net.JoinHostPort("127.0.0.1", strconv.Itoa(nodetest.ClosedPort(t)))
	root, env := configuredNode(t, closed)

	res := run(t, env, "doctor", "--root", root, "-o", "json")
	var rep doctor.Report
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || res.code != 1 {
		t.Fatalf("doctor: exit %d, %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	for id, want := range map[string]doctor.Verdict{doctor.CheckUserData: doctor.OK, doctor.CheckIMDS: doctor.OK, doctor.CheckEndpoint: doctor.Fail,
		doctor.CheckIdentity: doctor.Skipped, doctor.CheckVersions: doctor.Skipped} {
		if c, _ := rep.Check(id); c.Verdict != want {
			t.Errorf("%s: %s (%s), want %s", id, c.Verdict, c.Summary, want)
		}
	}
	if c, _ := rep.Check(doctor.CheckEndpoint); !strings.Contains(c.Summary, "refused: nothing listens on port") {
		t.Errorf("API endpoint: %s", c.Summary)
	}

	if res := run(t, env, "bundle", "--root", root, "--out", "/b/bundle.tgz", "--since", "1h"); res.code != 0 || !strings.Contains(res.stdout, "wrote ") {
		t.Fatalf("bundle: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "b/bundle.tgz")); err != nil {
		t.Fatal(err)
	}

	res = run(t, env, "init", "--skip", "config", "--daemon=", "--registration-timeout", "1s", "--root", root)
	if res.code != 1 || !strings.Contains(res.stderr, "FAIL  API endpoint") || !strings.Contains(res.stderr, "the node did not register within 1s") {
		t.Fatalf("init run phase: exit %d\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "var/log/support/nodeboot-logs.tar.gz")); err != nil {
		t.Errorf("no bundle after the registration timeout: %v", err)
	}
}
