package generate

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// Family is an AMI family.
type Family string

// AMI families.
const (
	FamilyAL2          Family = "al2"
	FamilyAL2023       Family = "al2023"
	FamilyBottlerocket Family = "bottlerocket"
	FamilyWindows      Family = "windows"
)

// Families lists every family, in the order help text shows them.
func Families() []Family {
	return []Family{FamilyAL2, FamilyAL2023, FamilyBottlerocket, FamilyWindows}
}

// Producer is what writes the user data of a node group's instances.
type Producer string

// Producers.
const (
	ProducerEKS       Producer = "eks"
	ProducerEksctl    Producer = "eksctl"
	ProducerKarpenter Producer = "karpenter"
)

// Producers lists every producer, in the order help text shows them.
func Producers() []Producer { return []Producer{ProducerEKS, ProducerEksctl, ProducerKarpenter} }

// Name is how messages name the producer.
func (p Producer) Name() string {
	switch p {
	case ProducerEKS:
		return "EKS"
	case ProducerKarpenter:
		return "Karpenter"
	}
	return string(p)
}

// ErrUnknown is returned for an unknown family or producer name.
var ErrUnknown = errors.New("unknown name")

// ErrUserData is returned (wrapped) when the user's user data cannot be
// merged the way the producer merges it.
var ErrUserData = errors.New("user data cannot be merged")

// ParseFamily reads a family name.
func ParseFamily(s string) (Family, error) {
	if f := Family(s); slices.Contains(Families(), f) {
		return f, nil
	}
	return "", fmt.Errorf("%w: family %q; use one of %s", ErrUnknown, s, joinNames(Families()))
}

// ParseProducer reads a producer name.
func ParseProducer(s string) (Producer, error) {
	if p := Producer(s); slices.Contains(Producers(), p) {
		return p, nil
	}
	return "", fmt.Errorf("%w: producer %q; use one of %s", ErrUnknown, s, joinNames(Producers()))
}

func joinNames[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

// Input is what Generate takes.
type Input struct {
	Group    v1alpha1.NodeGroup
	Family   Family
	Producer Producer
	// User are the user's own documents (the launch template's user data,
	// Karpenter's spec.userData), in order, as userdata.Split returns them.
	User []userdata.Document
}

// Origin values of a Part other than the producer's name.
const (
	// OriginUser marks the user's own documents.
	OriginUser = "user"
	// OriginNodeGroup marks the part generation writes for the node
	// group's kubelet and containerd settings the producer does not carry.
	OriginNodeGroup = "node group"
)

// Part is one piece of the final user data.
type Part struct {
	// Number is the part's 1-based place in the final MIME document (AL2,
	// AL2023); for Bottlerocket and Windows it is the place of the layer in
	// the order the producer applies them, later winning.
	Number int
	// Origin is OriginUser, OriginNodeGroup or the producer's name.
	Origin string
	// Source is where a user part came from (file, part, line); for
	// generated parts its URI says which producer wrote it.
	Source diag.Source
	// Format is what the part holds (userdata formats, or "powershell").
	Format userdata.Format
	// ContentType is the part's MIME content type (MIME families only).
	ContentType string
	// Filename is a user's MIME part's Content-Disposition filename, kept
	// for cloud-init ("" if none).
	Filename string
	// Body is the part's text.
	Body []byte
	// Applied, when set, is what the producer keeps of Body (Karpenter
	// drops Bottlerocket settings its model lacks).
	Applied []byte
	// Spec is what a generated part sets, for parts no nodeboot decoder
	// reads (Windows PowerShell, eksctl's cloud-config); nil otherwise.
	Spec *hub.Spec
}

// Generated reports whether the producer wrote the part.
func (p Part) Generated() bool { return p.Origin != OriginUser && p.Origin != OriginNodeGroup }

// Output is the generated user data.
type Output struct {
	// UserData is what the instance gets from IMDS.
	UserData []byte
	// Parts are its pieces, user's and generated, in the order they apply.
	Parts []Part
	// Notes list what the output leaves out or places elsewhere, and why.
	Notes []string
}

// FormatPowerShell marks Windows parts.
const FormatPowerShell userdata.Format = "powershell"
