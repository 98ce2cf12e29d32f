//go:build oracle

package oracle

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/userdatagen"
)

// generatedInputs is how many generated inputs TestGeneratedUserData runs:
// $NODEBOOT_ORACLE_INPUTS, else 300 (make test). The seeds are fixed, so a
// failure names the seed that reproduces it.
func generatedInputs(t *testing.T) int {
	if s := os.Getenv("NODEBOOT_ORACLE_INPUTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("NODEBOOT_ORACLE_INPUTS=%q: %v", s, err)
		}
		return n
	}
	return 300
}

var genStats = &stats{}

// TestGeneratedUserData feeds generated user data to both agents: what
// nodeadm boots nodeboot must boot, configuring the same node up to the
// deliberate differences; what nodeadm refuses nodeboot must refuse, naming
// the source. Run one seed with -run 'TestGeneratedUserData/seed-N$'.
func TestGeneratedUserData(t *testing.T) {
	t.Parallel()
	nodeadmAgent(t)
	n := generatedInputs(t)
	cl := startCloud(t, nodeadmCase{}) // one instance for every input
	for seed := range uint64(n) {
		t.Run("seed-"+strconv.FormatUint(seed, 10), func(t *testing.T) {
			t.Parallel()
			runGenerated(t, &cl, seed)
		})
	}
	t.Cleanup(func() { t.Logf("%d generated inputs: %s", n, genStats) })
}

// FuzzGeneratedUserData is TestGeneratedUserData as a native fuzz target
// for long runs: the fuzzer picks the seeds.
//
//	sudo go test -tags oracle -run '^$' -fuzz FuzzGeneratedUserData -fuzztime 2000x ./test/oracle/
func FuzzGeneratedUserData(f *testing.F) {
	for _, seed := range []uint64{0, 1, 2, 3, 42} {
		f.Add(seed)
	}
	nodeadmAgent(f) // finds the tool
	cl := startCloud(f, nodeadmCase{})
	f.Fuzz(func(t *testing.T, seed uint64) { runGenerated(t, &cl, seed) })
}

var (
	generatorOnce sync.Once
	generator     *userdatagen.Generator
)

// runGenerated runs the input of seed on both agents and checks the rules.
func runGenerated(t *testing.T, cl *cloud, seed uint64) {
	generatorOnce.Do(func() { generator = userdatagen.New(selfSignedCA(t)) })
	in := generator.Generate(seed)
	label := "seed " + strconv.FormatUint(seed, 10) + " (" + in.Name + ", kubelet " + in.KubeletVersion + ")"
	runUserData(t, cl, genStats, label, in.UserData, in.KubeletVersion)
}

// runUserData runs user data through both agents (init --skip run from a
// file) and checks the rules: what nodeadm boots, nodeboot boots, the nodes
// equal up to the table; what nodeadm refuses, nodeboot refuses, naming the
// source.
func runUserData(t *testing.T, cl *cloud, st *stats, label string, userData []byte, kubelet string) {
	runUserDataAs(t, cl, st, "generated", label, userData, kubelet, nil)
}

// runUserDataAs is runUserData for the input called name, which may show
// the documented outcome difference want (nil: none).
func runUserDataAs(t *testing.T, cl *cloud, st *stats, name, label string, userData []byte, kubelet string, want *outcomeDifference) {
	p := newUserDataPair(t, cl, st, name, userData, kubelet)
	o := p.run(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file:///user-data")
	input := func() string { return label + ":\n" + string(userData) }
	if want != nil {
		checkOutcomeDifference(t, st, *want, o, input())
		return
	}
	switch {
	case o.nodeadm.code == 0 && o.nodeboot.code == 0:
		p.compare(t, input())
	case o.nodeadm.code == 0:
		t.Errorf("nodeadm boots, nodeboot refuses %s\n--- nodeboot\n%s", input(), o.nodeboot)
	case o.nodeboot.code == 0:
		t.Errorf("nodeadm refuses, nodeboot boots %s\n--- nodeadm\n%s", input(), o.nodeadm)
	default:
		st.refusedByBoth()
		if !strings.Contains(o.nodeboot.stderr, "file:///user-data") {
			t.Errorf("nodeboot refuses %s without naming the source:\n%s", input(), o.nodeboot)
		}
	}
}

// checkOutcomeDifference checks that exactly the documented difference
// happened: one agent booted, the other refused (nodeboot naming the
// source when it is the one).
func checkOutcomeDifference(t *testing.T, st *stats, want outcomeDifference, o outcome, input string) {
	t.Helper()
	booted, refused := o.nodeadm, o.nodeboot
	if !want.nodeadmBoots {
		booted, refused = o.nodeboot, o.nodeadm
	}
	switch {
	case booted.code != 0 || refused.code == 0:
		t.Errorf("%s: expected the documented difference %s (%s), got nodeadm exit %d, nodeboot exit %d\n--- nodeadm\n%s\n--- nodeboot\n%s",
			input, want.id, want.reason, o.nodeadm.code, o.nodeboot.code, o.nodeadm, o.nodeboot)
	case want.nodeadmBoots && !strings.Contains(o.nodeboot.stderr, "file:///user-data"):
		t.Errorf("nodeboot refuses %s without naming the source:\n%s", input, o.nodeboot)
	default:
		st.explained(want.id)
	}
}

// newUserDataPair makes the two nodes of a user-data run, in one cloud.
func newUserDataPair(t *testing.T, cl *cloud, st *stats, name string, userData []byte, kubelet string) *pair {
	p := newPairIn(t, name, "", cl, cl, st)
	p.both(t, func(n *node) error { return prepareUserDataNode(n, userData, kubelet) })
	return p
}

// prepareUserDataNode puts the user data at /user-data, the containerd
// version file and a kubelet answering --version with kubelet.
func prepareUserDataNode(n *node, userData []byte, kubelet string) error {
	if err := n.write("/user-data", string(userData), 0o644); err != nil {
		return err
	}
	if err := n.write("/etc/eks/containerd-version.txt", "1.7.27\n", 0o644); err != nil {
		return err
	}
	return n.mockKubelet(kubelet)
}

var producerStats = &stats{}

// TestProducerUserData runs the AL2023 (NodeConfig) entries of the corpus of
// user data the tools people use produce (internal/node/agent/testdata/
// producers) through both agents: nodeadm must boot them, and nodeboot must
// configure the same node.
func TestProducerUserData(t *testing.T) {
	t.Parallel()
	nodeadmAgent(t)
	dirs, err := filepath.Glob("../../internal/node/agent/testdata/producers/*")
	if err != nil || len(dirs) < 20 {
		t.Fatalf("producer corpus: %v, %d entries", err, len(dirs))
	}
	cl := startCloud(t, nodeadmCase{})
	ran := 0
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, "user-data"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "application/node.eks.aws") {
			continue // AL2 and Bottlerocket user data: nodeadm does not read it
		}
		ran++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			runUserData(t, &cl, producerStats, filepath.Base(dir), data, "1.33.0")
		})
	}
	t.Cleanup(func() { t.Logf("%d AL2023 producer entries: %s", ran, producerStats) })
}

// selfSignedCA is a real CA certificate for the generated clusters.
func selfSignedCA(t *testing.T) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubernetes"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
