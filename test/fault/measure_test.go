package fault

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// closedPort is a loopback endpoint nothing listens on: connections are
// refused at once, as with a dependency that is down.
const closedPort = "http://127.0.0.1:9"

// TestMeasureBounds measures, with the production settings (no shortened
// deadline or attempt budget), how long `nodeboot init` takes from its start
// to a clear failure for each unreachable or stalled dependency. It only
// logs the figures (docs/failure-bounds.md records them); it asserts no
// duration. It takes several minutes, so it runs only when asked:
//
//	NODEBOOT_MEASURE_BOUNDS=1 go test -run TestMeasureBounds -v -timeout 30m ./test/fault/
func TestMeasureBounds(t *testing.T) {
	if os.Getenv("NODEBOOT_MEASURE_BOUNDS") == "" {
		t.Skip("set NODEBOOT_MEASURE_BOUNDS=1 to measure (several minutes)")
	}
	w := newWorld(t)
	type setup struct {
		env   []string // extra variables
		src   []byte   // user data (file source); nil reads imds://user-data
		aemm  aemmtest.Config
		code  int
		wants string
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) setup
	}{
		{"IMDS refuses connections", func(t *testing.T) setup {
			return setup{env: []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + closedPort}, code: 1, wants: "imds "}
		}},
		{"IMDS accepts and never answers", func(t *testing.T) setup {
			s := awstest.NewIMDS(t)
			s.Hang(awstest.PathToken)
			return setup{env: []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + s.URL}, code: 1, wants: "imds "}
		}},
		{"IMDS token endpoint answers 5xx", func(t *testing.T) setup {
			s := awstest.NewIMDS(t)
			s.FailAlways(awstest.PathToken, awstest.Fault{Status: 503, Message: "Service Unavailable"})
			return setup{env: []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + s.URL}, code: 1, wants: "imds "}
		}},
		{"IMDS trickles the user data", func(t *testing.T) setup {
			s := awstest.NewIMDS(t)
			s.SetIdentity(aemmtest.DefaultInstanceID, aemmtest.DefaultRegion, aemmtest.DefaultInstanceType, aemmtest.DefaultAZ)
			s.Set(awstest.PathUserData, string(w.b))
			s.Trickle(awstest.PathUserData, time.Hour)
			return setup{env: []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + s.URL}, code: 1, wants: "imds user-data"}
		}},
		{"EKS refuses connections", func(t *testing.T) setup {
			return setup{env: []string{"AWS_ENDPOINT_URL_EKS=" + closedPort}, src: readCase(t, "discovery-cluster-name-only"), code: 1, wants: "eks DescribeCluster"}
		}},
		{"EKS accepts and never answers", func(t *testing.T) setup {
			s := awstest.NewEKS(t)
			s.Hang(awstest.ActionDescribeCluster)
			return setup{env: []string{"AWS_ENDPOINT_URL_EKS=" + s.URL}, src: readCase(t, "discovery-cluster-name-only"), code: 1, wants: "eks DescribeCluster"}
		}},
		{"EC2 refuses connections", func(t *testing.T) setup {
			return setup{env: []string{"AWS_ENDPOINT_URL_EC2=" + closedPort}, src: w.b, code: 1, wants: "ec2 DescribeInstances"}
		}},
		{"EC2 DescribeInstances accepts and never answers", func(t *testing.T) setup {
			s := w.ec2(t)
			s.Hang(awstest.ActionDescribeInstances)
			return setup{env: []string{"AWS_ENDPOINT_URL_EC2=" + s.URL}, src: w.b, code: 1, wants: "ec2 DescribeInstances"}
		}},
		{"EC2 DescribeInstances answers without a name", func(t *testing.T) setup {
			s := awstest.NewEC2(t)
			s.AddInstance(awstest.Instance{ID: aemmtest.DefaultInstanceID, PrivateDNSName: nodeName, EmptyNameCalls: -1})
			return setup{env: []string{"AWS_ENDPOINT_URL_EC2=" + s.URL}, src: w.b, code: 1, wants: "still no name"}
		}},
		{"EC2 DescribeInstanceTypes accepts and never answers (a warning)", func(t *testing.T) setup {
			s := w.ec2(t)
			s.Hang(awstest.ActionDescribeInstanceTypes)
			return setup{env: []string{"AWS_ENDPOINT_URL_EC2=" + s.URL}, src: w.b, aemm: aemmtest.Config{InstanceType: "m99.large"},
				code: 0, wants: "max pods falls back to the default"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := tc.setup(t)
			imds := w.imds
			if s.aemm.InstanceType != "" {
				imds = aemmtest.Start(t, s.aemm)
			}
			env := append(awstest.IsolatedEnviron(t), "AWS_EC2_METADATA_SERVICE_ENDPOINT="+imds, "AWS_ENDPOINT_URL_EC2="+w.ec2(t).URL)
			env = append(env, s.env...)
			args := []string{"init", "--skip", "run", "--root", w.root(t, s.src), "-c", "imds://user-data"}
			if s.src != nil {
				args[len(args)-1] = "file://" + source
			}
			// Every run ends by its own bound (an AWS call's 5-minute
			// budget, the 6-minute name wait, IMDS's 2 minutes), before
			// --timeout's 12: 10 minutes only catches a hang.
			o := start(t, env, args...).waitWithin(t, 10*time.Minute)
			countRun(t.Name(), o, s.code == 1)
			if o.code != s.code || !strings.Contains(o.stderr, s.wants) {
				t.Fatalf("exit %d, want %d with %q:\n%s", o.code, s.code, s.wants, o.stderr)
			}
			t.Logf("bound: %s: exit %d after %s: %s", tc.name, o.code, o.took.Round(100*time.Millisecond), lastLine(o.stderr))
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	line := lines[len(lines)-1]
	if len(line) > 400 {
		line = line[:400] + "…"
	}
	return line
}
