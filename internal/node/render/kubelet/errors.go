package kubelet

import "errors"

// Sentinel errors. Render wraps them with the offending value or field, so
// callers test them with errors.Is and show the wrapped message to users.
var (
	// ErrMissingKubeletVersion means Status.KubeletVersion is empty: the
	// enricher must read /etc/eks/kubelet-version.txt or run `kubelet --version`.
	ErrMissingKubeletVersion = errors.New("kubelet version unknown (status.kubeletVersion is empty)")
	// ErrInvalidKubeletVersion means Status.KubeletVersion is not like "v1.34.4".
	ErrInvalidKubeletVersion = errors.New("kubelet version is not a Kubernetes version")
	// ErrMissingNodeIP means Status.Instance.NodeIP is empty.
	ErrMissingNodeIP = errors.New("node IP unknown (status.instance.nodeIP is empty; IMDS local-ipv4 or the primary ENI's ipv6s)")
	// ErrInvalidNodeIP means Status.Instance.NodeIP is not one IP address.
	ErrInvalidNodeIP = errors.New("node IP is not a single IP address")
	// ErrMissingNodeName means the node name source is empty: PrivateDNSName
	// (from ec2:DescribeInstances), or the instance ID with InstanceIdNodeName.
	ErrMissingNodeName = errors.New("node name unknown")
	// ErrMissingInstanceID means Status.Instance.ID is empty.
	ErrMissingInstanceID = errors.New("instance ID unknown (status.instance.id is empty)")
	// ErrMissingAvailabilityZone means Status.Instance.AvailabilityZone is empty.
	ErrMissingAvailabilityZone = errors.New("availability zone unknown (status.instance.availabilityZone is empty)")
	// ErrMissingRegion means Status.Instance.Region is empty but the default
	// `aws eks get-token` arguments need it.
	ErrMissingRegion = errors.New("region unknown (status.instance.region is empty)")
	// ErrMissingClusterName means spec.cluster.name is empty but the default
	// exec credential arguments need it.
	ErrMissingClusterName = errors.New("cluster name is empty (spec.cluster.name)")
	// ErrMissingClusterID means an Outposts cluster has no spec.cluster.id.
	ErrMissingClusterID = errors.New("cluster ID must be set for Outposts (spec.cluster.id)")
	// ErrMissingAPIServerEndpoint means spec.cluster.apiServerEndpoint is empty.
	ErrMissingAPIServerEndpoint = errors.New("API server endpoint is empty (spec.cluster.apiServerEndpoint)")
	// ErrUnrepresentableFlag means a kubelet flag cannot be carried through
	// the systemd environment file without being split or rewritten.
	ErrUnrepresentableFlag = errors.New("kubelet flag cannot be passed through the systemd environment file")
	// ErrUnknownIdentityMode means spec.identity.mode is not a known mode.
	ErrUnknownIdentityMode = errors.New("unknown identity mode")
	// ErrMissingBootstrapToken means BootstrapToken mode has no token.
	ErrMissingBootstrapToken = errors.New("bootstrap token is empty (spec.identity.bootstrapToken.token)")
	// ErrInvalidBootstrapToken means the token is not "<6 chars>.<16 chars>"
	// of [a-z0-9]. The token itself is never put into error messages.
	ErrInvalidBootstrapToken = errors.New("bootstrap token must match [a-z0-9]{6}.[a-z0-9]{16}")
	// ErrInvalidKubeletConfig means a kubelet.config value is not valid JSON.
	ErrInvalidKubeletConfig = errors.New("invalid kubelet.config value")
	// ErrInvalidCredentialProviderBin means Inputs.CredentialProviderBin is
	// not an absolute path to a file.
	ErrInvalidCredentialProviderBin = errors.New("credential provider binary must be an absolute file path")
)
