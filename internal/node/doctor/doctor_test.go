package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
	"github.com/nodeboot/nodeboot/internal/node/cri"
	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
	"github.com/nodeboot/nodeboot/internal/testing/pkitest"
)

const (
	testNode  = "ip-127-0-0-1.us-west-2.compute.internal"
	testToken = "k8s-aws-v1.dGVzdC10b2tlbi1mb3ItdGhlLWRvY3Rvcg"
)

// fakeNode is a node root plus the API server it joins.
type fakeNode struct {
	root    string
	ca      *pkitest.CA
	api     string
	doctor  Doctor
	plugin  cmdrun.Result
	created time.Time
}

// newFakeNode writes a joined node's files and starts its API server; the
// kubelet authenticates with an exec plugin that prints testToken.
func newFakeNode(t *testing.T) *fakeNode {
	t.Helper()
	n := &fakeNode{root: t.TempDir(), ca: pkitest.NewCA(t, "cluster-ca"), created: time.Now().Add(-time.Minute)}
	srv, _ := tlsAPIServer(t, n.ca, n.handler())
	n.api = srv.URL
	serving := n.ca.Issue(t, pkitest.Spec{CN: "system:node:" + testNode, DNS: []string{testNode}, IPs: []string{"127.0.0.1"}})
	kubeletPort := listen(t) // the kubelet's serving port
	for p, data := range map[string]string{
		"/etc/eks/kubelet/environment":                    "NODEADM_KUBELET_ARGS=--node-ip=127.0.0.1 --hostname-override=" + testNode + " --config=/etc/kubernetes/kubelet/config.json --kubeconfig=/var/lib/kubelet/kubeconfig\n",
		"/etc/kubernetes/kubelet/config.json":             `{"cgroupDriver":"cgroupfs","serverTLSBootstrap":true,"providerID":"aws:///us-west-2a/i-1","maxPods":11,"port":` + kubeletPort + `}`,
		"/etc/kubernetes/pki/ca.crt":                      string(n.ca.PEM),
		"/var/lib/kubelet/pki/kubelet-server-current.pem": string(serving.CertPEM) + string(serving.KeyPEM),
		"/etc/containerd/config.toml":                     "version = 2\n",
		"/proc/77/comm":                                   "kubelet\n",
		"/var/lib/kubelet/kubeconfig": `apiVersion: v1
kind: Config
clusters:
- name: kubernetes
  cluster:
    certificate-authority: /etc/kubernetes/pki/ca.crt
    server: ` + srv.URL + `
contexts:
- name: kubelet
  context: {cluster: kubernetes, user: kubelet}
current-context: kubelet
users:
- name: kubelet
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: [eks, get-token, --cluster-name, c, --region, us-west-2]
`,
	} {
		write(t, n.root, p, data)
	}
	n.plugin = cmdrun.Result{Stdout: []byte(`{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"` + testToken + `"}}`)}
	imds := imdsServer(t, false)
	n.doctor = Doctor{
		Root:    n.root,
		Sources: []string{"imds://user-data"},
		CheckUserData: func(context.Context, []string) (diag.CheckReport, error) {
			return diag.CheckReport{Valid: true, Documents: []diag.DocumentInfo{{Source: diag.Source{URI: "imds://user-data", Format: "NodeConfig"}, Applied: true}}}, nil
		},
		IMDS:    IMDSProbe{Endpoint: imds},
		Network: Network{},
		CRI: func(string) CRIClient {
			return fakeCRI{v: cri.Version{APIVersion: "v1", RuntimeName: "containerd", RuntimeVersion: "1.7.27"}}
		},
		KubeletVersion: func(context.Context) (string, error) { return "v1.33.1", nil },
		Statfs:         func(string) (DiskStats, error) { return healthyDisk, nil },
		Hostname:       func() (string, error) { return "ignored", nil },
	}
	n.doctor.Commands = runnerFunc(func(c cmdrun.Cmd) cmdrun.Result {
		if c.Name == "aws" {
			return n.plugin
		}
		return cmdrun.Result{ExitCode: -1, Err: notInstalled(c.Name)}
	})
	return n
}

// healthyDisk is a file system with room to spare.
var healthyDisk = DiskStats{Device: 1, Total: 100 << 30, Avail: 60 << 30, Inodes: 1 << 20, InodesFree: 1 << 19}

// listen accepts connections on a loopback port until the test ends, and
// returns the port.
func listen(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

type runnerFunc func(cmdrun.Cmd) cmdrun.Result

func (f runnerFunc) Run(_ context.Context, c cmdrun.Cmd) cmdrun.Result { return f(c) }

func (n *fakeNode) handler() http.Handler {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, code int, v any) {
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	authed := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+testToken {
				reply(w, 401, kubeapi.Status{Message: "Unauthorized", Reason: "Unauthorized", Code: 401})
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, kubeapi.VersionInfo{Major: "1", Minor: "34", GitVersion: "v1.34.4"})
	})
	mux.HandleFunc("POST /apis/authentication.k8s.io/v1/selfsubjectreviews", authed(func(w http.ResponseWriter, r *http.Request) {
		reply(w, 201, kubeapi.SelfSubjectReview{Status: kubeapi.SelfSubjectReviewStatus{UserInfo: kubeapi.UserInfo{Username: "system:node:" + testNode, Groups: []string{"system:nodes", "system:authenticated"}}}})
	}))
	mux.HandleFunc("GET /api/v1/nodes/{name}", authed(func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, kubeapi.Node{Metadata: kubeapi.ObjectMeta{Name: r.PathValue("name"), CreationTimestamp: n.created}, Spec: kubeapi.NodeSpec{ProviderID: "aws:///us-west-2a/i-1"},
			Status: kubeapi.NodeStatus{Conditions: []kubeapi.NodeCondition{{Type: "Ready", Status: "True", LastTransitionTime: n.created}}}})
	}))
	mux.HandleFunc("GET /apis/certificates.k8s.io/v1/certificatesigningrequests", authed(func(w http.ResponseWriter, r *http.Request) {
		csr := kubeapi.CertificateSigningRequest{Metadata: kubeapi.ObjectMeta{Name: "csr-1", CreationTimestamp: n.created},
			Spec:   kubeapi.CertificateSigningRequestSpec{Username: "system:node:" + testNode, SignerName: kubeapi.KubeletServingSigner},
			Status: kubeapi.CertificateSigningRequestStatus{Conditions: []kubeapi.CSRCondition{{Type: "Approved", Status: "True"}}, Certificate: []byte("x")}}
		reply(w, 200, kubeapi.CertificateSigningRequestList{Items: []kubeapi.CertificateSigningRequest{csr}})
	}))
	return mux
}

func verdicts(r Report) map[string]Verdict {
	out := map[string]Verdict{}
	for _, c := range r.Checks {
		out[c.ID] = c.Verdict
	}
	return out
}

func TestDoctorHealthyNode(t *testing.T) {
	n := newFakeNode(t)
	rep := n.doctor.Run(context.Background())
	for _, c := range rep.Checks {
		if c.Verdict != OK {
			t.Errorf("%s: %s: %s\n%s", c.ID, c.Verdict, c.Summary, strings.Join(c.Evidence, "\n"))
		}
	}
	if len(rep.Checks) != len(CheckOrder) || rep.Node != testNode || !rep.Healthy() || rep.Failed+rep.Warnings != 0 {
		t.Errorf("report %+v", rep)
	}
	text := string(rep.Text())
	if !strings.Contains(text, fmt.Sprintf("all %d checks ok", len(CheckOrder))) || strings.Contains(text, testToken) {
		t.Errorf("text report:\n%s", text)
	}
}

func TestDoctorSkipsWhatDependsOnAFailure(t *testing.T) {
	t.Run("wrong CA", func(t *testing.T) {
		n := newFakeNode(t)
		write(t, n.root, "/etc/kubernetes/pki/ca.crt", string(pkitest.NewCA(t, "wrong-ca").PEM))
		got := verdicts(n.doctor.Run(context.Background()))
		want := map[string]Verdict{CheckUserData: OK, CheckIMDS: OK, CheckClock: OK, CheckEndpoint: Fail, CheckCredential: OK,
			CheckIdentity: Skipped, CheckRegistered: Skipped, CheckServingCert: Skipped, CheckVersions: Skipped, CheckRuntime: OK}
		assertVerdicts(t, got, want)
	})
	t.Run("credential rejected", func(t *testing.T) {
		n := newFakeNode(t)
		n.plugin = cmdrun.Result{Stdout: []byte(`{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"k8s-aws-v1.unmapped"}}`)}
		rep := n.doctor.Run(context.Background())
		assertVerdicts(t, verdicts(rep), map[string]Verdict{CheckUserData: OK, CheckIMDS: OK, CheckClock: OK, CheckEndpoint: OK, CheckCredential: OK,
			CheckIdentity: Fail, CheckRegistered: Skipped, CheckServingCert: Skipped, CheckVersions: OK, CheckRuntime: OK})
		if id, _ := rep.Check(CheckIdentity); !strings.Contains(id.Summary, "401") {
			t.Errorf("identity %+v", id)
		}
	})
	t.Run("no kubeconfig", func(t *testing.T) {
		n := newFakeNode(t)
		n.doctor.Root = t.TempDir()
		rep := n.doctor.Run(context.Background())
		got := verdicts(rep)
		// Never configured: one failure at the cause, nothing invented downstream.
		if got[CheckEndpoint] != Fail || got[CheckCredential] != Skipped || got[CheckIdentity] != Skipped || got[CheckRuntime] != Skipped ||
			got[CheckMaxPods] != Skipped || rep.Failed != 1 {
			t.Errorf("verdicts %v", got)
		}
		if c, _ := rep.Check(CheckRuntime); !strings.Contains(c.Summary, "never configured") {
			t.Errorf("runtime: %s", c.Summary)
		}
	})
}

func assertVerdicts(t *testing.T, got, want map[string]Verdict) {
	t.Helper()
	for id, v := range want {
		if got[id] != v {
			t.Errorf("%s: %s, want %s", id, got[id], v)
		}
	}
}

func TestReportRendering(t *testing.T) {
	rep := Report{Node: "n1", Duration: Duration(420 * time.Millisecond), Failed: 1, Checks: []Result{
		{ID: CheckEndpoint, Title: "API endpoint", Verdict: Fail, Summary: "TCP connect to 10.0.0.1:6443 refused", Evidence: []string{"line one\nline two"}, Action: "Fix it."},
		{ID: CheckCredential, Title: "credential", Verdict: OK, Summary: "fine", Evidence: []string{"stderr: token: abcdef.0123456789abcdef"}},
	}}
	text := string(rep.Text())
	for _, want := range []string{"node n1: 1 failed, 0 warning(s) of 2 checks (420ms)", "FAIL  API endpoint", "line two", "what to do: Fix it.", "token: REDACTED"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js, &back); err != nil || back.Duration != rep.Duration || strings.Contains(string(js), "0123456789abcdef") {
		t.Errorf("JSON %s: %v", js, err)
	}
}

func TestNodeRegistered(t *testing.T) {
	n := newFakeNode(t)
	if ok, err := n.doctor.NodeRegistered(context.Background()); !ok || err != nil {
		t.Errorf("NodeRegistered = %v, %v", ok, err)
	}
	n.plugin = cmdrun.Result{Stdout: []byte(`{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"other"}}`)}
	if ok, err := n.doctor.NodeRegistered(context.Background()); ok || !kubeapi.IsStatus(err, 401) {
		t.Errorf("NodeRegistered with a rejected token = %v, %v", ok, err)
	}
	n.doctor.Root = t.TempDir()
	if ok, err := n.doctor.NodeRegistered(context.Background()); ok || err == nil {
		t.Errorf("NodeRegistered without files = %v, %v", ok, err)
	}
}
