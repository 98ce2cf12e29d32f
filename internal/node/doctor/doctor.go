package doctor

import (
	"context"
	"crypto/x509"
	"errors"
	"slices"
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
// required; the zero value of any other field means the real thing or
// the default.
type Doctor struct {
	// Root is the directory node paths are read under.
	Root string
	// Sources are the config sources, as for `nodeboot init`.
	Sources []string
	// CheckUserData is `nodeboot config check` for the sources.
	CheckUserData func(ctx context.Context, sources []string) (diag.CheckReport, error)
	// IMDS probes the instance metadata service.
	IMDS interface {
		Probe(ctx context.Context) IMDSEvidence
	}
	// Commands runs host commands (credential plugins, chronyc, systemctl).
	Commands cmdrun.Runner
	// Network resolves and dials; zero means the system's.
	Network Network
	// CRI returns a client for a CRI socket path; nil means package cri.
	CRI func(socket string) CRIClient
	// KubeletVersion returns the kubelet's version.
	KubeletVersion func(ctx context.Context) (string, error)
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
	case CheckRegistered, CheckServingCert:
		return []string{CheckIdentity}
	case CheckVersions:
		return []string{CheckEndpoint}
	}
	return nil
}

// evidence is everything gathered for one run.
type evidence struct {
	facts      KubeletFacts
	userData   UserDataEvidence
	imds       IMDSEvidence
	sync       []SyncState
	endpoint   EndpointEvidence
	credential CredentialEvidence
	identity   IdentityEvidence
	register   RegistrationEvidence
	serving    ServingEvidence
	versions   VersionsEvidence
	runtime    RuntimeEvidence
	role       *awsauth.RoleARN
	roleErr    error
}

// Run runs every check and returns the report; it never fails as a whole.
func (d Doctor) Run(ctx context.Context) Report {
	now := d.clock()
	start := now()
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ev := d.gather(ctx, now)
	at := now()
	rep := Report{Node: ev.facts.NodeName, Started: start.UTC()}
	verdicts := []struct {
		id      string
		verdict func() Result
	}{
		{CheckUserData, func() Result { return userDataVerdict(ev.userData) }},
		{CheckIMDS, func() Result { return imdsVerdict(ev.imds) }},
		{CheckClock, func() Result { return clockVerdict(ClockEvidence{Sample: clockSample(ev), Sync: ev.sync}) }},
		{CheckEndpoint, func() Result { return endpointVerdict(ev.endpoint, at) }},
		{CheckCredential, func() Result { return credentialVerdict(ev.credential, at) }},
		{CheckIdentity, func() Result { return identityVerdict(ev.identity) }},
		{CheckRegistered, func() Result { return registrationVerdict(ev.register, at) }},
		{CheckServingCert, func() Result { return servingVerdict(ev.serving, at) }},
		{CheckVersions, func() Result { return versionsVerdict(ev.versions) }},
		{CheckRuntime, func() Result { return runtimeVerdict(ev.runtime) }},
	}
	for _, v := range verdicts {
		res, ok := skippedFor(v.id, rep.Checks)
		if !ok {
			res = v.verdict()
		}
		res.ID, res.Title = v.id, title(v.id)
		switch res.Verdict {
		case Fail:
			rep.Failed++
		case Warn:
			rep.Warnings++
		}
		rep.Checks = append(rep.Checks, res)
	}
	rep.Duration = Duration(now().Sub(start))
	return rep
}

// skippedFor returns a skipped result when a check id needs failed.
func skippedFor(id string, done []Result) (Result, bool) {
	for _, need := range needs(id) {
		i := slices.IndexFunc(done, func(r Result) bool { return r.ID == need })
		if i >= 0 && (done[i].Verdict == Fail || done[i].Verdict == Skipped) {
			return Result{Verdict: Skipped, Summary: "skipped: the " + title(need) + " check did not pass"}, true
		}
	}
	return Result{}, false
}

// clockSample prefers the API server's Date, then the metadata service's.
func clockSample(ev evidence) ClockSample {
	if ev.endpoint.Clock.Valid() {
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

// gather collects the evidence: independent probes in parallel, then the
// API calls made with the kubelet's credential.
func (d Doctor) gather(ctx context.Context, now func() time.Time) evidence {
	f := Files{Root: d.Root}
	host := ""
	if d.Hostname != nil {
		host, _ = d.Hostname()
	}
	var ev evidence
	ev.facts = ReadKubeletFacts(f, host)
	conn := kubeletConnection(f, ev.facts)
	resolver := kubeapi.Resolver{ReadFile: f.Read, Run: d.Commands, Environ: d.pluginEnv(ev.facts), ExecTimeout: execPluginBound}
	var wg sync.WaitGroup
	wg.Go(func() {
		ev.userData.Sources = d.Sources
		ev.userData.Report, ev.userData.Err = d.CheckUserData(ctx, d.Sources)
	})
	wg.Go(func() { ev.imds = d.IMDS.Probe(ctx) })
	wg.Go(func() { ev.sync = syncStates(ctx, d.Commands) })
	wg.Go(func() {
		ev.endpoint = probeEndpoint(ctx, d.Network, conn, resolver.CAs, now())
		ev.endpoint.Resolver = readResolvConf(f)
	})
	wg.Go(func() {
		ev.credential = CredentialEvidence{Conn: conn}
		if conn.Err == nil {
			ev.credential.Credential, ev.credential.Err = resolver.Credential(ctx, conn.Cluster, conn.User)
		}
	})
	wg.Go(func() { ev.versions.Kubelet, ev.versions.KubeletErr = d.KubeletVersion(ctx) })
	wg.Go(func() { ev.runtime = gatherRuntime(ctx, f, d.Commands, ev.facts, d.criClient(f, ev.facts)) })
	if d.InstanceRole != nil {
		wg.Go(func() { ev.role, ev.roleErr = roleOf(d.InstanceRole(ctx)) })
	}
	wg.Wait()
	d.gatherAPI(ctx, f, &ev)
	return ev
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
	var wg sync.WaitGroup
	wg.Go(func() {
		n, err := client.Node(ctx, k.NodeName)
		ev.register.Node, ev.register.Err = &n, err
	})
	wg.Go(func() {
		csrs, err := client.CSRs(ctx, kubeapi.KubeletServingSigner)
		ev.serving.ListErr = err
		for _, c := range csrs {
			if c.Spec.Username == kubeapi.NodeUserPrefix+k.NodeName {
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

func (d Doctor) criClient(f Files, k KubeletFacts) CRIClient {
	socket := f.Path(strings.TrimPrefix(k.RuntimeEndpoint(), "unix://"))
	if d.CRI != nil {
		return d.CRI(socket)
	}
	return cri.New(socket, criBound)
}
