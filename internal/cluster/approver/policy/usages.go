package policy

import (
	"slices"

	certificatesv1 "k8s.io/api/certificates/v1"
)

// allowedUsageSets are the exact usage sets of a kubelet serving
// certificate: ECDSA keys need no key encipherment, RSA keys ask for it.
var allowedUsageSets = [][]certificatesv1.KeyUsage{
	{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth},
	{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageServerAuth},
}

var requiredUsages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth}

var optionalUsages = []certificatesv1.KeyUsage{certificatesv1.UsageKeyEncipherment}

func checkUsages(c *candidate) *Decision {
	return usagesDecision(c.csr.Spec.Usages)
}

// usagesDecision returns nil when usages is one of allowedUsageSets in any
// order, and a denial naming the first problem otherwise.
func usagesDecision(usages []certificatesv1.KeyUsage) *Decision {
	seen := make(map[certificatesv1.KeyUsage]bool, len(usages))
	for _, u := range usages {
		if seen[u] {
			d := deny(ReasonDuplicateUsage, "usage %q is listed more than once in %q", u, usages)
			return &d
		}
		seen[u] = true
	}
	for _, u := range usages {
		if !slices.Contains(requiredUsages, u) && !slices.Contains(optionalUsages, u) {
			d := deny(ReasonUsageNotAllowed, "usage %q is not allowed for a kubelet serving certificate; allowed sets are %q", u, allowedUsageSets)
			return &d
		}
	}
	for _, u := range requiredUsages {
		if !seen[u] {
			d := deny(ReasonMissingUsage, "usage %q is required; usages are %q", u, usages)
			return &d
		}
	}
	return nil
}
