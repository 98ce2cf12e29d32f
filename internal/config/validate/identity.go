package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/lazyregexp"
)

var (
	// bootstrapToken is kubeadm's token form: "<id>.<secret>".
	bootstrapToken = lazyregexp.New(`^[a-z0-9]{6}\.[a-z0-9]{16}$`)
	// caCertHash is a public key pin: SHA-256 of the CA's SubjectPublicKeyInfo.
	caCertHash = lazyregexp.New(`^sha256:[0-9a-fA-F]{64}$`)
)

// identityModes are the values of spec.identity.mode ("" means ExecCredential).
var identityModes = []string{hub.IdentityExecCredential, hub.IdentityBootstrapToken}

// identityValues checks the identity settings that are present.
func identityValues(id hub.Identity, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if id.Mode != "" {
		if detail := enumProblem(id.Mode, identityModes); detail != "" {
			errs = append(errs, field.Invalid(fld.Child("mode"), id.Mode, detail))
		}
	}
	errs = append(errs, envVars(id.Exec.Env, fld.Child("exec", "env"))...)
	bt := fld.Child("bootstrapToken")
	if id.BootstrapToken.Token != "" && !bootstrapToken.MatchString(id.BootstrapToken.Token) {
		// The token is a secret: never echo it.
		errs = append(errs, field.Invalid(bt.Child("token"), field.OmitValueType{},
			"must look like abcdef.0123456789abcdef: 6 and 16 characters of a-z and 0-9 joined by a dot (kubeadm token create prints one)"))
	}
	for i, h := range id.BootstrapToken.CACertHashes {
		if !caCertHash.MatchString(h) {
			errs = append(errs, field.Invalid(bt.Child("caCertHashes").Index(i), h,
				"must be sha256:<64 hex digits>, the SHA-256 of the CA public key (as printed by kubeadm token create --print-join-command)"))
		}
	}
	return errs
}

// bootstrapTokenPinned reports a bootstrap token setup that would trust the
// cluster-info CA blindly without saying so.
func bootstrapTokenPinned(spec hub.Spec, fld *field.Path) field.ErrorList {
	bt := spec.Identity.BootstrapToken
	if spec.Identity.Mode != hub.IdentityBootstrapToken || len(bt.CACertHashes) > 0 ||
		bt.UnsafeSkipCAVerification || len(spec.Cluster.CertificateAuthority) > 0 {
		return nil
	}
	return field.ErrorList{field.Required(fld.Child("caCertHashes"),
		"the cluster CA read from kube-public/cluster-info must be pinned: add the sha256 hash of its public key here, "+
			"or set spec.cluster.certificateAuthority, or set unsafeSkipCAVerification: true to trust any CA (not recommended)")}
}
