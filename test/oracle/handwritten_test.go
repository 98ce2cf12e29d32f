//go:build oracle

package oracle

import (
	"encoding/base64"
	"strings"
	"sync"
	"testing"
)

// handWritten is user data as people write it by hand, in the forms the
// generator (internal/testing/userdatagen) and nodeadm's own e2e cases do
// not produce: YAML syntax variety, unknown and mistyped fields, merge
// semantics of several NodeConfigs, MIME details. {{CA}} stands for a real
// CA certificate, base64'd as certificateAuthority wants it; {{CLUSTER}}
// for a valid cluster section at two spaces' indent under spec.
var handWritten = map[string]string{}

// handOutcomes names, by input, the documented outcome difference
// (outcomeDifferences) the input shows: one agent boots it, the other not.
var handOutcomes = map[string]string{}

// handTransforms turn a hand-written input's text into the user data
// bytes (gzip, base64), by case name.
var handTransforms = map[string]func(t testing.TB, text string) []byte{}

const clusterSection = `  cluster:
    name: my-cluster
    apiServerEndpoint: https://example.com
    certificateAuthority: {{CA}}
    cidr: 10.100.0.0/16
`

const header = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"

var handStats = &stats{}

var (
	handCAOnce sync.Once
	handCA     string
)

// TestHandWrittenUserData runs every hand-written input through both
// agents with the rules of runUserData.
func TestHandWrittenUserData(t *testing.T) {
	t.Parallel()
	nodeadmAgent(t)
	handCAOnce.Do(func() { handCA = base64.StdEncoding.EncodeToString(selfSignedCA(t)) })
	cl := startCloud(t, nodeadmCase{})
	for name, text := range handWritten {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text = strings.ReplaceAll(text, "{{CLUSTER}}", clusterSection)
			text = strings.ReplaceAll(text, "{{CA}}", handCA)
			data := []byte(text)
			if f := handTransforms[name]; f != nil {
				data = f(t, text)
			}
			var want *outcomeDifference
			if id := handOutcomes[name]; id != "" {
				want = outcomeDifferenceByID(t, id)
			}
			runUserDataAs(t, &cl, handStats, name, name, data, "1.33.0", want)
		})
	}
	t.Cleanup(func() { t.Logf("%d hand-written inputs: %s", len(handWritten), handStats) })
}
