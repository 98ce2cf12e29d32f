package kubelet

import (
	"path"
	"slices"
	"time"

	kubeletv1 "github.com/nodeboot/nodeboot/internal/k8sapi/kubeletconfig/v1"
	metav1 "github.com/nodeboot/nodeboot/internal/k8sapi/meta/v1"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// credentialProviderCacheDuration is how long kubelet caches ECR credentials.
const credentialProviderCacheDuration = 12 * time.Hour

// ecrMatchImages are the registries the ECR credential provider serves:
// commercial, dual-stack, China, FIPS, the ISO partitions, EUSC and ECR public.
var ecrMatchImages = []string{
	"*.dkr.ecr.*.amazonaws.com",
	"*.dkr-ecr.*.on.aws",
	"*.dkr.ecr.*.amazonaws.com.cn",
	"*.dkr-ecr.*.on.amazonwebservices.com.cn",
	"*.dkr.ecr-fips.*.amazonaws.com",
	"*.dkr-ecr-fips.*.on.aws",
	"*.dkr.ecr.*.c2s.ic.gov",
	"*.dkr.ecr.*.sc2s.sgov.gov",
	"*.dkr.ecr.*.cloud.adc-e.uk",
	"*.dkr.ecr.*.csp.hci.ic.gov",
	"*.dkr.ecr.*.amazonaws.eu",
	"public.ecr.aws",
}

// renderCredentialProvider renders the CredentialProviderConfig for the
// installed binary; the provider is named after the binary's basename.
func renderCredentialProvider(p plan) (render.File, error) {
	// nodeadm (the pinned version, test/oracle) matches the same images for
	// every kubelet version; it no longer adds ecr-public.aws.com for 1.32+.
	images := slices.Clone(ecrMatchImages)
	conf := kubeletv1.CredentialProviderConfig{
		TypeMeta: metav1.TypeMeta{
			Kind:       "CredentialProviderConfig",
			APIVersion: kubeletv1.SchemeGroupVersion.String(),
		},
		Providers: []kubeletv1.CredentialProvider{{
			Name:                 path.Base(p.in.CredentialProviderBin),
			MatchImages:          images,
			DefaultCacheDuration: &metav1.Duration{Duration: credentialProviderCacheDuration},
			APIVersion:           "credentialprovider.kubelet.k8s.io/v1",
		}},
	}
	data, err := marshalJSON(conf)
	if err != nil {
		return render.File{}, err
	}
	return render.File{Path: CredentialProviderConfigPath, Mode: publicMode, Data: data}, nil
}
