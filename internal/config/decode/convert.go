package decode

import (
	nbv1 "github.com/nodeboot/nodeboot/api/nodeboot/v1alpha1"
	eksv1 "github.com/nodeboot/nodeboot/api/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// fromEKS converts a node.eks.aws/v1alpha1 spec to the hub.
func fromEKS(s eksv1.NodeConfigSpec) hub.Spec {
	return fromNodeboot(upgradeEKS(s))
}

// upgradeEKS copies a node.eks.aws spec into the nodeboot.io superset.
func upgradeEKS(s eksv1.NodeConfigSpec) nbv1.NodeConfigSpec {
	return nbv1.NodeConfigSpec{
		Cluster: nbv1.ClusterDetails{
			Name:                 s.Cluster.Name,
			APIServerEndpoint:    s.Cluster.APIServerEndpoint,
			CertificateAuthority: s.Cluster.CertificateAuthority,
			CIDR:                 s.Cluster.CIDR,
			EnableOutpost:        s.Cluster.EnableOutpost,
			ID:                   s.Cluster.ID,
		},
		Containerd: nbv1.ContainerdOptions(s.Containerd),
		Instance: nbv1.InstanceOptions{
			Environment:  s.Instance.Environment,
			LocalStorage: nbv1.LocalStorageOptions(s.Instance.LocalStorage),
			Network:      nbv1.NetworkOptions(s.Instance.Network),
		},
		Kubelet:      nbv1.KubeletOptions(s.Kubelet),
		FeatureGates: s.FeatureGates,
	}
}

// fromNodeboot converts a nodeboot.io/v1alpha1 spec to the hub.
func fromNodeboot(s nbv1.NodeConfigSpec) hub.Spec {
	return hub.Spec{
		Cluster: hub.Cluster{
			Name:                 s.Cluster.Name,
			APIServerEndpoint:    s.Cluster.APIServerEndpoint,
			CertificateAuthority: s.Cluster.CertificateAuthority,
			CIDR:                 s.Cluster.CIDR,
			EnableOutpost:        s.Cluster.EnableOutpost,
			ID:                   s.Cluster.ID,
			IPFamily:             s.Cluster.IPFamily,
		},
		Containerd: hub.Containerd{Config: s.Containerd.Config, BaseRuntimeSpec: s.Containerd.BaseRuntimeSpec},
		Instance: hub.Instance{
			Environment:  s.Instance.Environment,
			LocalStorage: hub.LocalStorage(s.Instance.LocalStorage),
			Network:      hub.Network(s.Instance.Network),
		},
		Kubelet:      hub.Kubelet{Config: s.Kubelet.Config, Flags: s.Kubelet.Flags, MaxPodsExpression: s.Kubelet.MaxPodsExpression},
		FeatureGates: s.FeatureGates,
		Identity: hub.Identity{
			Mode:           s.Identity.Mode,
			Exec:           hub.ExecCredential(s.Identity.Exec),
			BootstrapToken: hub.BootstrapToken(s.Identity.BootstrapToken),
		},
		MaxPods: hub.MaxPodsPolicy(s.MaxPods),
	}
}
