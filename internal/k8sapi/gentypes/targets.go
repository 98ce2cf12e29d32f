package gentypes

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	logsapi "k8s.io/component-base/logs/api/v1"
	kubeletv1 "k8s.io/kubelet/config/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// Imports of the hand-written lean types.
const (
	leanMeta     = `metav1 "github.com/nodeboot/nodeboot/internal/k8sapi/meta/v1"`
	leanResource = `"github.com/nodeboot/nodeboot/internal/k8sapi/resource"`
)

// apimachinery maps the apimachinery types with custom encodings to their
// lean counterparts.
var apimachinery = map[reflect.Type]Ref{
	reflect.TypeFor[metav1.TypeMeta]():        {"metav1.TypeMeta", leanMeta},
	reflect.TypeFor[metav1.Duration]():        {"metav1.Duration", leanMeta},
	reflect.TypeFor[metav1.Time]():            {"metav1.Time", leanMeta},
	reflect.TypeFor[resource.Quantity]():      {"resource.Quantity", leanResource},
	reflect.TypeFor[resource.QuantityValue](): {"resource.QuantityValue", leanResource},
}

// KubeletConfigV1beta1 is KubeletConfiguration (kubelet.config.k8s.io/v1beta1)
// with the core, logging and tracing types it uses.
var KubeletConfigV1beta1 = Target{
	Dir:     "internal/k8sapi/kubeletconfig/v1beta1",
	Package: "v1beta1",
	Roots:   []reflect.Type{reflect.TypeFor[kubeletv1beta1.KubeletConfiguration]()},
	Mapped: with(apimachinery, map[reflect.Type]Ref{
		reflect.TypeFor[logsapi.TimeOrMetaDuration](): {Expr: "TimeOrMetaDuration"},
	}),
	Modules: []string{"k8s.io/kubelet", "k8s.io/api", "k8s.io/component-base"},
}

// KubeletConfigV1 is CredentialProviderConfig
// (kubelet.config.k8s.io/v1).
var KubeletConfigV1 = Target{
	Dir:     "internal/k8sapi/kubeletconfig/v1",
	Package: "v1",
	Roots:   []reflect.Type{reflect.TypeFor[kubeletv1.CredentialProviderConfig]()},
	Mapped:  apimachinery,
	Modules: []string{"k8s.io/kubelet"},
}

// Targets are all generated files.
var Targets = []Target{KubeletConfigV1beta1, KubeletConfigV1}

func with(a, b map[reflect.Type]Ref) map[reflect.Type]Ref {
	out := make(map[reflect.Type]Ref, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
