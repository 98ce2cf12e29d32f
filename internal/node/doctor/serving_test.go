package doctor

import (
	"crypto/x509"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
	"github.com/nodeboot/nodeboot/internal/testing/pkitest"
)

func TestServingVerdict(t *testing.T) {
	now := time.Now()
	const name, ip = "ip-10-0-0-5.us-west-2.compute.internal", "10.0.0.5"
	ca := pkitest.NewCA(t, "cluster-ca")
	good := ca.Issue(t, pkitest.Spec{CN: "system:node:" + name, DNS: []string{name}, IPs: []string{ip}}).Cert
	otherIP := ca.Issue(t, pkitest.Spec{CN: "system:node:" + name, DNS: []string{name}, IPs: []string{"10.0.0.9"}}).Cert
	expired := ca.Issue(t, pkitest.Spec{CN: "system:node:" + name, DNS: []string{name}, IPs: []string{ip}, NotBefore: now.Add(-72 * time.Hour), NotAfter: now.Add(-time.Hour)}).Cert
	csr := func(n string, ago time.Duration, issued bool, conds ...kubeapi.CSRCondition) kubeapi.CertificateSigningRequest {
		c := kubeapi.CertificateSigningRequest{Metadata: kubeapi.ObjectMeta{Name: n, CreationTimestamp: now.Add(-ago)},
			Spec: kubeapi.CertificateSigningRequestSpec{Username: "system:node:" + name, SignerName: kubeapi.KubeletServingSigner}}
		c.Status.Conditions = conds
		if issued {
			c.Status.Certificate = []byte("cert")
		}
		return c
	}
	approved := kubeapi.CSRCondition{Type: "Approved", Status: "True", Reason: "AutoApproved", Message: "nodeboot-approver", LastUpdateTime: now.Add(-time.Minute)}
	denied := kubeapi.CSRCondition{Type: "Denied", Status: "True", Reason: "SANNotOwned", Message: "IP 10.0.0.9 is not an address of the node"}
	failed := kubeapi.CSRCondition{Type: "Failed", Status: "True", Reason: "SignerError", Message: "no signer"}
	noFile := &fs.PathError{Op: "open", Path: "/var/lib/kubelet/pki/kubelet-server-current.pem", Err: fs.ErrNotExist}
	ev := func(cert *x509.Certificate, certErr error, csrs ...kubeapi.CertificateSigningRequest) ServingEvidence {
		return ServingEvidence{NodeName: name, NodeIP: ip, TLSBootstrap: true, CSRs: csrs, CertPath: "/var/lib/kubelet/pki/kubelet-server-current.pem", Cert: cert, CertErr: certErr}
	}
	checkVerdicts(t, CheckServingCert, []verdictCase{
		{name: "issued and on disk", got: servingVerdict(ev(good, nil, csr("csr-old", time.Hour, true, approved), csr("csr-new", time.Minute, true, approved)), now),
			verdict: OK, summary: []string{"valid until", name, ip}, evidence: []string{"csr-new (of 2)", "issued"}},
		{name: "pending: no approver", got: servingVerdict(ev(nil, noFile, csr("csr-p", 90*time.Second, false)), now),
			verdict: Fail, summary: []string{"csr-p has been pending for 1m30s", "no approver"}},
		{name: "approved but not issued", got: servingVerdict(ev(nil, noFile, csr("csr-a", 2*time.Minute, false, approved)), now),
			verdict: Fail, summary: []string{"approved 1m0s ago but not issued"}},
		{name: "denied with the approver's reason", got: servingVerdict(ev(nil, noFile, csr("csr-d", time.Minute, false, denied)), now),
			verdict: Fail, summary: []string{"csr-d was denied", "SANNotOwned", "10.0.0.9 is not an address"}},
		{name: "failed", got: servingVerdict(ev(nil, noFile, csr("csr-f", time.Minute, false, approved, failed)), now),
			verdict: Fail, summary: []string{"csr-f failed", "SignerError"}},
		{name: "renewal pending, current certificate still good", got: servingVerdict(ev(good, nil, csr("csr-r", time.Minute, false)), now),
			verdict: Warn, summary: []string{"pending", "stays valid until"}},
		{name: "no CSR, no certificate", got: servingVerdict(ev(nil, noFile), now),
			verdict: Fail, summary: []string{"no kubelet-serving CSR"}},
		{name: "issued, not on disk yet", got: servingVerdict(ev(nil, noFile, csr("csr-i", time.Second, true, approved)), now),
			verdict: Warn, summary: []string{"cannot be read"}},
		{name: "certificate for another IP", got: servingVerdict(ev(otherIP, nil, csr("csr-i", time.Hour, true, approved)), now),
			verdict: Fail, summary: []string{"does not name " + ip}},
		{name: "expired certificate", got: servingVerdict(ev(expired, nil), now),
			verdict: Fail, summary: []string{"not valid now"}},
		{name: "CSRs not listable, certificate fine", got: servingVerdict(ServingEvidence{NodeName: name, NodeIP: ip, TLSBootstrap: true, Cert: good,
			ListErr: errors.New("403 Forbidden")}, now), verdict: OK, evidence: []string{"cannot list"}},
		{name: "serverTLSBootstrap off", got: servingVerdict(ServingEvidence{NodeName: name}, now), verdict: Warn, summary: []string{"self-signed"}},
	})
}
