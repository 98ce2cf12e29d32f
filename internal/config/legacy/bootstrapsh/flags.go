package bootstrapsh

// bootstrap.sh options (legacy-formats.md §A.2). Every one takes exactly
// one following argument.
const (
	flagUseMaxPods            = "--use-max-pods"
	flagB64ClusterCA          = "--b64-cluster-ca"
	flagAPIServerEndpoint     = "--apiserver-endpoint"
	flagKubeletExtraArgs      = "--kubelet-extra-args"
	flagEnableDockerBridge    = "--enable-docker-bridge"
	flagAWSAPIRetryAttempts   = "--aws-api-retry-attempts"
	flagDockerConfigJSON      = "--docker-config-json"
	flagPauseContainerAccount = "--pause-container-account"
	flagPauseContainerVersion = "--pause-container-version"
	flagDNSClusterIP          = "--dns-cluster-ip"
	flagContainerRuntime      = "--container-runtime"
	flagIPFamily              = "--ip-family"
	flagServiceIPv6CIDR       = "--service-ipv6-cidr"
	flagContainerdConfigFile  = "--containerd-config-file"
	flagEnableLocalOutpost    = "--enable-local-outpost"
	flagClusterID             = "--cluster-id"
	flagMountBPFFS            = "--mount-bpf-fs"
	flagLocalDisks            = "--local-disks"
	flagServiceIPv4CIDR       = "--service-ipv4-cidr"
)

// bootstrapOption is one option and the shell variable it assigns.
// bootstrap.sh applies its defaults with ${VAR:-default}, so the variable
// exported into its environment acts as the option when it is absent.
type bootstrapOption struct {
	flag   string
	envVar string
}

// bootstrapOptions lists every option bootstrap.sh ever had, in the order
// of its help text.
var bootstrapOptions = []bootstrapOption{
	{flagUseMaxPods, "USE_MAX_PODS"},
	{flagB64ClusterCA, "B64_CLUSTER_CA"},
	{flagAPIServerEndpoint, "APISERVER_ENDPOINT"},
	{flagKubeletExtraArgs, "KUBELET_EXTRA_ARGS"},
	{flagEnableDockerBridge, "ENABLE_DOCKER_BRIDGE"},
	{flagAWSAPIRetryAttempts, "API_RETRY_ATTEMPTS"},
	{flagDockerConfigJSON, "DOCKER_CONFIG_JSON"},
	{flagPauseContainerAccount, "PAUSE_CONTAINER_ACCOUNT"},
	{flagPauseContainerVersion, "PAUSE_CONTAINER_VERSION"},
	{flagDNSClusterIP, "DNS_CLUSTER_IP"},
	{flagContainerRuntime, "CONTAINER_RUNTIME"},
	{flagIPFamily, "IP_FAMILY"},
	{flagServiceIPv6CIDR, "SERVICE_IPV6_CIDR"},
	{flagContainerdConfigFile, "CONTAINERD_CONFIG_FILE"},
	{flagEnableLocalOutpost, "ENABLE_LOCAL_OUTPOST"},
	{flagClusterID, "CLUSTER_ID"},
	{flagMountBPFFS, "MOUNT_BPF_FS"},
	{flagLocalDisks, "LOCAL_DISKS"},
	{flagServiceIPv4CIDR, "SERVICE_IPV4_CIDR"},
}

// isSecretOption reports an option whose value may hold credentials and
// is never printed: --docker-config-json carries registry auths.
func isSecretOption(flag string) bool { return flag == flagDockerConfigJSON }

// envPauseContainerImage overrides the pause image; it has no flag.
const envPauseContainerImage = "PAUSE_CONTAINER_IMAGE"

func isBootstrapFlag(name string) bool {
	for _, o := range bootstrapOptions {
		if o.flag == name {
			return true
		}
	}
	return false
}

func bootstrapFlagNames() []string {
	out := make([]string, len(bootstrapOptions))
	for i, o := range bootstrapOptions {
		out[i] = o.flag
	}
	return out
}

// looksLikeBootstrapFlag reports an argument that is itself an option:
// "--flag" or "--flag=value".
func looksLikeBootstrapFlag(s string) bool {
	for _, o := range bootstrapOptions {
		if s == o.flag || (len(s) > len(o.flag) && s[:len(o.flag)] == o.flag && s[len(o.flag)] == '=') {
			return true
		}
	}
	return false
}
