package doctor

import (
	"crypto/x509"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

// ServingEvidence is the node's latest kubelet-serving CSR and the serving
// certificate on disk.
type ServingEvidence struct {
	NodeName string
	NodeIP   string
	// TLSBootstrap is the kubelet's serverTLSBootstrap.
	TLSBootstrap bool
	// CSRs are this node's kubelet-serving CSRs (any order).
	CSRs    []kubeapi.CertificateSigningRequest
	ListErr error
	// CertPath is the kubelet's serving certificate file.
	CertPath string
	Cert     *x509.Certificate
	CertErr  error
}

// csrState is a CSR's state in the order the API moves it.
type csrState string

const (
	csrPending            csrState = "pending"
	csrApprovedNotIssued  csrState = "approved but not issued"
	csrDenied             csrState = "denied"
	csrFailed             csrState = "failed"
	csrIssued             csrState = "issued"
	conditionApproved              = "Approved"
	conditionDenied                = "Denied"
	conditionFailed                = "Failed"
	servingCertificateUse          = "kubectl logs, exec and port-forward on this node fail until it is issued"
)

func stateOf(c kubeapi.CertificateSigningRequest) (csrState, kubeapi.CSRCondition) {
	if d, ok := c.Condition(conditionDenied); ok {
		return csrDenied, d
	}
	if f, ok := c.Condition(conditionFailed); ok {
		return csrFailed, f
	}
	a, approved := c.Condition(conditionApproved)
	switch {
	case approved && len(c.Status.Certificate) > 0:
		return csrIssued, a
	case approved:
		return csrApprovedNotIssued, a
	}
	return csrPending, kubeapi.CSRCondition{}
}

// latestCSR returns the newest CSR.
func latestCSR(csrs []kubeapi.CertificateSigningRequest) (kubeapi.CertificateSigningRequest, bool) {
	if len(csrs) == 0 {
		return kubeapi.CertificateSigningRequest{}, false
	}
	return slices.MaxFunc(csrs, func(a, b kubeapi.CertificateSigningRequest) int {
		return a.Metadata.CreationTimestamp.Compare(b.Metadata.CreationTimestamp)
	}), true
}

// servingVerdict judges the serving certificate: the latest CSR's state,
// then the certificate on disk.
func servingVerdict(ev ServingEvidence, now time.Time) Result {
	r := Result{ID: CheckServingCert}
	if !ev.TLSBootstrap {
		r.Verdict = Warn
		r.Summary = "serverTLSBootstrap is off: the kubelet serves a self-signed certificate the API server cannot verify"
		r.Action = "Set serverTLSBootstrap: true in the kubelet config (nodeboot's default) and run a kubelet-serving CSR approver."
		return r
	}
	if ev.ListErr != nil {
		r.Evidence = append(r.Evidence, "cannot list kubelet-serving CSRs with the kubelet's credential: "+ev.ListErr.Error())
	}
	csr, has := latestCSR(ev.CSRs)
	if has {
		state, cond := stateOf(csr)
		line := fmt.Sprintf("latest kubelet-serving CSR %s (of %d) from %s, created %s: %s", csr.Metadata.Name, len(ev.CSRs),
			csr.Spec.Username, age(now, csr.Metadata.CreationTimestamp), state)
		if cond.Reason != "" {
			line += fmt.Sprintf(" (%s: %s)", cond.Reason, cond.Message)
		}
		r.Evidence = append(r.Evidence, line)
		if res, done := csrFailure(r, csr, state, cond, now); done {
			if current := diskCertVerdict(r, ev, true, now); current.Verdict == OK {
				// A renewal is stuck, but the current certificate works.
				res.Verdict = Warn
				res.Summary += fmt.Sprintf("; the current certificate stays valid until %s", ev.Cert.NotAfter.UTC().Format(time.RFC3339))
				res.Evidence = current.Evidence
			}
			return res
		}
	}
	return diskCertVerdict(r, ev, has, now)
}

func csrFailure(r Result, csr kubeapi.CertificateSigningRequest, state csrState, cond kubeapi.CSRCondition, now time.Time) (Result, bool) {
	r.Verdict = Fail
	name := csr.Metadata.Name
	switch state {
	case csrPending:
		r.Summary = fmt.Sprintf("CSR %s has been pending for %s: no approver has decided it (%s)", name, strings.TrimSuffix(age(now, csr.Metadata.CreationTimestamp), " ago"), servingCertificateUse)
		r.Action = fmt.Sprintf("Run a kubelet-serving CSR approver (nodeboot-approver) and check its log, or approve it by hand after checking its names: kubectl certificate approve %s.", name)
	case csrApprovedNotIssued:
		r.Summary = fmt.Sprintf("CSR %s was approved %s but not issued: the signer did not sign it", name, age(now, cond.LastUpdateTime))
		r.Action = "Check the kubelet-serving signer (kube-controller-manager --cluster-signing-* flags); on EKS 1.24 and later a certificate with a name or IP that EKS cannot verify is never issued."
	case csrDenied:
		r.Summary = fmt.Sprintf("CSR %s was denied: %s: %s", name, cond.Reason, cond.Message)
		r.Action = "Fix what the denial names (the node's DNS names and IPs must be its own and allowed by the approver's policy); the kubelet asks again with a new CSR."
	case csrFailed:
		r.Summary = fmt.Sprintf("CSR %s failed: %s: %s", name, cond.Reason, cond.Message)
		r.Action = "Read the signer's reason; the kubelet asks again with a new CSR."
	default:
		return r, false
	}
	return r, true
}

// diskCertVerdict checks the certificate the kubelet serves with.
func diskCertVerdict(r Result, ev ServingEvidence, hasCSR bool, now time.Time) Result {
	switch {
	case ev.CertErr != nil && !hasCSR:
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("no kubelet-serving CSR from %s%s and no serving certificate on disk", kubeapi.NodeUserPrefix, ev.NodeName)
		r.Action = "The kubelet has not asked for a serving certificate yet: it does so once it reaches the API server; read its errors (runtime check)."
		return r
	case ev.CertErr != nil:
		r.Verdict = Warn
		r.Summary = fmt.Sprintf("the CSR was issued but %s cannot be read: %v", ev.CertPath, ev.CertErr)
		r.Action = "The kubelet writes the certificate moments after issuance; if it never does, restart the kubelet."
		return r
	}
	c := ev.Cert
	r.Evidence = append(r.Evidence, fmt.Sprintf("%s: %s, issued by %s, valid %s to %s, names %s", ev.CertPath, c.Subject, c.Issuer,
		c.NotBefore.UTC().Format(time.RFC3339), c.NotAfter.UTC().Format(time.RFC3339), strings.Join(certNames(c), ", ")))
	var missing []string
	if ev.NodeName != "" && !slices.Contains(c.DNSNames, ev.NodeName) {
		missing = append(missing, ev.NodeName)
	}
	if ip := net.ParseIP(ev.NodeIP); ip != nil && !slices.ContainsFunc(c.IPAddresses, ip.Equal) {
		missing = append(missing, ev.NodeIP)
	}
	switch {
	case now.Before(c.NotBefore) || now.After(c.NotAfter):
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("the serving certificate is not valid now (%s to %s)", c.NotBefore.UTC().Format(time.RFC3339), c.NotAfter.UTC().Format(time.RFC3339))
		r.Action = "Fix the clock if it is off; otherwise the kubelet failed to rotate it: check its newest CSR and restart the kubelet."
	case len(missing) > 0:
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("the serving certificate does not name %s", strings.Join(missing, " or "))
		r.Action = "The node's name or IP changed after the certificate was issued: delete the certificate file and restart the kubelet so it asks for a new one."
	default:
		r.Verdict = OK
		r.Summary = fmt.Sprintf("serving certificate valid until %s for %s", c.NotAfter.UTC().Format(time.RFC3339), strings.Join(certNames(c), ", "))
	}
	return r
}
