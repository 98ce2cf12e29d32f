package kubelet

import (
	"fmt"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// identity is how the kubelet authenticates, resolved from the spec.
type identity struct {
	// mode is hub.IdentityExecCredential or hub.IdentityBootstrapToken.
	mode string
	// outpost is true for an Outposts (local) cluster.
	outpost bool
}

func resolveIdentity(spec hub.Spec) (identity, error) {
	id := identity{mode: spec.Identity.Mode, outpost: outpostEnabled(spec.Cluster)}
	switch id.mode {
	case "", hub.IdentityExecCredential:
		id.mode = hub.IdentityExecCredential
	case hub.IdentityBootstrapToken:
		if err := checkBootstrapToken(spec.Identity.BootstrapToken.Token); err != nil {
			return identity{}, err
		}
	default:
		return identity{}, fmt.Errorf("%w %q (spec.identity.mode): want %s or %s",
			ErrUnknownIdentityMode, id.mode, hub.IdentityExecCredential, hub.IdentityBootstrapToken)
	}
	return id, nil
}

func outpostEnabled(c hub.Cluster) bool {
	return c.EnableOutpost != nil && *c.EnableOutpost
}

// tlsBootstrap reports whether the kubelet obtains a client certificate
// through TLS bootstrapping: always with a bootstrap token, and on Outposts
// (so the node keeps working while the Outpost is disconnected from its
// region), as nodeadm does.
func (id identity) tlsBootstrap() bool {
	return id.mode == hub.IdentityBootstrapToken || id.outpost
}

// kubeconfigPath is the file Render writes the kubeconfig to.
func (id identity) kubeconfigPath() string {
	if id.tlsBootstrap() {
		return BootstrapKubeconfigPath
	}
	return KubeconfigPath
}

// checkBootstrapToken checks the "<id>.<secret>" format without ever
// echoing the token.
func checkBootstrapToken(token string) error {
	if token == "" {
		return ErrMissingBootstrapToken
	}
	const idLen, secretLen = 6, 16
	if len(token) != idLen+1+secretLen || token[idLen] != '.' {
		return ErrInvalidBootstrapToken
	}
	for i := range len(token) {
		c := token[i]
		if i == idLen {
			continue
		}
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return ErrInvalidBootstrapToken
		}
	}
	return nil
}
