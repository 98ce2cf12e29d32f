package kubeapi

import "time"

// TypeMeta is apiVersion and kind.
type TypeMeta struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// ObjectMeta is the part of metav1.ObjectMeta the node side reads.
type ObjectMeta struct {
	Name              string    `json:"name,omitempty"`
	UID               string    `json:"uid,omitempty"`
	CreationTimestamp time.Time `json:"creationTimestamp,omitzero"`
}

// VersionInfo is the answer of GET /version.
type VersionInfo struct {
	Major      string `json:"major"`
	Minor      string `json:"minor"`
	GitVersion string `json:"gitVersion"`
	GitCommit  string `json:"gitCommit,omitempty"`
	Platform   string `json:"platform,omitempty"`
}

// UserInfo is who the API server says a credential belongs to.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// SelfSubjectReview is authentication.k8s.io/v1 SelfSubjectReview.
type SelfSubjectReview struct {
	TypeMeta `json:",inline"`
	Status   SelfSubjectReviewStatus `json:"status,omitzero"`
}

// SelfSubjectReviewStatus holds the reviewed user.
type SelfSubjectReviewStatus struct {
	UserInfo UserInfo `json:"userInfo,omitzero"`
}

// Node is the part of a core/v1 Node the node side reads.
type Node struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta `json:"metadata,omitzero"`
	Spec     NodeSpec   `json:"spec,omitzero"`
	Status   NodeStatus `json:"status,omitzero"`
}

// NodeSpec holds the provider ID.
type NodeSpec struct {
	ProviderID string `json:"providerID,omitempty"`
}

// NodeStatus holds conditions, addresses and versions.
type NodeStatus struct {
	Conditions []NodeCondition `json:"conditions,omitempty"`
	Addresses  []NodeAddress   `json:"addresses,omitempty"`
	NodeInfo   NodeSystemInfo  `json:"nodeInfo,omitzero"`
	// Capacity and Allocatable are resource quantities by name
	// ("nvidia.com/gpu": "1").
	Capacity    map[string]string `json:"capacity,omitempty"`
	Allocatable map[string]string `json:"allocatable,omitempty"`
}

// NodeCondition is one node condition (Ready, MemoryPressure, ...).
type NodeCondition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	LastHeartbeatTime  time.Time `json:"lastHeartbeatTime,omitzero"`
	LastTransitionTime time.Time `json:"lastTransitionTime,omitzero"`
}

// NodeAddress is one address of a node.
type NodeAddress struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

// NodeSystemInfo holds the versions the kubelet reports.
type NodeSystemInfo struct {
	KubeletVersion          string `json:"kubeletVersion,omitempty"`
	ContainerRuntimeVersion string `json:"containerRuntimeVersion,omitempty"`
}

// Ready returns the node's Ready condition, if it has one.
func (n Node) Ready() (NodeCondition, bool) {
	for _, c := range n.Status.Conditions {
		if c.Type == "Ready" {
			return c, true
		}
	}
	return NodeCondition{}, false
}

// CertificateSigningRequest is a certificates.k8s.io/v1 CSR.
type CertificateSigningRequest struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta                      `json:"metadata,omitzero"`
	Spec     CertificateSigningRequestSpec   `json:"spec,omitzero"`
	Status   CertificateSigningRequestStatus `json:"status,omitzero"`
}

// CertificateSigningRequestSpec is what was asked for, by whom.
type CertificateSigningRequestSpec struct {
	Request           []byte   `json:"request,omitempty"`
	SignerName        string   `json:"signerName,omitempty"`
	ExpirationSeconds *int32   `json:"expirationSeconds,omitempty"`
	Usages            []string `json:"usages,omitempty"`
	Username          string   `json:"username,omitempty"`
	Groups            []string `json:"groups,omitempty"`
}

// CertificateSigningRequestStatus holds the decision and the certificate.
type CertificateSigningRequestStatus struct {
	Conditions  []CSRCondition `json:"conditions,omitempty"`
	Certificate []byte         `json:"certificate,omitempty"`
}

// CSRCondition is Approved, Denied or Failed.
type CSRCondition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	LastUpdateTime     time.Time `json:"lastUpdateTime,omitzero"`
	LastTransitionTime time.Time `json:"lastTransitionTime,omitzero"`
}

// Condition returns the CSR's condition of the given type, if any.
func (c CertificateSigningRequest) Condition(typ string) (CSRCondition, bool) {
	for _, cond := range c.Status.Conditions {
		if cond.Type == typ {
			return cond, true
		}
	}
	return CSRCondition{}, false
}

// CertificateSigningRequestList is a list of CSRs.
type CertificateSigningRequestList struct {
	TypeMeta `json:",inline"`
	Items    []CertificateSigningRequest `json:"items"`
}

// Status is the body of an API error.
type Status struct {
	TypeMeta `json:",inline"`
	Status   string `json:"status,omitempty"`
	Message  string `json:"message,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Code     int32  `json:"code,omitempty"`
}

// Well-known names.
const (
	// KubeletServingSigner signs kubelet serving certificates.
	KubeletServingSigner = "kubernetes.io/kubelet-serving"
	// NodesGroup is the group of every kubelet identity.
	NodesGroup = "system:nodes"
	// NodeUserPrefix starts every kubelet's user name.
	NodeUserPrefix = "system:node:"
	// BootstrapUserPrefix starts the user name of a bootstrap token.
	BootstrapUserPrefix = "system:bootstrap:"
)
