package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group, Version and Kind identify the API.
const (
	Group    = "nodeboot.io"
	Version  = "v1alpha1"
	Kind     = "NodeGroupRollout"
	Resource = "nodegrouprollouts"
)

// SchemeGroupVersion is the group and version of this package's types.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

// AddToScheme registers NodeGroupRollout and NodeGroupRolloutList with s.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, &NodeGroupRollout{}, &NodeGroupRolloutList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}
