package kubelet

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"k8s.io/utils/ptr"

	"github.com/nodeboot/nodeboot/internal/config/clusterdns"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	kubeletv1beta1 "github.com/nodeboot/nodeboot/internal/k8sapi/kubeletconfig/v1beta1"
	metav1 "github.com/nodeboot/nodeboot/internal/k8sapi/meta/v1"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// kubeletConfiguration is the subset of kubelet.config.k8s.io/v1beta1
// KubeletConfiguration that nodeboot sets. The upstream struct cannot be
// encoded directly: its non-pointer struct fields (durations, logging, …)
// would all be written as zero values. Field names and types match upstream;
// a test decodes every rendered file strictly into the upstream type.
type kubeletConfiguration struct {
	metav1.TypeMeta                 `json:",inline"`
	Address                         string                               `json:"address"`
	Authentication                  kubeletv1beta1.KubeletAuthentication `json:"authentication"`
	Authorization                   kubeletv1beta1.KubeletAuthorization  `json:"authorization"`
	CgroupDriver                    string                               `json:"cgroupDriver"`
	CgroupRoot                      string                               `json:"cgroupRoot"`
	ClusterDNS                      []string                             `json:"clusterDNS,omitempty"`
	ClusterDomain                   string                               `json:"clusterDomain"`
	ContainerRuntimeEndpoint        string                               `json:"containerRuntimeEndpoint"`
	EvictionHard                    map[string]string                    `json:"evictionHard"`
	FeatureGates                    map[string]bool                      `json:"featureGates"`
	HairpinMode                     string                               `json:"hairpinMode"`
	KubeAPIBurst                    int32                                `json:"kubeAPIBurst,omitempty"`
	KubeAPIQPS                      int32                                `json:"kubeAPIQPS,omitempty"`
	KubeReserved                    map[string]string                    `json:"kubeReserved,omitempty"`
	KubeReservedCgroup              string                               `json:"kubeReservedCgroup"`
	Logging                         loggingConfiguration                 `json:"logging"`
	MaxPods                         int32                                `json:"maxPods,omitempty"`
	ProtectKernelDefaults           bool                                 `json:"protectKernelDefaults"`
	ProviderID                      string                               `json:"providerID"`
	ReadOnlyPort                    int32                                `json:"readOnlyPort"`
	RotateCertificates              bool                                 `json:"rotateCertificates,omitempty"`
	SerializeImagePulls             bool                                 `json:"serializeImagePulls"`
	ServerTLSBootstrap              bool                                 `json:"serverTLSBootstrap"`
	ShutdownGracePeriod             *metav1.Duration                     `json:"shutdownGracePeriod,omitempty"`
	ShutdownGracePeriodCriticalPods *metav1.Duration                     `json:"shutdownGracePeriodCriticalPods,omitempty"`
	SystemReservedCgroup            string                               `json:"systemReservedCgroup"`
	TLSCipherSuites                 []string                             `json:"tlsCipherSuites"`
}

// loggingConfiguration is the part of component-base's LoggingConfiguration
// nodeboot sets.
type loggingConfiguration struct {
	Verbosity int32 `json:"verbosity"`
}

// The API rate bootstrap.sh gives kubelets before 1.27 (raisedAPIRate).
const (
	raisedKubeAPIQPS   = 10
	raisedKubeAPIBurst = 20
)

// Graceful node shutdown periods (kubelet ≥ 1.34, nodeadm PR #2390).
const (
	shutdownGracePeriod             = 150 * time.Second
	shutdownGracePeriodCriticalPods = 30 * time.Second
)

// tlsCipherSuites are nodeadm's eight AEAD suites.
var tlsCipherSuites = []string{
	"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
	"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
	"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
	"TLS_RSA_WITH_AES_128_GCM_SHA256",
	"TLS_RSA_WITH_AES_256_GCM_SHA384",
}

// staticKubeletConfiguration holds nodeadm's static defaults (§5.2).
func staticKubeletConfiguration() kubeletConfiguration {
	return kubeletConfiguration{
		TypeMeta: metav1.TypeMeta{
			Kind:       "KubeletConfiguration",
			APIVersion: kubeletv1beta1.SchemeGroupVersion.String(),
		},
		Address: "0.0.0.0",
		Authentication: kubeletv1beta1.KubeletAuthentication{
			X509: kubeletv1beta1.KubeletX509Authentication{ClientCAFile: CACertPath},
			Webhook: kubeletv1beta1.KubeletWebhookAuthentication{
				Enabled:  ptr.To(true),
				CacheTTL: metav1.Duration{Duration: 2 * time.Minute},
			},
			Anonymous: kubeletv1beta1.KubeletAnonymousAuthentication{Enabled: ptr.To(false)},
		},
		Authorization: kubeletv1beta1.KubeletAuthorization{
			Mode: kubeletv1beta1.KubeletAuthorizationModeWebhook,
			Webhook: kubeletv1beta1.KubeletWebhookAuthorization{
				CacheAuthorizedTTL:   metav1.Duration{Duration: 5 * time.Minute},
				CacheUnauthorizedTTL: metav1.Duration{Duration: 30 * time.Second},
			},
		},
		CgroupDriver:             "systemd",
		CgroupRoot:               "/",
		ClusterDomain:            "cluster.local",
		ContainerRuntimeEndpoint: ContainerRuntimeEndpoint,
		EvictionHard: map[string]string{
			"memory.available":  "100Mi",
			"nodefs.available":  "10%",
			"nodefs.inodesFree": "5%",
		},
		FeatureGates:          map[string]bool{"RotateKubeletServerCertificate": true},
		HairpinMode:           kubeletv1beta1.HairpinVeth,
		KubeReservedCgroup:    "/runtime",
		Logging:               loggingConfiguration{Verbosity: 2},
		ProtectKernelDefaults: true,
		ReadOnlyPort:          0,
		SerializeImagePulls:   false,
		ServerTLSBootstrap:    true,
		SystemReservedCgroup:  "/system",
		TLSCipherSuites:       tlsCipherSuites,
	}
}

// renderConfig renders the base KubeletConfiguration: static defaults plus
// values derived from the config, Inputs and the kubelet version.
func renderConfig(p plan) (render.File, error) {
	kc := staticKubeletConfiguration()
	id, err := providerID(p.cfg.Status.Instance)
	if err != nil {
		return render.File{}, err
	}
	kc.ProviderID = id
	if kc.ClusterDNS, err = baseClusterDNS(p); err != nil {
		return render.File{}, err
	}
	if p.in.SetMaxPods {
		kc.MaxPods = p.in.MaxPods
	}
	kc.KubeReserved = maps.Clone(p.in.KubeReserved)
	if userReservesCPUs(p.cfg.Spec.Kubelet) {
		// The kubelet refuses reservedSystemCPUs together with reserved
		// cgroups; bootstrap.sh leaves them out then, and so do we.
		kc.KubeReservedCgroup, kc.SystemReservedCgroup = "", ""
	}
	// A bootstrap-token client certificate must be renewed by the kubelet.
	// Outposts keep nodeadm's behaviour (no rotation setting).
	kc.RotateCertificates = p.identity.mode == hub.IdentityBootstrapToken
	applyBehaviour(&kc, p.behaviour)
	data, err := marshalJSON(kc)
	if err != nil {
		return render.File{}, err
	}
	if data, err = p.user.applyPatch(data); err != nil {
		return render.File{}, err
	}
	return render.File{Path: ConfigPath, Mode: publicMode, Data: data}, nil
}

// userReservesCPUs reports a non-empty reservedSystemCPUs in the user's
// kubelet.config or a --reserved-cpus kubelet flag (flags win over the
// config file, so either one reaches the kubelet).
func userReservesCPUs(k hub.Kubelet) bool {
	var cpus string
	if raw, ok := k.Config["reservedSystemCPUs"]; ok && json.Unmarshal(raw, &cpus) == nil && cpus != "" {
		return true
	}
	for i, f := range k.Flags {
		value, isFlag := strings.CutPrefix(f, "--reserved-cpus=")
		if (isFlag && value != "") || (f == "--reserved-cpus" && i+1 < len(k.Flags)) {
			return true
		}
	}
	return false
}

// baseClusterDNS derives clusterDNS (see clusterdns.Address). When nothing to
// derive it from is known but the user's drop-in sets clusterDNS, the base
// file leaves it out instead of failing.
func baseClusterDNS(p plan) ([]string, error) {
	cluster := p.cfg.Spec.Cluster
	var dns string
	var err error
	if cluster.CIDR == "" && cluster.IPFamily == "ipv6" {
		err = fmt.Errorf("%w: IPv6 clusters need spec.cluster.cidr", clusterdns.ErrNoClusterDNSSource)
	} else {
		dns, err = clusterdns.Address(cluster.CIDR, p.cfg.Status.Instance.VPCIPv4CIDRs)
	}
	_, userSetsDNS := p.cfg.Spec.Kubelet.Config["clusterDNS"]
	switch {
	case errors.Is(err, clusterdns.ErrNoClusterDNSSource) && userSetsDNS:
		return nil, nil
	case err != nil:
		return nil, err
	}
	return []string{dns}, nil
}

// applyBehaviour applies the kubelet-version dependent settings.
func applyBehaviour(kc *kubeletConfiguration, b behaviour) {
	maps.Copy(kc.FeatureGates, b.featureGates)
	if b.gracefulShutdown {
		kc.ShutdownGracePeriod = &metav1.Duration{Duration: shutdownGracePeriod}
		kc.ShutdownGracePeriodCriticalPods = &metav1.Duration{Duration: shutdownGracePeriodCriticalPods}
	}
	if b.raisedAPIRate {
		kc.KubeAPIQPS, kc.KubeAPIBurst = raisedKubeAPIQPS, raisedKubeAPIBurst
	}
}
