package decode

import (
	"strings"
	"testing"
)

func TestNodeConfigValues(t *testing.T) {
	ca := caBase64(t)
	hash := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		name  string
		input string
		want  []want
	}{
		{name: "valid cluster", input: eks + "  cluster:\n    name: c\n    apiServerEndpoint: https://x.eks.amazonaws.com\n    certificateAuthority: " + ca + "\n    cidr: 10.100.0.0/16\n"},
		{name: "ca not base64", input: eks + "  cluster:\n    certificateAuthority: abc$\n",
			want: []want{{"spec.cluster.certificateAuthority", 9, 27, `is not valid standard base64: unexpected '$' at offset 3`}}},
		{name: "ca is pem text", input: eks + "  cluster:\n    certificateAuthority: |\n      -----BEGIN CERTIFICATE-----\n      MIIB\n",
			want: []want{{"spec.cluster.certificateAuthority", 9, 27, "it looks like PEM text; give the base64 of the PEM file instead"}}},
		{name: "ca url-safe", input: eks + "  cluster:\n    certificateAuthority: ab-_\n",
			want: []want{{"spec.cluster.certificateAuthority", 9, 27, `unexpected '-' at offset 2; - and _ are URL-safe base64: use standard base64 with + and / instead`}}},
		{name: "ca not base64 at all", input: eks + "  cluster:\n    certificateAuthority: not-base64!\n",
			want: []want{{"spec.cluster.certificateAuthority", 9, 27, `is not valid standard base64: unexpected '-' at offset 3`}}},
		{name: "ca missing padding", input: eks + "  cluster:\n    certificateAuthority: aGVsbG8\n",
			want: []want{{"spec.cluster.certificateAuthority", 9, 27, "the = padding at the end is missing or wrong"}}},
		{name: "ca no certificate", input: eks + "  cluster:\n    certificateAuthority: aGVsbG8=\n",
			want: []want{{"spec.cluster.certificateAuthority", 9, 27, "Invalid value: decodes to 5 bytes without a PEM CERTIFICATE block"}}},
		{name: "ca empty", input: eks + "  cluster:\n    certificateAuthority: \"\"\n",
			want: []want{{"spec.cluster.certificateAuthority", 9, 27, "is empty"}}},
		{name: "endpoint without scheme", input: eks + "  cluster:\n    apiServerEndpoint: x.eks.amazonaws.com\n",
			want: []want{{"spec.cluster.apiServerEndpoint", 9, 24, "must be an absolute URL with a scheme; write it like https://x.eks.amazonaws.com"}}},
		{name: "endpoint with path", input: eks + "  cluster:\n    apiServerEndpoint: https://x/api\n",
			want: []want{{"spec.cluster.apiServerEndpoint", 9, 24, `must not have a path ("/api")`}}},
		{name: "cidr not network address", input: eks + "  cluster:\n    cidr: 10.100.0.5/16\n",
			want: []want{{"spec.cluster.cidr", 9, 11, `Invalid value: "10.100.0.5/16": is not a network address (host bits are set); did you mean 10.100.0.0/16?`}}},
		{name: "cidr garbage", input: eks + "  cluster:\n    cidr: 10.100/16\n",
			want: []want{{"spec.cluster.cidr", 9, 11, "is not a CIDR"}}},
		{name: "outpost without id may be completed by a drop-in", input: eks + "  cluster:\n    name: c\n    enableOutpost: true\n"},
		{name: "ip family", input: nb + "  cluster:\n    ipFamily: IPv4\n",
			want: []want{{"spec.cluster.ipFamily", 9, 15, `Unsupported value: "IPv4": supported values: "ipv4", "ipv6"`}}},
		{name: "strategy", input: eks + "  instance:\n    localStorage:\n      strategy: raid0\n",
			want: []want{{"spec.instance.localStorage.strategy", 10, 17, "must be one of RAID0, RAID10, Mount; did you mean RAID0?"}}},
		{name: "disabled mounts", input: eks + "  instance:\n    localStorage:\n      disabledMounts: [PodLogs, Kubelet]\n",
			want: []want{{"spec.instance.localStorage.disabledMounts[1]", 10, 33, "must be one of Containerd, PodLogs, SOCI"}}},
		{name: "mount path", input: eks + "  instance:\n    localStorage:\n      mountPath: mnt\n",
			want: []want{{"spec.instance.localStorage.mountPath", 10, 18, "must be an absolute path"}}},
		{name: "feature gate", input: eks + "  featureGates:\n    FastImagePul: true\n",
			want: []want{{"spec.featureGates[FastImagePul]", 9, 19, "unknown feature gate: must be one of FastImagePull, InstanceIdNodeName; did you mean FastImagePull?"}}},
		{name: "environment names", input: eks + "  instance:\n    environment:\n      kubelet.service:\n        1X: a\n",
			want: []want{
				{"spec.instance.environment[kubelet.service]", 11, 9, `give the service name without .service ("kubelet")`},
				{"spec.instance.environment[kubelet.service][1X]", 11, 13, "is not a valid environment variable name"},
			}},
		{name: "nameserver", input: eks + "  instance:\n    network:\n      nameservers:\n      - 10.0.0.2\n      - dns.corp\n",
			want: []want{{"spec.instance.network.nameservers[1]", 12, 9, "must be an IP address"}}},
		{name: "flags", input: eks + "  kubelet:\n    flags:\n    - --v=2\n    - node-labels=a=b\n",
			want: []want{{"spec.kubelet.flags[1]", 11, 7, "must start with --"}}},
		{name: "max enis", input: nb + "  maxPods:\n    maxENIs: -2\n",
			want: []want{{"spec.maxPods.maxENIs", 9, 14, "Invalid value: -2: must be 0 (no limit) or more"}}},
		{name: "identity mode", input: nb + "  identity:\n    mode: Token\n",
			want: []want{{"spec.identity.mode", 9, 11, "must be one of ExecCredential, BootstrapToken"}}},
		{name: "identity token and hash", input: nb + "  identity:\n    mode: BootstrapToken\n    bootstrapToken:\n      token: abc.def\n      caCertHashes: [" + hash + ", sha1:00]\n",
			want: []want{
				{"spec.identity.bootstrapToken.token", 11, 14, "Invalid value: must look like abcdef.0123456789abcdef"},
				{"spec.identity.bootstrapToken.caCertHashes[1]", 12, 95, "must be sha256:<64 hex digits>"},
			}},
		{name: "identity without pin may be completed by a drop-in", input: nb + "  identity:\n    mode: BootstrapToken\n    bootstrapToken:\n      token: abcdef.0123456789abcdef\n"},
		{name: "identity pinned by ca", input: nb + "  cluster:\n    certificateAuthority: " + ca + "\n  identity:\n    mode: BootstrapToken\n    bootstrapToken:\n      token: abcdef.0123456789abcdef\n"},
		{name: "structural failure is not reported twice", input: eks + "  kubelet:\n    flags:\n    - 12\n  instance:\n    environment:\n      default:\n        A: ~\n",
			want: []want{
				{"spec.kubelet.flags[0]", 10, 7, "expected a string"},
				{"spec.instance.environment[default][A]", 14, 12, "null is not allowed here"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := decodeString(tc.input)
			assertProblems(t, problems, tc.want)
		})
	}
}

func TestNodeConfigKubeletConfig(t *testing.T) {
	tests := []struct {
		name   string
		config string // lines under "    config:", indented by six
		want   []want
	}{
		{name: "valid", config: "      kind: KubeletConfiguration\n      apiVersion: kubelet.config.k8s.io/v1beta1\n      maxPods: 110\n      shutdownGracePeriod: 2m30s\n" +
			"      kubeReserved: {cpu: 70m, memory: 1Gi}\n      evictionHard: {memory.available: 100Mi, nodefs.available: 10%}\n" +
			"      registerWithTaints: [{key: a, effect: NoSchedule}]\n      systemReservedCgroup: \"\"\n      cpuCFSQuotaPeriod: 100ms\n"},
		{name: "unknown field", config: "      maxpods: 10\n",
			want: []want{{"spec.kubelet.config[maxpods]", 10, 7, `unknown field "maxpods"; did you mean "maxPods"?`}}},
		{name: "nested unknown field", config: "      authentication:\n        webhook:\n          enable: true\n",
			want: []want{{"spec.kubelet.config[authentication].webhook.enable", 12, 11, `did you mean "enabled"?`}}},
		{name: "duration without unit", config: "      shutdownGracePeriod: 30\n",
			want: []want{{"spec.kubelet.config[shutdownGracePeriod]", 10, 28, `expected a duration such as "2m30s", got an integer (30); add a unit`}}},
		{name: "duration garbage", config: "      imageMinimumGCAge: 2 minutes\n",
			want: []want{{"spec.kubelet.config[imageMinimumGCAge]", 10, 26, `invalid duration "2 minutes"`}}},
		{name: "reserved quantity", config: "      kubeReserved:\n        memory: 1Gb\n",
			want: []want{{"spec.kubelet.config[kubeReserved][memory]", 11, 17, `invalid quantity "1Gb"`}}},
		{name: "eviction percentage", config: "      evictionHard:\n        nodefs.available: 110%\n",
			want: []want{{"spec.kubelet.config[evictionHard][nodefs.available]", 11, 27, `invalid percentage "110%"`}}},
		{name: "taint effect type", config: "      registerWithTaints:\n      - key: a\n        effect: 3\n",
			want: []want{{"spec.kubelet.config[registerWithTaints][0].effect", 12, 17, "expected a string, got an integer (3)"}}},
		{name: "list of objects", config: "      clusterDNS: 10.100.0.10\n",
			want: []want{{"spec.kubelet.config[clusterDNS]", 10, 19, `expected a list, got a string ("10.100.0.10")`}}},
		{name: "wrong kind value", config: "      kind: KubeProxyConfiguration\n",
			want: []want{{"spec.kubelet.config[kind]", 10, 13, "must be KubeletConfiguration when given"}}},
		{name: "feature gate value", config: "      featureGates:\n        Foo: enabled\n",
			want: []want{{"spec.kubelet.config[featureGates][Foo]", 11, 14, "expected a boolean"}}},
		{name: "not a mapping", config: "      - maxPods: 1\n",
			want: []want{{"spec.kubelet.config", 10, 7, "expected a mapping, got a list"}}},
		{name: "cgroup driver value", config: "      maxPods: 58\n      cgroupDriver: systemD\n",
			want: []want{{"spec.kubelet.config[cgroupDriver]", 11, 21, `Invalid value: "systemD": must be one of systemd, cgroupfs; did you mean systemd?`}}},
		{name: "max pods zero", config: "      maxPods: 0\n",
			want: []want{{"spec.kubelet.config[maxPods]", 10, 16, "Invalid value: 0: must be greater than 0"}}},
		{name: "taint effect value", config: "      registerWithTaints:\n      - key: a\n        effect: NoScheduled\n",
			want: []want{{"spec.kubelet.config[registerWithTaints][0].effect", 12, 17, "must be one of NoSchedule, PreferNoSchedule, NoExecute; did you mean NoSchedule?"}}},
		{name: "cipher suite value", config: "      tlsCipherSuites:\n      - TLS_AES_128_GCM_SHA256\n      - TLS_RSA_WITH_RC4\n",
			want: []want{{"spec.kubelet.config[tlsCipherSuites][1]", 12, 9, "is not a TLS cipher suite the kubelet knows"}}},
		{name: "feature gate name", config: "      featureGates:\n        graceful-node-shutdown: true\n",
			want: []want{{"spec.kubelet.config[featureGates][graceful-node-shutdown]", 11, 33, "is not a feature gate name"}}},
		{name: "gc thresholds order", config: "      imageGCHighThresholdPercent: 80\n      imageGCLowThresholdPercent: 85\n",
			want: []want{{"spec.kubelet.config[imageGCLowThresholdPercent]", 11, 35, "must be less than imageGCHighThresholdPercent (80)"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := decodeString(eks + "  kubelet:\n    config:\n" + tc.config)
			assertProblems(t, problems, tc.want)
		})
	}
}

func TestNodeConfigContainerdTOML(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []want
	}{
		{name: "valid", input: eks + "  containerd:\n    config: |\n      [plugins]\n      a = 1\n"},
		{name: "literal block maps to user-data line", input: eks + "  containerd:\n    config: |\n      [plugins]\n      a = 1\n      b = = 2\n",
			want: []want{{"spec.containerd.config", 12, 11, "is not valid TOML: toml: "}}},
		{name: "kept lines", input: eks + "  containerd:\n    config: |+\n\n      [plugins\n",
			want: []want{{"spec.containerd.config", 11, 15, "is not valid TOML"}}},
		{name: "quoted string names the TOML line", input: eks + "  containerd:\n    config: \"[plugins]\\na = = 1\\n\"\n",
			want: []want{{"spec.containerd.config", 9, 13, "is not valid TOML (TOML line 2, column 5): toml: "}}},
		{name: "duplicate table", input: eks + "  containerd:\n    config: |\n      [a]\n      [a]\n",
			want: []want{{"spec.containerd.config", 11, 8, "is not valid TOML: toml: table a already exists"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := decodeString(tc.input)
			assertProblems(t, problems, tc.want)
		})
	}
}
