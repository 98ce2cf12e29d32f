package doctor

import (
	"context"
	"crypto/x509"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/awsauth"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
	"github.com/nodeboot/nodeboot/internal/node/cri"
	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

// Bounds of one run.
const (
	// DefaultTimeout bounds a whole run when Doctor.Timeout is 0.
	DefaultTimeout = time.Minute
	// execPluginBound bounds the credential plugin.
	execPluginBound = 30 * time.Second
	// apiCallBound bounds each API call made with the kubelet's credential.
	apiCallBound = 10 * time.Second
)

// Doctor runs the checks on one node. Every effect it has goes through
// these fields. CheckUserData, IMDS, Commands and KubeletVersion are
// required; the zero value of any other field means the real thing, the
// default, or (AWS, ClusterName) that the checks needing it say so.
type Doctor struct {
	// Root is the directory node paths are read under.
	Root string
	// Sources are the config sources, as for `nodeboot init`.
	Sources []string
	// CheckUserData is `nodeboot config check` for the sources.
	CheckUserData func(ctx context.Context, sources []string) (diag.CheckReport, error)
	// ClusterName returns the EKS cluster's name the sources give.
	ClusterName func(ctx context.Context, sources []string) (string, error)
	// IMDS probes the instance metadata service.
	IMDS interface {
		Probe(ctx context.Context) IMDSEvidence
	}
	// AWS returns a client for the node's region, with its credentials.
	AWS func(ctx context.Context, region string) (AWS, error)
	// Commands runs host commands (credential plugins, chronyc, systemctl).
	Commands cmdrun.Runner
	// Network resolves and dials; zero means the system's.
	Network Network
	// CRI returns a client for a CRI socket path; nil means package cri.
	CRI func(socket string) CRIClient
	// KubeletVersion returns the kubelet's version.
	KubeletVersion func(ctx context.Context) (string, error)
	// Statfs measures a host path's file system; nil means statfs(2).
	Statfs func(path string) (DiskStats, error)
	// IPAMDURL is the VPC CNI's introspection endpoint; "" means
	// DefaultIPAMDURL (asked only with Root "/").
	IPAMDURL string
	// Hostname is the host name (the node name without --hostname-override).
	Hostname func() (string, error)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Timeout bounds the whole run; 0 means DefaultTimeout.
	Timeout time.Duration
	// InstanceRole returns the instance's IAM role from IMDS (it signs
	// the kubelet's EKS token); nil leaves it unknown.
	InstanceRole func(ctx context.Context) (InstanceRole, error)
}

// needs lists the checks whose evidence a check builds on: when one of
// them failed or was skipped, it is skipped.
func needs(id string) []string {
	switch id {
	case CheckIdentity:
		return []string{CheckEndpoint, CheckCredential}
	case CheckRegistered:
		return []string{CheckIdentity}
	case CheckServingCert:
		// A kubelet asks for its serving certificate once it registered.
		return []string{CheckIdentity, CheckRegistered}
	case CheckVersions:
		return []string{CheckEndpoint}
	case CheckKubeletPort:
		// The kubelet serves its port once it has a serving certificate.
		return []string{CheckRuntime, CheckServingCert}
	}
	return nil
}

// evidence is everything gathered for one run.
type evidence struct {
	sources     []string
	facts       KubeletFacts
	userData    UserDataEvidence
	imds        IMDSEvidence
	sync        []SyncState
	disk        DiskEvidence
	endpoint    EndpointEvidence
	credential  CredentialEvidence
	identity    IdentityEvidence
	register    RegistrationEvidence
	serving     ServingEvidence
	versions    VersionsEvidence
	runtime     RuntimeEvidence
	maxPods     MaxPodsEvidence
	port        KubeletPortEvidence
	accelerator AcceleratorEvidence
	cloud       CloudEvidence
	role        *awsauth.RoleARN
	roleErr     error
}

// Run runs every check and returns the report; it never fails as a whole.
func (d Doctor) Run(ctx context.Context) Report {
	now := d.clock()
	start := now()
	ctx, cancel := context.WithTimeout(ctx, d.timeout())
	defer cancel()
	ev := d.gather(ctx)
	at := now()
	rep := Report{Node: ev.facts.NodeName, Started: start.UTC()}
	for _, id := range CheckOrder {
		res, skipped := ev.skipped(id, rep.Checks)
		if !skipped {
			res = ev.judge(id, at)
		}
		rep.add(id, res)
	}
	rep.Duration = Duration(now().Sub(start))
	return rep
}

// add appends a check's result and counts it.
func (r *Report) add(id string, res Result) {
	res.ID, res.Title = id, title(id)
	switch res.Verdict {
	case Fail:
		r.Failed++
	case Warn:
		r.Warnings++
	}
	r.Checks = append(r.Checks, res)
}

// judge runs one check's verdict on the evidence.
func (ev *evidence) judge(id string, at time.Time) Result {
	switch id {
	case CheckIMDS:
		return imdsVerdict(ev.imds)
	case CheckUserData:
		return userDataVerdict(ev.userData, ev.cloud)
	case CheckClock:
		return clockVerdict(ClockEvidence{Sample: clockSample(*ev), Sync: ev.sync})
	case CheckDisk:
		return diskVerdict(ev.disk)
	case CheckEndpoint:
		return endpointVerdict(ev.endpoint, at)
	case CheckCredential:
		return credentialVerdict(ev.credential, at)
	case CheckIdentity:
		return identityVerdict(ev.identity)
	case CheckRegistered:
		return registrationVerdict(ev.register, ev.identity, at)
	case CheckServingCert:
		return servingVerdict(ev.serving, at)
	case CheckVersions:
		return versionsVerdict(ev.versions)
	case CheckRuntime:
		return runtimeVerdict(ev.runtime)
	case CheckMaxPods:
		return maxPodsVerdict(ev.maxPods)
	case CheckKubeletPort:
		return kubeletPortVerdict(ev.port)
	}
	return acceleratorVerdict(ev.accelerator)
}

// skipped returns a skipped result when a check cannot be judged: a check
// it needs did not pass, the user data comes from a metadata service that
// failed, or the node was never configured (nothing downstream is
// invented for it).
func (ev *evidence) skipped(id string, done []Result) (Result, bool) {
	if res, ok := skippedFor(id, done); ok {
		return res, true
	}
	if id == CheckUserData && ev.userData.Err != nil && fromIMDS(ev.sources) && verdictOf(done, CheckIMDS) == Fail {
		return Result{Verdict: Skipped, Summary: "skipped: the user data comes from the instance metadata service, which failed (see instance metadata)"}, true
	}
	return ev.unconfigured(id, done)
}

// unconfigured skips what needs the kubelet's rendered files on a node
// that has none, saying why.
func (ev *evidence) unconfigured(id string, done []Result) (Result, bool) {
	if ev.facts.Configured() {
		return Result{}, false
	}
	userDataFailed := verdictOf(done, CheckUserData) == Fail || verdictOf(done, CheckUserData) == Skipped
	switch {
	case id == CheckEndpoint && userDataFailed, id == CheckCredential && userDataFailed:
		return Result{Verdict: Skipped, Summary: "skipped: the node was never configured (no kubelet files), and its user data failed (see user data)"}, true
	case id == CheckRuntime || id == CheckMaxPods:
		why := "see API endpoint"
		if userDataFailed {
			why = "its user data failed: see user data"
		}
		return Result{Verdict: Skipped, Summary: "skipped: the kubelet was never configured on this node (" + why + ")"}, true
	}
	return Result{}, false
}

// skippedFor returns a skipped result when a check id needs failed.
func skippedFor(id string, done []Result) (Result, bool) {
	for _, need := range needs(id) {
		if v := verdictOf(done, need); v == Fail || v == Skipped {
			return Result{Verdict: Skipped, Summary: "skipped: the " + title(need) + " check did not pass"}, true
		}
	}
	return Result{}, false
}

func verdictOf(done []Result, id string) Verdict {
	for _, r := range done {
		if r.ID == id {
			return r.Verdict
		}
	}
	return ""
}

func fromIMDS(sources []string) bool {
	for _, s := range sources {
		if strings.HasPrefix(s, "imds://") {
			return true
		}
	}
	return false
}

// clockSample is the API server's Date when its chain verified, else the
// metadata service's (link-local, the hypervisor's); never the Date of a
// server that did not prove to be the cluster's.
func clockSample(ev evidence) ClockSample {
	if ev.endpoint.Verified() && ev.endpoint.Clock.Valid() {
		return ev.endpoint.Clock
	}
	return ev.imds.Clock
}

func (d Doctor) clock() func() time.Time {
	if d.Now != nil {
		return d.Now
	}
	return time.Now
}

func (d Doctor) timeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return DefaultTimeout
}

func (d Doctor) hostname() string {
	if d.Hostname == nil {
		return ""
	}
	host, _ := d.Hostname()
	return host
}

// gather collects the evidence: the node's own probes and the AWS calls
// made with the node's credentials in parallel, then the API calls made
// with the kubelet's, then what combines them.
func (d Doctor) gather(ctx context.Context) evidence {
	f := Files{Root: d.Root}
	ev := evidence{sources: d.Sources, facts: ReadKubeletFacts(f, d.hostname())}
	d.gatherLocal(ctx, f, &ev)
	d.gatherAPI(ctx, f, &ev)
	ev.disk = gatherDisk(f, ev.facts, d.statfs(), ev.runtime)
	ev.maxPods = ev.maxPods.withLimits(ev.imds.Doc.InstanceType, ev.cloud)
	ev.port.Cloud = ev.cloud
	ev.accelerator = gatherAccelerators(f, ev.imds.Doc.InstanceType, ev.cloud)
	if ev.register.Err == nil && ev.register.Node != nil {
		ev.accelerator.Node = ev.register.Node
	}
	return ev
}

// gatherLocal runs the independent probes in parallel, and the AWS calls
// as soon as the metadata service and the user data named the region and
// the cluster (beside the credential plugin, often the slowest probe).
func (d Doctor) gatherLocal(ctx context.Context, f Files, ev *evidence) {
	conn := kubeletConnection(f, ev.facts)
	resolver := kubeapi.Resolver{ReadFile: f.Read, Run: d.Commands, Environ: d.pluginEnv(ev.facts), ExecTimeout: execPluginBound}
	var wg sync.WaitGroup
	wg.Go(func() { d.gatherCloudFacts(ctx, ev) })
	wg.Go(func() {
		ev.userData.Sources = d.Sources
		ev.userData.Report, ev.userData.Err = d.CheckUserData(ctx, d.Sources)
	})
	wg.Go(func() { ev.sync = syncStates(ctx, d.Commands) })
	wg.Go(func() {
		ev.endpoint = probeEndpoint(ctx, d.Network, conn, resolver.CAs, d.clock()())
		ev.endpoint.Resolver = readResolvConf(f)
	})
	wg.Go(func() {
		ev.credential = CredentialEvidence{Conn: conn}
		if conn.Err == nil {
			ev.credential.Credential, ev.credential.Err = resolver.Credential(ctx, conn.Cluster, conn.User)
		}
	})
	wg.Go(func() { ev.versions.Kubelet, ev.versions.KubeletErr = d.KubeletVersion(ctx) })
	wg.Go(func() {
		ev.runtime = gatherRuntime(ctx, f, d.Commands, ev.facts, d.criClient(f, ev.facts), f.Path(strings.TrimPrefix(ev.facts.RuntimeEndpoint(), "unix://")))
	})
	wg.Go(func() { ev.maxPods = d.gatherMaxPods(ctx, f, ev.facts) })
	wg.Go(func() { ev.port = gatherKubeletPort(ctx, d.Network, ev.facts) })
	if d.InstanceRole != nil {
		wg.Go(func() { ev.role, ev.roleErr = roleOf(d.InstanceRole(ctx)) })
	}
	wg.Wait()
	ev.credential.AWSCLI = awsCLICalls(conn.User.Exec, ev.facts.Env(), ev.imds.Doc.Region)
}

// gatherCloudFacts probes the metadata service and reads the cluster's
// name, then asks AWS.
func (d Doctor) gatherCloudFacts(ctx context.Context, ev *evidence) {
	cluster, clusterErr := "", errors.New("no way to read the cluster name")
	var wg sync.WaitGroup
	wg.Go(func() { ev.imds = d.IMDS.Probe(ctx) })
	if d.ClusterName != nil {
		wg.Go(func() { cluster, clusterErr = d.ClusterName(ctx, d.Sources) })
	}
	wg.Wait()
	ev.cloud = d.gatherCloud(ctx, ev.imds.Doc, cluster, clusterErr)
}

// gatherAPI asks the API server, with the kubelet's credential, who it
// is, for its Node and for its serving CSRs.
func (d Doctor) gatherAPI(ctx context.Context, f Files, ev *evidence) {
	k, ep, cred := ev.facts, ev.endpoint, ev.credential
	ev.identity = IdentityEvidence{NodeName: k.NodeName, NameSource: k.NameSource, Bootstrap: ep.Conn.Bootstrap,
		Role: ev.role, RoleErr: ev.roleErr, InstanceID: ev.imds.Doc.InstanceID}
	ev.identity.Cluster, ev.identity.Region, ev.identity.EKSToken = eksTokenArgs(ep.Conn.User.Exec)
	ev.register = RegistrationEvidence{NodeName: k.NodeName, ProviderID: k.Config.ProviderID}
	ev.serving = ServingEvidence{NodeName: k.NodeName, NodeIP: k.NodeIP, CertPath: k.ServingCertPath(),
		TLSBootstrap: k.Config.ServerTLSBootstrap != nil && *k.Config.ServerTLSBootstrap}
	ev.serving.Cert, ev.serving.CertErr = readCert(f, ev.serving.CertPath)
	ev.versions.Server = ep.Version
	if !ep.Verified() {
		ev.versions.ServerErr = errors.New("the API server was not reached")
		return
	}
	client, err := kubeapi.New(kubeapi.Options{Server: ep.Conn.Cluster.Server, TLSServerName: ep.Conn.Cluster.TLSServerName,
		CAs: ep.CAs, Credential: cred.Credential, Proxy: ep.Conn.Proxy, Timeout: apiCallBound})
	if err != nil || cred.Err != nil {
		ev.identity.Err = errors.Join(err, cred.Err)
		return
	}
	if ev.versions.Server == nil {
		v, _, err := client.Version(ctx)
		ev.versions.Server, ev.versions.ServerErr = &v, err
		if err != nil {
			ev.versions.Server = nil
		}
	}
	ev.identity.User, ev.identity.Err = client.SelfSubjectReview(ctx)
	if ev.identity.Err != nil && !kubeapi.IsStatus(ev.identity.Err, 404) {
		return
	}
	d.gatherNode(ctx, client, ev)
}

// gatherNode reads the kubelet's Node and its serving CSRs.
func (d Doctor) gatherNode(ctx context.Context, client *kubeapi.Client, ev *evidence) {
	name := ev.facts.NodeName
	var wg sync.WaitGroup
	wg.Go(func() {
		n, err := client.Node(ctx, name)
		ev.register.Node, ev.register.Err = &n, err
	})
	wg.Go(func() {
		csrs, err := client.CSRs(ctx, kubeapi.KubeletServingSigner)
		ev.serving.ListErr = err
		for _, c := range csrs {
			if c.Spec.Username == kubeapi.NodeUserPrefix+name {
				ev.serving.CSRs = append(ev.serving.CSRs, c)
			}
		}
	})
	wg.Wait()
}

func readCert(f Files, path string) (*x509.Certificate, error) {
	data, err := f.Read(path)
	if err != nil {
		return nil, err
	}
	certs, err := kubeapi.ParseCertificates(data)
	if err != nil {
		return nil, err
	}
	return certs[0], nil
}

// pluginEnv is the credential plugin's environment: exactly the
// kubelet's (see KubeletFacts.Env), never the doctor's own.
func (d Doctor) pluginEnv(k KubeletFacts) []string {
	env := k.Env()
	out := make([]string, 0, len(env))
	for _, name := range sortedKeys(env) {
		out = append(out, name+"="+env[name])
	}
	return out
}

func (d Doctor) statfs() func(string) (DiskStats, error) {
	if d.Statfs != nil {
		return d.Statfs
	}
	return statfs
}

func (d Doctor) criClient(f Files, k KubeletFacts) CRIClient {
	socket := f.Path(strings.TrimPrefix(k.RuntimeEndpoint(), "unix://"))
	if d.CRI != nil {
		return d.CRI(socket)
	}
	return cri.New(socket, criBound)
}
