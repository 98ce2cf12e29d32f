package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

// maxKubeletSkew is how many minor versions a kubelet may be older than
// the API server (Kubernetes version skew policy since 1.28).
const maxKubeletSkew = 3

// VersionsEvidence is the kubelet's version and the API server's.
type VersionsEvidence struct {
	Kubelet    string
	KubeletErr error
	Server     *kubeapi.VersionInfo
	ServerErr  error
}

// minorOf returns major and minor of "v1.34.4", "1.34", "v1.34.4-eks-1a2b".
func minorOf(v string) (int, int, bool) {
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(v), "v"), ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return major, minor, err1 == nil && err2 == nil
}

// versionsVerdict checks the skew: the kubelet at most 3 minors older than
// the API server, never newer.
func versionsVerdict(ev VersionsEvidence) Result {
	r := Result{ID: CheckVersions}
	switch {
	case ev.KubeletErr != nil:
		r.Verdict, r.Summary = Warn, "the kubelet's version is unknown: "+ev.KubeletErr.Error()
		r.Action = "Check that /usr/bin/kubelet is installed (or /etc/eks/kubelet-version.txt is present)."
		return r
	case ev.Server == nil:
		r.Verdict, r.Summary = Warn, fmt.Sprintf("kubelet %s; the API server's version is unknown: %v", ev.Kubelet, ev.ServerErr)
		r.Action = "The API server did not tell its version (GET /version); check that anonymous /version is allowed or that the identity check passes."
		return r
	}
	server := ev.Server.GitVersion
	r.Evidence = []string{"kubelet " + ev.Kubelet, "API server " + server}
	km, kn, ok1 := minorOf(ev.Kubelet)
	sm, sn, ok2 := minorOf(server)
	if !ok1 || !ok2 {
		r.Verdict, r.Summary = Warn, fmt.Sprintf("cannot compare kubelet %s with API server %s", ev.Kubelet, server)
		r.Action = "Compare the versions by hand: the kubelet may be up to 3 minor versions older than the API server, never newer."
		return r
	}
	skew := (sm-km)*1000 + sn - kn
	switch {
	case skew < 0:
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("kubelet %s is newer than the API server %s", ev.Kubelet, server)
		r.Action = "Use an AMI whose kubelet is not newer than the control plane, or upgrade the control plane first."
	case skew > maxKubeletSkew:
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("kubelet %s is %d minor versions older than the API server %s (at most %d are supported)", ev.Kubelet, skew, server, maxKubeletSkew)
		r.Action = "Use an AMI with a newer kubelet (within 3 minor versions of the control plane)."
	default:
		r.Verdict = OK
		r.Summary = fmt.Sprintf("kubelet %s, API server %s (%d minor version(s) apart, at most %d allowed)", ev.Kubelet, server, skew, maxKubeletSkew)
	}
	return r
}
