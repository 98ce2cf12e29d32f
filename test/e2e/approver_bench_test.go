//go:build e2e

package e2e

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/nodeboot/nodeboot/internal/cluster/approver"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// EnvBenchApprover runs TestApproverBurst (make bench-approver); the suite
// skips it otherwise. EnvBenchApproverArgs adds flags to the approver's
// (to compare settings; the figures of record use none).
const (
	EnvBenchApprover     = "NODEBOOT_BENCH_APPROVER"
	EnvBenchApproverArgs = "NODEBOOT_BENCH_APPROVER_ARGS"
)

// The join burst: burstNodes kubelets, each registering its Node at a
// moment spread evenly over burstSpread and creating its serving CSR at its
// certificate manager's next try, plus forged CSRs among them.
const (
	burstNodes  = 1000
	burstSpread = 1500 * time.Millisecond
	// certManagerPeriod is how often a kubelet's serving certificate
	// manager (client-go's util/certificate) tries to request a
	// certificate; it has a template once the kubelet's Node informer
	// shows its own Node with an address, so a kubelet's CSR follows its
	// Node's registration by up to a period.
	certManagerPeriod = time.Second
	// burstGuard bounds the wait for every decision of a burst; it only
	// catches a hang.
	burstGuard = 10 * time.Minute
)

// floorConcurrencies are the concurrencies the harness approves a burst at
// to choose the floor's.
var floorConcurrencies = []int{16, 64, 128}

// benchRounds is how many times the approver and the floor at the chosen
// concurrency each decide a burst, in turn, so that their medians are
// compared: one burst's p99 on two shared cores varies by half from run to
// run.
const benchRounds = 3

// burstCSR is one CSR of a burst: who asks, what, and what must happen.
type burstCSR struct {
	node worldNode
	csr  *certificatesv1.CertificateSigningRequest
	// forged CSRs must be denied with wantReason.
	forged     string
	wantReason string
}

// burstResult is what one burst measured.
type burstResult struct {
	// cpu is the CPU time each side used during the burst.
	cpu burstCPU
	// latencies of the honest CSRs, from their creation (the create call
	// returned) to the watch showing the decision, and fromSight, from
	// the watch first showing the CSR.
	latencies, fromSight []time.Duration
	// decisions of the forged CSRs, by forgery.
	forged map[string]certificatesv1.CertificateSigningRequestCondition
	wall   time.Duration
}

// burstCPU is the CPU seconds used during a burst by the control plane
// (etcd, kube-apiserver and kube-controller-manager, whose signer issues
// the approved certificates) and by the benchmark's own process (its
// kubelets' requests and watch, and the floor's approvals).
type burstCPU struct {
	ControlPlane, Harness float64
}

// controlPlaneProcs are the processes burstCPU.ControlPlane counts.
var controlPlaneProcs = []string{"etcd", "kube-apiserver", "kube-controller-manager"}

// cpuNow returns the CPU seconds used so far by the control plane and by
// this process.
func (w *approverWorld) cpuNow(t *testing.T) burstCPU {
	t.Helper()
	var c burstCPU
	for _, p := range w.c.procs.procs {
		if slices.Contains(controlPlaneProcs, p.name) {
			c.ControlPlane += processCPU(t, p.pid())
		}
	}
	c.Harness = processCPU(t, os.Getpid())
	return c
}

func (c burstCPU) since(before burstCPU) burstCPU {
	return burstCPU{ControlPlane: c.ControlPlane - before.ControlPlane, Harness: c.Harness - before.Harness}
}

// latencySummary is a distribution in milliseconds.
type latencySummary struct {
	N                       int
	P50, P95, P99, Max, Avg float64
}

func summarize(ds []time.Duration) latencySummary {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return latencySummary{}
	}
	q := func(p float64) float64 { return ms(s[int(math.Ceil(p*float64(len(s))))-1]) }
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return latencySummary{N: len(s), P50: q(0.50), P95: q(0.95), P99: q(0.99), Max: ms(s[len(s)-1]), Avg: ms(sum / time.Duration(len(s)))}
}

// floorRun is the harness approving a burst itself at one concurrency.
type floorRun struct {
	Concurrency int
	When        string // "choice", or the round
	// Latency is from each CSR's creation (its create call returned);
	// FromSight from the harness's watch first showing it.
	Latency, FromSight latencySummary
	WallSeconds        float64
	LoadAverage        string
	// CPU is the CPU seconds the control plane and the harness used.
	CPU burstCPU
	// ApproveCallMeanMs is the mean time of one approval request.
	ApproveCallMeanMs float64
}

// approverRun is one burst decided by a nodeboot-approver started for it,
// with no Node registered and its EC2 cache empty.
type approverRun struct {
	Round              int
	Latency, FromSight latencySummary
	WallSeconds        float64
	LoadAverage        string
	CPUSeconds         float64
	// BurstCPU is what the control plane and the harness used during the
	// burst (compare with each floor run's CPU).
	BurstCPU             burstCPU
	PeakRSSMiB           float64
	KubernetesRequests   map[string]float64 // the approver's, by verb
	KubernetesRequestsPN float64
	EC2HTTPRequests      map[string]int     // at the stubs, the SDK's retries included
	EC2Calls             map[string]float64 // the approver's own count of its calls
	InventoryBatchMean   float64
	// Inside is where the approver's time went, from its own metrics.
	Inside          approverInside
	ForgedDecisions map[string]string
	ForgedApproved  int
}

// approverBenchReport is what TestApproverBurst measures.
type approverBenchReport struct {
	Nodes, Forged int
	SpreadSeconds float64
	// CertManagerPeriodSeconds bounds how long after its Node's
	// registration a kubelet creates its CSR.
	CertManagerPeriodSeconds float64
	ApproverArgs             []string
	// FloorChoice are the floor runs at each concurrency; the one with the
	// lowest p99 sets the concurrency of the rounds' floor runs.
	FloorChoice []floorRun
	// Approver and Floor are the rounds' runs, in turn.
	Approver []approverRun
	Floor    []floorRun
	// P99OverFloorP99 is the median of the approver's p99s over the median
	// of the floor's, from creation; FromSight, the same from sight.
	// RoundRatios are each round's own ratio, from creation.
	P99OverFloorP99, P99OverFloorP99FromSight float64
	RoundRatios                               []float64
	ForgedApproved                            int
	LoadAverage                               [2]string
}

// TestApproverBurst joins 1,000 nodes at once on the real control plane
// and measures how fast nodeboot-approver decides their serving CSRs with
// the EC2 inventory on, against the floor: the harness itself approving an
// identical burst through the approval subresource at its best
// concurrency, as fast as the API server, etcd and the signer allow on
// this machine. The floor's concurrency is chosen first; then the approver
// (started afresh each time) and the floor decide benchRounds bursts each,
// in turn, and their median p99s are compared. Each burst joins the nodes
// as kubelets do: each registers its Node, then creates its CSR at its
// certificate manager's next try (the approver starts with no Node
// registered, and every burst registers them anew). Latency runs from a
// CSR's creation (its create call returned) to the harness's watch
// showing the decision. It is a measurement, not a timed test: only a
// forged CSR approved fails it.
func TestApproverBurst(t *testing.T) {
	if os.Getenv(EnvBenchApprover) == "" {
		t.Skipf("join burst benchmark: set %s=1 (make bench-approver)", EnvBenchApprover)
	}
	env := loadEnv(t)
	nodes, forgers := burstWorldNodes()
	w := startUnregisteredApproverWorld(t, env, append(slices.Clone(nodes), forgers...), "--kube-api-qps=200", "--kube-api-burst=400")
	if err := w.classifyLikeProduction(t.Context()); err != nil {
		t.Fatal(err)
	}
	rep := approverBenchReport{Nodes: burstNodes, SpreadSeconds: burstSpread.Seconds(), CertManagerPeriodSeconds: certManagerPeriod.Seconds()}
	rep.LoadAverage[0] = loadAverage()
	for _, c := range floorConcurrencies {
		rep.FloorChoice = append(rep.FloorChoice, w.measureFloor(t, nodes, c, "choice"))
	}
	best := bestFloor(rep.FloorChoice).Concurrency
	for round := range benchRounds {
		run := w.measureApprover(t, nodes, forgers, &rep)
		run.Round = round + 1
		rep.Approver = append(rep.Approver, run)
		rep.Floor = append(rep.Floor, w.measureFloor(t, nodes, best, fmt.Sprintf("round %d", round+1)))
		rep.ForgedApproved += run.ForgedApproved
	}
	rep.compare()
	rep.LoadAverage[1] = loadAverage()

	out, _ := json.MarshalIndent(rep, "", "  ")
	t.Logf("approver join burst benchmark:\n%s", out)
	path := filepath.Join(filepath.Dir(env.report), "approver-bench.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Errorf("write %s: %v", path, err)
	}
	if rep.ForgedApproved > 0 {
		t.Errorf("%d forged CSRs approved: %+v", rep.ForgedApproved, rep.Approver)
	}
}

// compare sets the ratios of the approver's p99s to the floor's.
func (rep *approverBenchReport) compare() {
	p99s := func(runs int, of func(int) latencySummary) []float64 {
		out := make([]float64, runs)
		for i := range out {
			out[i] = of(i).P99
		}
		return out
	}
	approverP99 := p99s(len(rep.Approver), func(i int) latencySummary { return rep.Approver[i].Latency })
	floorP99 := p99s(len(rep.Floor), func(i int) latencySummary { return rep.Floor[i].Latency })
	rep.P99OverFloorP99 = median(approverP99) / median(floorP99)
	rep.P99OverFloorP99FromSight = median(p99s(len(rep.Approver), func(i int) latencySummary { return rep.Approver[i].FromSight })) /
		median(p99s(len(rep.Floor), func(i int) latencySummary { return rep.Floor[i].FromSight }))
	for i := range approverP99 {
		rep.RoundRatios = append(rep.RoundRatios, approverP99[i]/floorP99[i])
	}
}

// median is the middle value of xs (the mean of the two middle ones for
// an even count).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// burstWorldNodes returns the burst's honest nodes and the nodes only
// forgers use: one whose instance is in another VPC, one of another
// account, one EC2 does not know, and one that wrote loopback and the API
// server's names into its own status.
func burstWorldNodes() (nodes, forgers []worldNode) {
	all := newWorldNodes(burstNodes + 4)
	nodes, forgers = all[:burstNodes], all[burstNodes:]
	forgers[0].vpc = foreignVPC
	forgers[1].owner = foreignOwner
	forgers[2].noInstance = true
	forgers[3].extraAddresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: "127.0.0.1"},
		{Type: corev1.NodeHostName, Address: "kubernetes.default.svc"},
		{Type: corev1.NodeExternalDNS, Address: "*"},
	}
	return nodes, forgers
}

// classifyLikeProduction puts the approver's user into the API server's
// priority level for kube-system service accounts (workload-high), where
// the Deployment's service account lands.
func (w *approverWorld) classifyLikeProduction(ctx context.Context) error {
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: "nodeboot-approver"},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "workload-high"},
			MatchingPrecedence:         900,
			DistinguisherMethod:        &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: approverUser}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
					Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true, Namespaces: []string{"*"},
				}},
			}},
		},
	}
	if _, err := w.c.admin.FlowcontrolV1().FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create FlowSchema: %w", err)
	}
	return nil
}

// prepare builds one serving CSR per node, signed ahead of the burst.
func prepare(t *testing.T, nodes []worldNode) []burstCSR {
	t.Helper()
	out := make([]burstCSR, len(nodes))
	for i, n := range nodes {
		dns, ips := honestSANs(n)
		csr, err := servingCSR(n, csrKey{}, dns, ips)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = burstCSR{node: n, csr: csr}
	}
	return out
}

// forgeries returns the burst's 20 forged CSRs: what nodes holding their
// own credentials ask for that is not theirs.
func burstForgeries(t *testing.T, nodes, forgers []worldNode) []burstCSR {
	t.Helper()
	ip := func(n worldNode) net.IP { return net.ParseIP(n.ip) }
	var many []string
	for i := range 700 {
		many = append(many, fmt.Sprintf("name-%03d.example.com", i))
	}
	spoofer := forgers[3]
	specs := []struct {
		name, reason string
		node         worldNode
		key          csrKey
		dns          []string
		ips          []net.IP
		usages       []certificatesv1.KeyUsage
	}{
		{"a neighbour's IP", policy.ReasonIPAddressNotInstanceAddress, nodes[1], csrKey{}, []string{nodes[1].name}, []net.IP{ip(nodes[2])}, nil},
		{"a neighbour's DNS name", policy.ReasonDNSNameNotInstanceAddress, nodes[3], csrKey{}, []string{nodes[4].name}, []net.IP{ip(nodes[3])}, nil},
		{"loopback it wrote into its status", policy.ReasonIPAddressNotGlobalUnicast, spoofer, csrKey{}, []string{spoofer.name}, []net.IP{ip(spoofer), net.ParseIP("127.0.0.1")}, nil},
		{"kubernetes.default.svc it wrote into its status", policy.ReasonDNSNameNotInstanceAddress, spoofer, csrKey{}, []string{spoofer.name, "kubernetes.default.svc"}, []net.IP{ip(spoofer)}, nil},
		{"* it wrote into its status", policy.ReasonInvalidDNSName, spoofer, csrKey{}, []string{"*"}, []net.IP{ip(spoofer)}, nil},
		{"OU=system:masters", policy.ReasonUnexpectedSubjectAttribute, nodes[5], csrKey{orgUnits: []string{"system:masters"}}, []string{nodes[5].name}, []net.IP{ip(nodes[5])}, nil},
		{"100 SANs", policy.ReasonTooManySANs, nodes[6], csrKey{}, []string{nodes[6].name}, repeatIP(ip(nodes[6]), 100), nil},
		{"700 SANs", policy.ReasonRequestTooLarge, nodes[7], csrKey{}, many, []net.IP{ip(nodes[7])}, nil},
		{"an instance in another VPC", policy.ReasonInstanceOutsideClusterVPC, forgers[0], csrKey{}, []string{forgers[0].name}, []net.IP{ip(forgers[0])}, nil},
		{"an instance of another account", policy.ReasonInstanceOutsideClusterAccount, forgers[1], csrKey{}, []string{forgers[1].name}, []net.IP{ip(forgers[1])}, nil},
		{"an instance EC2 does not know", policy.ReasonInstanceNotFound, forgers[2], csrKey{}, []string{forgers[2].name}, []net.IP{ip(forgers[2])}, nil},
		{"SHA-1", policy.ReasonWeakSignatureAlgorithm, nodes[8], csrKey{rsaBits: 2048, alg: x509.SHA1WithRSA}, []string{nodes[8].name}, []net.IP{ip(nodes[8])}, nil},
		{"RSA 1024", policy.ReasonWeakKey, nodes[9], csrKey{rsaBits: 1024}, []string{nodes[9].name}, []net.IP{ip(nodes[9])}, nil},
		{"client auth", policy.ReasonUsageNotAllowed, nodes[10], csrKey{}, []string{nodes[10].name}, []net.IP{ip(nodes[10])},
			append(slices.Clone(servingUsages), certificatesv1.UsageClientAuth)},
		{"a public IP", policy.ReasonIPAddressNotInstanceAddress, nodes[11], csrKey{}, []string{nodes[11].name}, []net.IP{net.ParseIP("54.1.2.3")}, nil},
		{"another neighbour's IP", policy.ReasonIPAddressNotInstanceAddress, nodes[12], csrKey{}, []string{nodes[12].name}, []net.IP{ip(nodes[13]), ip(nodes[12])}, nil},
		{"the API server's service IP", policy.ReasonIPAddressNotInstanceAddress, nodes[14], csrKey{}, []string{nodes[14].name}, []net.IP{net.ParseIP(kubernetesSvc)}, nil},
		{"localhost", policy.ReasonDNSNameNotInstanceAddress, nodes[15], csrKey{}, []string{"localhost"}, []net.IP{ip(nodes[15])}, nil},
		{"an email SAN", policy.ReasonEmailSANNotAllowed, nodes[16], csrKey{emails: []string{"root@example.com"}}, []string{nodes[16].name}, []net.IP{ip(nodes[16])}, nil},
		{"a far neighbour's name and IP", policy.ReasonDNSNameNotInstanceAddress, nodes[17], csrKey{}, []string{nodes[900].name}, []net.IP{ip(nodes[900])}, nil},
	}
	out := make([]burstCSR, len(specs))
	for i, s := range specs {
		csr, err := servingCSR(s.node, s.key, s.dns, s.ips)
		if err != nil {
			t.Fatal(err)
		}
		if s.usages != nil {
			csr.Spec.Usages = s.usages
		}
		out[i] = burstCSR{node: s.node, csr: csr, forged: s.name, wantReason: s.reason}
	}
	return out
}

// measureFloor approves a burst of the nodes' CSRs with the harness's own
// watch and concurrency workers, as the approver's identity, with no
// nodeboot-approver running.
func (w *approverWorld) measureFloor(t *testing.T, nodes []worldNode, concurrency int, when string) floorRun {
	t.Helper()
	cs := w.approverClient(t)
	load := loadAverage()
	w.waitIssued(t)
	var calls, callTime atomic.Int64
	res := w.burst(t, w.nodes, prepare(t, nodes), func(ctx context.Context, pending <-chan *certificatesv1.CertificateSigningRequest) {
		var wg sync.WaitGroup
		for range concurrency {
			wg.Go(func() {
				for csr := range pending {
					start := time.Now()
					approveDirectly(ctx, t, cs, csr)
					callTime.Add(int64(time.Since(start)))
					calls.Add(1)
				}
			})
		}
		wg.Wait()
	})
	run := floorRun{Concurrency: concurrency, When: when, Latency: summarize(res.latencies), FromSight: summarize(res.fromSight),
		WallSeconds: res.wall.Seconds(), LoadAverage: load, CPU: res.cpu}
	if n := calls.Load(); n > 0 {
		run.ApproveCallMeanMs = ms(time.Duration(callTime.Load() / n))
	}
	t.Logf("floor at concurrency %d (%s): %+v, load %s", concurrency, when, run.Latency, load)
	return run
}

func approveDirectly(ctx context.Context, t *testing.T, cs kubernetes.Interface, csr *certificatesv1.CertificateSigningRequest) {
	csr = csr.DeepCopy()
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "BenchmarkFloor", Message: "approved by the benchmark harness",
	})
	callCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := cs.CertificatesV1().CertificateSigningRequests().UpdateApproval(callCtx, csr.Name, csr, metav1.UpdateOptions{}); err != nil {
		t.Errorf("approve %s: %v", csr.Name, err)
	}
}

// approverClient is a client with nodeboot-approver's identity and no
// client-side limit.
func (w *approverWorld) approverClient(t *testing.T) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", w.c.approverKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS = -1
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// measureApprover runs nodeboot-approver with the EC2 inventory on and
// measures a burst of the nodes' CSRs with the forgeries among them.
func (w *approverWorld) measureApprover(t *testing.T, nodes, forgers []worldNode, rep *approverBenchReport) approverRun {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	metrics := loopback(port)
	args := []string{"--ec2-inventory=on", approverClusterFlag, "--node-wait=1m", "--log-level=info", "--metrics-bind-address=" + metrics}
	if extra := os.Getenv(EnvBenchApproverArgs); extra != "" {
		args = append(args, strings.Fields(extra)...)
	}
	rep.ApproverArgs = args
	a := w.startApprover(t, "approver-burst", args, w.awsEnv())
	defer a.stop(10 * time.Second)
	before, err := scrapeRequests(t.Context(), metrics)
	if err != nil {
		t.Fatal(err)
	}
	cpu, ec2Before, eksBefore := processCPU(t, a.pid()), w.ec2.Requests(), w.eks.Calls(awstest.ActionDescribeCluster)
	csrs := prepare(t, nodes)
	forged := burstForgeries(t, nodes, forgers)
	w.waitIssued(t)
	rep.Forged = len(forged)
	// The forgeries go out among the honest CSRs, evenly.
	for i, f := range forged {
		at := (i*len(csrs))/len(forged) + i
		csrs = slices.Insert(csrs, at, f)
	}
	run := approverRun{LoadAverage: loadAverage()}
	res := w.burst(t, w.nodes, csrs, nil)
	run.Latency, run.FromSight, run.WallSeconds, run.BurstCPU = summarize(res.latencies), summarize(res.fromSight), res.wall.Seconds(), res.cpu
	run.CPUSeconds = processCPU(t, a.pid()) - cpu
	run.PeakRSSMiB = procStatusMiB(t, a.pid(), "VmHWM")
	w.countRequests(t, metrics, before, ec2Before, &run)
	run.EC2HTTPRequests[awstest.ActionDescribeCluster] = w.eks.Calls(awstest.ActionDescribeCluster) - eksBefore
	run.ForgedDecisions = judgeForgeries(t, forged, res.forged, &run.ForgedApproved)
	return run
}

// judgeForgeries returns each forgery's decision, counting the approved
// ones in approved; a denial for another reason than the expected one
// fails the test.
func judgeForgeries(t *testing.T, forged []burstCSR, decided map[string]certificatesv1.CertificateSigningRequestCondition, approved *int) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range forged {
		cond := decided[f.forged]
		out[f.forged] = fmt.Sprintf("%s %s", cond.Type, cond.Reason)
		if cond.Type == certificatesv1.CertificateApproved {
			*approved++
		} else if cond.Reason != f.wantReason {
			t.Errorf("forgery %q denied with %s (%s), want %s", f.forged, cond.Reason, cond.Message, f.wantReason)
		}
	}
	return out
}

// countRequests fills the approver's API requests and EC2 calls since
// before.
func (w *approverWorld) countRequests(t *testing.T, metrics string, before map[string]float64, ec2Before []url.Values, run *approverRun) {
	t.Helper()
	after, err := scrapeRequests(t.Context(), metrics)
	if err != nil {
		t.Fatal(err)
	}
	run.KubernetesRequests = map[string]float64{}
	sum := 0.0
	for verb, n := range after {
		run.KubernetesRequests[verb] = n - before[verb]
		sum += n - before[verb]
	}
	run.KubernetesRequestsPN = sum / burstNodes
	run.EC2HTTPRequests = map[string]int{}
	for _, r := range w.ec2.Requests()[len(ec2Before):] {
		run.EC2HTTPRequests[r.Get("Action")]++
	}
	families, err := scrapeMetrics(t.Context(), metrics)
	if err != nil {
		t.Fatal(err)
	}
	run.EC2Calls = map[string]float64{}
	if f, ok := families[approver.MetricInventoryCalls]; ok {
		for _, m := range f.GetMetric() {
			key := ""
			for _, l := range m.GetLabel() {
				key += l.GetValue() + " "
			}
			run.EC2Calls[key] = m.GetCounter().GetValue()
		}
	}
	if f, ok := families[approver.MetricInventoryBatch]; ok && len(f.GetMetric()) == 1 {
		h := f.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() > 0 {
			run.InventoryBatchMean = h.GetSampleSum() / float64(h.GetSampleCount())
		}
	}
	run.Inside = insideApprover(families)
}

// approverInside is where the approver's time went during a burst, from
// its metrics (its process served only the burst): how often its
// controller queued a CSR and how long one waited there and took a worker,
// and what its inventory lookups found.
type approverInside struct {
	// QueueAdds counts the controller's queue additions (a CSR decided
	// at the first pass is added once; one that waited for the
	// inventory, twice).
	QueueAdds float64
	// QueueWaitMeanMs and WorkMeanMs are the mean time an item waited in
	// the queue and a worker took on it (a pass ending in a wait
	// included).
	QueueWaitMeanMs, WorkMeanMs float64
	// InventoryLookups counts the lookups by outcome (cache_hit: the
	// answer was at hand; queued: the CSR waited for a call).
	InventoryLookups map[string]float64
	// InventoryWaits counts the CSRs that waited for their Node's
	// inventory answer (parked at their event, or at a worker), and
	// InventoryWaitMeanMs is how long on average.
	InventoryWaits      uint64
	InventoryWaitMeanMs float64
}

func insideApprover(families map[string]*dto.MetricFamily) approverInside {
	in := approverInside{InventoryLookups: map[string]float64{}}
	ofController := func(name string) []*dto.Metric {
		var out []*dto.Metric
		for _, m := range families[name].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && l.GetValue() == approver.ControllerName {
					out = append(out, m)
				}
			}
		}
		return out
	}
	meanMs := func(name string) float64 {
		for _, m := range ofController(name) {
			if h := m.GetHistogram(); h.GetSampleCount() > 0 {
				return 1000 * h.GetSampleSum() / float64(h.GetSampleCount())
			}
		}
		return 0
	}
	for _, m := range ofController("workqueue_adds_total") {
		in.QueueAdds += m.GetCounter().GetValue()
	}
	in.QueueWaitMeanMs, in.WorkMeanMs = meanMs("workqueue_queue_duration_seconds"), meanMs("workqueue_work_duration_seconds")
	if ms := families[approver.MetricInventoryParked].GetMetric(); len(ms) == 1 && ms[0].GetHistogram().GetSampleCount() > 0 {
		h := ms[0].GetHistogram()
		in.InventoryWaits, in.InventoryWaitMeanMs = h.GetSampleCount(), 1000*h.GetSampleSum()/float64(h.GetSampleCount())
	}
	for _, m := range families[approver.MetricInventoryLookups].GetMetric() {
		for _, l := range m.GetLabel() {
			in.InventoryLookups[l.GetValue()] += m.GetCounter().GetValue()
		}
	}
	return in
}

// burst joins the nodes as kubelets do, each with its own credential: each
// registers its Node at a moment spread evenly over burstSpread, and each
// CSR of csrs is created once its node's Node exists, at the node's
// certificate manager's next try (certManagerPhase). It waits until every
// CSR is decided, watching them, then deletes the Nodes, so that the next
// burst joins them again. With approve set, the watch hands each new CSR to
// it (the floor); otherwise an approver must decide them.
func (w *approverWorld) burst(t *testing.T, joining []worldNode, csrs []burstCSR, approve func(context.Context, <-chan *certificatesv1.CertificateSigningRequest)) burstResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), burstGuard)
	defer cancel()
	tr := newBurstTracker(csrs)
	pending := make(chan *certificatesv1.CertificateSigningRequest, len(csrs))
	tr.follow(ctx, t, w.c.admin, pending, approve != nil)
	approved := make(chan struct{})
	go func() {
		defer close(approved)
		if approve != nil {
			approve(ctx, pending)
		}
	}()
	clients, registered := w.kubeletClients(t, joining)
	cpu := w.cpuNow(t)
	start := time.Now()
	for i, n := range joining {
		go w.join(ctx, t, clients[n.name], n, start.Add(burstSpread*time.Duration(i)/time.Duration(len(joining))), registered[n.name])
	}
	for i, c := range tr.csrs {
		go tr.create(ctx, t, clients[c.node.name], c, registered[c.node.name], certManagerPhase(i))
	}
	select {
	case <-tr.done:
	case <-ctx.Done():
		t.Fatalf("burst: %d of %d CSRs created, %d seen, %d decided before the hang guard (%s)",
			tr.createdCount(), len(csrs), tr.appearedCount(), tr.decidedCount(), burstGuard)
	}
	wall := time.Since(start)
	close(pending)
	<-approved // the last approvals' answers may trail the watch
	used := w.cpuNow(t).since(cpu)
	w.unregister(t, joining)
	res := tr.result(wall)
	res.cpu = used
	return res
}

// certManagerPhase is where in its certificate manager's one-second loop
// the kubelet of a burst's i-th CSR stands when its Node registers: spread
// evenly over the period (a golden-ratio sequence), independent of when
// the node registered.
func certManagerPhase(i int) time.Duration {
	_, frac := math.Modf(float64(i) * 0.6180339887498949)
	return time.Duration(frac * float64(certManagerPeriod))
}

// kubeletClients returns a client with each node's credential and, by node
// name, a channel closed once the node's Node is registered.
func (w *approverWorld) kubeletClients(t *testing.T, nodes []worldNode) (map[string]kubernetes.Interface, map[string]chan struct{}) {
	t.Helper()
	clients, registered := map[string]kubernetes.Interface{}, map[string]chan struct{}{}
	for _, n := range nodes {
		cs, err := w.client(n)
		if err != nil {
			t.Fatal(err)
		}
		clients[n.name], registered[n.name] = cs, make(chan struct{})
	}
	return clients, registered
}

// join registers n's Node with its kubelet's client at the moment at, then
// closes registered.
func (w *approverWorld) join(ctx context.Context, t *testing.T, cs kubernetes.Interface, n worldNode, at time.Time, registered chan<- struct{}) {
	defer close(registered)
	select {
	case <-time.After(time.Until(at)):
	case <-ctx.Done():
		return
	}
	if err := w.createNode(ctx, cs, n); err != nil {
		t.Errorf("join %s: %v", n.name, err)
	}
}

// unregister deletes the nodes' Node objects, 32 at a time, and waits
// until the API server no longer lists any.
func (w *approverWorld) unregister(t *testing.T, nodes []worldNode) {
	t.Helper()
	ctx := t.Context()
	err := eachNode(nodes, func(n worldNode) error {
		if err := w.c.admin.CoreV1().Nodes().Delete(ctx, n.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete node %s: %w", n.name, err)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	err = waitUntil(ctx, "the burst's Nodes to be deleted", burstGuard, 200*time.Millisecond, []*process{w.c.apiserver},
		func(ctx context.Context) (bool, string, error) {
			list, err := w.c.admin.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err.Error(), nil
			}
			return len(list.Items) == 0, fmt.Sprintf("%d Nodes left", len(list.Items)), nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

// burstTracker follows one burst through a watch: when each CSR appeared
// (its creation, as anyone watching sees it) and when it was decided.
type burstTracker struct {
	csrs       []burstCSR
	index      map[string]int
	done       chan struct{}
	finishOnce sync.Once

	mu       sync.Mutex
	created  int
	appeared map[string]time.Time
	decided  map[string]time.Time
	conds    map[string]certificatesv1.CertificateSigningRequestCondition
	// createdAt is when each create call returned: the CSR exists.
	createdAt map[string]time.Time
}

// burstRun tells the CSR names of consecutive bursts apart.
var burstRun int

func newBurstTracker(csrs []burstCSR) *burstTracker {
	burstRun++
	tr := &burstTracker{csrs: csrs, index: map[string]int{}, done: make(chan struct{}),
		appeared: map[string]time.Time{}, decided: map[string]time.Time{}, conds: map[string]certificatesv1.CertificateSigningRequestCondition{},
		createdAt: map[string]time.Time{}}
	for i := range csrs {
		c := csrs[i].csr.DeepCopy()
		c.GenerateName, c.Name = "", fmt.Sprintf("burst%d-%04d", burstRun, i)
		tr.csrs[i].csr = c
		tr.index[c.Name] = i
	}
	return tr
}

// create creates c with client once registered is closed (its node's Node
// exists) and phase has passed.
func (tr *burstTracker) create(ctx context.Context, t *testing.T, client kubernetes.Interface, c burstCSR, registered <-chan struct{}, phase time.Duration) {
	select {
	case <-registered:
	case <-ctx.Done():
		return
	}
	select {
	case <-time.After(phase):
	case <-ctx.Done():
		return
	}
	if _, err := client.CertificatesV1().CertificateSigningRequests().Create(ctx, c.csr, metav1.CreateOptions{}); err != nil {
		t.Errorf("create %s (%s): %v", c.csr.Name, c.node.name, err)
		return
	}
	created := time.Now()
	tr.mu.Lock()
	tr.created++
	tr.createdAt[c.csr.Name] = created
	tr.mu.Unlock()
}

func (tr *burstTracker) createdCount() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.created
}

func (tr *burstTracker) appearedCount() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.appeared)
}

// follow records the burst's CSRs from an informer (which lists and
// watches again when the API server ends a watch); with handOff, it passes
// each new undecided one to pending, once.
func (tr *burstTracker) follow(ctx context.Context, t *testing.T, cs kubernetes.Interface, pending chan<- *certificatesv1.CertificateSigningRequest, handOff bool) {
	t.Helper()
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf := factory.Certificates().V1().CertificateSigningRequests().Informer()
	handed := map[string]bool{}
	var handedMu sync.Mutex
	observe := func(obj any) {
		csr, ok := obj.(*certificatesv1.CertificateSigningRequest)
		if !ok {
			return
		}
		if _, ours := tr.index[csr.Name]; !ours {
			return
		}
		finished := tr.record(csr, time.Now())
		handedMu.Lock()
		hand := handOff && !handed[csr.Name] && !decidedCondition(csr)
		handed[csr.Name] = handed[csr.Name] || hand
		handedMu.Unlock()
		if hand {
			pending <- csr
		}
		if finished {
			tr.finish()
		}
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    observe,
		UpdateFunc: func(_, obj any) { observe(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
}

// finish closes done once.
func (tr *burstTracker) finish() {
	tr.finishOnce.Do(func() { close(tr.done) })
}

// record notes what one event shows; it reports whether every CSR is now
// decided.
func (tr *burstTracker) record(csr *certificatesv1.CertificateSigningRequest, now time.Time) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if _, seen := tr.appeared[csr.Name]; !seen {
		tr.appeared[csr.Name] = now
	}
	if _, seen := tr.decided[csr.Name]; !seen {
		for _, c := range csr.Status.Conditions {
			if c.Type == certificatesv1.CertificateApproved || c.Type == certificatesv1.CertificateDenied {
				tr.decided[csr.Name], tr.conds[csr.Name] = now, c
				return len(tr.decided) == len(tr.csrs)
			}
		}
	}
	return false
}

func decidedCondition(csr *certificatesv1.CertificateSigningRequest) bool {
	return slices.ContainsFunc(csr.Status.Conditions, func(c certificatesv1.CertificateSigningRequestCondition) bool {
		return c.Type == certificatesv1.CertificateApproved || c.Type == certificatesv1.CertificateDenied
	})
}

func (tr *burstTracker) decidedCount() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.decided)
}

// result returns the honest CSRs' latencies and the forged ones' decisions.
func (tr *burstTracker) result(wall time.Duration) burstResult {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	res := burstResult{forged: map[string]certificatesv1.CertificateSigningRequestCondition{}, wall: wall}
	for name, i := range tr.index {
		if f := tr.csrs[i].forged; f != "" {
			res.forged[f] = tr.conds[name]
			continue
		}
		res.latencies = append(res.latencies, tr.decided[name].Sub(tr.createdAt[name]))
		res.fromSight = append(res.fromSight, tr.decided[name].Sub(tr.appeared[name]))
	}
	return res
}

// waitIssued waits until the signer has issued every approved CSR, so that
// a burst does not share the API server with the last one's signing.
func (w *approverWorld) waitIssued(t *testing.T) {
	t.Helper()
	err := waitUntil(t.Context(), "the signer to issue every approved CSR", burstGuard, 500*time.Millisecond, []*process{w.c.apiserver},
		func(ctx context.Context) (bool, string, error) {
			list, err := w.c.admin.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err.Error(), nil
			}
			waiting := 0
			for _, csr := range list.Items {
				if len(csr.Status.Certificate) == 0 && slices.ContainsFunc(csr.Status.Conditions, func(c certificatesv1.CertificateSigningRequestCondition) bool {
					return c.Type == certificatesv1.CertificateApproved
				}) {
					waiting++
				}
			}
			return waiting == 0, fmt.Sprintf("%d approved CSRs not issued", waiting), nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

// bestFloor is the floor run with the lowest p99.
func bestFloor(runs []floorRun) floorRun {
	best := runs[0]
	for _, r := range runs[1:] {
		if r.Latency.P99 < best.Latency.P99 {
			best = r
		}
	}
	return best
}
