package v1beta1

import "github.com/nodeboot/nodeboot/internal/k8sapi/schema"

// GroupName is the API group of the kubelet's configuration.
const GroupName = "kubelet.config.k8s.io"

// SchemeGroupVersion is kubelet.config.k8s.io/v1beta1.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1beta1"}

// Values of KubeletConfiguration fields nodeboot sets.
const (
	// HairpinVeth is hairpinMode "hairpin-veth".
	HairpinVeth = "hairpin-veth"
	// KubeletAuthorizationModeWebhook asks the API server to authorize.
	KubeletAuthorizationModeWebhook KubeletAuthorizationMode = "Webhook"
)
