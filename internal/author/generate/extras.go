package generate

import (
	eksv1alpha1 "github.com/nodeboot/nodeboot/api/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/author/convert"
	"github.com/nodeboot/nodeboot/internal/author/nodegroup"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/userdata"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
)

// extras are the group's kubelet and containerd settings, split between
// the producer's own part and a part of the user's: EKS has no API for
// them at all; eksctl (kubeletExtraConfig) and Karpenter (spec.kubelet)
// carry kubelet config fields but no extra flags or containerd settings.
type extras struct {
	// own are kubelet config fields the producer writes in its part.
	own hub.Kubelet
	// user are the settings that travel in a user part.
	user hub.Spec
}

// splitExtras places the group's settings for producer p on family f.
// eksctl refuses kubeletExtraConfig for Windows node groups, so there its
// kubelet config fields have no place either.
func splitExtras(g v1alpha1.NodeGroup, f Family, p Producer) extras {
	all := nodegroup.Hub(g.Spec)
	user := hub.Spec{Kubelet: hub.Kubelet{Flags: all.Kubelet.Flags}, Containerd: all.Containerd}
	if p == ProducerEKS || (p == ProducerEksctl && f == FamilyWindows) {
		user.Kubelet.Config = all.Kubelet.Config
		return extras{user: user}
	}
	return extras{own: hub.Kubelet{Config: all.Kubelet.Config}, user: user}
}

// userEmpty reports whether no settings go to a user part.
func (e extras) userEmpty() bool {
	k, c := e.user.Kubelet, e.user.Containerd
	return len(k.Config) == 0 && len(k.Flags) == 0 && c.Config == "" && len(c.BaseRuntimeSpec) == 0
}

// nodeConfigExtrasPart writes the user-part settings as a node.eks.aws
// NodeConfig drop-in (nodeadm and nodeboot merge it with the other parts).
func nodeConfigExtrasPart(e extras, f Family, n *notes) (Part, error) {
	body, err := convert.NodeConfigYAMLAs(eksv1alpha1.APIVersion, e.user)
	if err != nil {
		return Part{}, err
	}
	if f == FamilyAL2 {
		n.add("spec.kubelet and spec.containerd settings the producer does not carry are in an application/node.eks.aws part, which nodeboot reads and Amazon Linux 2's bootstrap.sh does not")
	} else {
		n.add("spec.kubelet and spec.containerd settings the producer does not carry are in the user's NodeConfig part, before the producer's")
	}
	return Part{
		Origin: OriginNodeGroup, Format: userdata.FormatNodeConfig, ContentType: convert.ContentTypeNodeConfig, Body: body,
		Source: nodeGroupSource,
	}, nil
}
