package v1

import (
	"errors"
	"fmt"
)

// ErrNoCurrentContext is returned when a kubeconfig does not say which
// cluster and user to use.
var ErrNoCurrentContext = errors.New("kubeconfig has no usable current context")

// Current returns the cluster and user of the current context (or of the
// only context when current-context is empty).
func (k Config) Current() (Cluster, AuthInfo, error) {
	name := k.CurrentContext
	if name == "" && len(k.Contexts) == 1 {
		name = k.Contexts[0].Name
	}
	var ctx *Context
	for i := range k.Contexts {
		if k.Contexts[i].Name == name {
			ctx = &k.Contexts[i].Context
		}
	}
	if ctx == nil {
		return Cluster{}, AuthInfo{}, fmt.Errorf("%w: context %q not found", ErrNoCurrentContext, name)
	}
	var cluster *Cluster
	for i := range k.Clusters {
		if k.Clusters[i].Name == ctx.Cluster {
			cluster = &k.Clusters[i].Cluster
		}
	}
	if cluster == nil {
		return Cluster{}, AuthInfo{}, fmt.Errorf("%w: cluster %q of context %q not found", ErrNoCurrentContext, ctx.Cluster, name)
	}
	for _, u := range k.AuthInfos {
		if u.Name == ctx.AuthInfo {
			return *cluster, u.AuthInfo, nil
		}
	}
	return Cluster{}, AuthInfo{}, fmt.Errorf("%w: user %q of context %q not found", ErrNoCurrentContext, ctx.AuthInfo, name)
}
