//go:build oracle

package oracle

func init() {
	add := func(name, text string) { handWritten[name] = text }
	refusedByTheKubelet := func(name, text string) {
		add(name, text)
		handOutcomes[name] = "kubelet-refuses-what-nodeadm-writes"
	}
	base := header + "spec:\n{{CLUSTER}}"
	add("plain", base)
	handOutcomes["flow-style"] = "yaml-flow-style"
	add("flow-style", `{apiVersion: node.eks.aws/v1alpha1, kind: NodeConfig, spec: {cluster: {name: my-cluster, apiServerEndpoint: "https://example.com", certificateAuthority: {{CA}}, cidr: 10.100.0.0/16}, kubelet: {config: {maxPods: 30, clusterDNS: [10.100.0.10]}, flags: [--v=3]}}}`)
	add("anchors-aliases", base+"  kubelet:\n    config:\n      kubeReserved: &res\n        cpu: 100m\n        memory: 300Mi\n      systemReserved: *res\n")
	add("merge-key", base+"  kubelet:\n    config:\n      kubeReserved: &res {cpu: 100m}\n      systemReserved:\n        <<: *res\n        memory: 200Mi\n")
	add("tags", base+"  kubelet:\n    config:\n      maxPods: !!int \"30\"\n      podPidsLimit: !!int 4096\n    flags:\n      - !!str --v=2\n")
	refusedByTheKubelet("str-tag-on-int", base+"  kubelet:\n    config:\n      maxPods: !!str 30\n")
	add("quoted-keys", `"apiVersion": 'node.eks.aws/v1alpha1'
'kind': "NodeConfig"
"spec":
  "cluster":
    'name': "my-cluster"
    "apiServerEndpoint": https://example.com
    "certificateAuthority": {{CA}}
    'cidr': '10.100.0.0/16'
`)
	add("comments-everywhere", `# leading comment
apiVersion: node.eks.aws/v1alpha1 # trailing
kind: NodeConfig
# between
spec: # after key
  cluster:
    # inside
    name: my-cluster   # after scalar
    apiServerEndpoint: https://example.com
    certificateAuthority: {{CA}}
    cidr: 10.100.0.0/16
  kubelet:
    flags:
      # before item
      - --v=2 # after item
      # after items
# at end
`)
	add("bom", "\ufeff"+base)
	add("crlf", crlf(base+"  kubelet:\n    flags:\n      - --v=2\n"))
	add("tab-after-value", header+"spec:\n  cluster:\n    name: my-cluster\t\n    apiServerEndpoint: https://example.com\n    certificateAuthority: {{CA}}\n    cidr: 10.100.0.0/16\t# c\n")
	add("tab-indent", header+"spec:\n\tcluster:\n\t\tname: my-cluster\n")
	add("trailing-doc-start", base+"---\n")
	add("doc-end-marker", base+"...\n")
	add("leading-doc-start-and-end", "---\n"+base+"...\n")
	add("two-docs-one-part", base+"---\n"+header+"spec:\n  kubelet:\n    flags:\n      - --v=5\n")
	add("two-docs-second-invalid", base+"---\n"+header+"spec:\n  kubelet: [\n")
	add("empty-doc-first", "---\n---\n"+base)
	handOutcomes["empty-doc-first"] = "empty-documents-skipped"
	add("empty-doc-last", base+"---\n---\n")
	add("json", `{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig","spec":{"cluster":{"name":"my-cluster","apiServerEndpoint":"https://example.com","certificateAuthority":"{{CA}}","cidr":"10.100.0.0/16"},"kubelet":{"config":{"maxPods":30}}}}`)
	add("json-duplicate-keys", `{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig","spec":{"cluster":{"name":"a","name":"my-cluster","apiServerEndpoint":"https://example.com","certificateAuthority":"{{CA}}","cidr":"10.100.0.0/16"}}}`)
	add("yaml-duplicate-keys", header+"spec:\n  cluster:\n    name: a\n    name: my-cluster\n    apiServerEndpoint: https://example.com\n    certificateAuthority: {{CA}}\n    cidr: 10.100.0.0/16\n")
	add("json-trailing-garbage", `{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig","spec":{"cluster":{"name":"my-cluster","apiServerEndpoint":"https://example.com","certificateAuthority":"{{CA}}","cidr":"10.100.0.0/16"}}} xx`)
	add("json-uppercase-field", `{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig","spec":{"cluster":{"Name":"x","name":"my-cluster","apiServerEndpoint":"https://example.com","certificateAuthority":"{{CA}}","cidr":"10.100.0.0/16"}}}`)
	add("kind-lowercase", "apiVersion: node.eks.aws/v1alpha1\nkind: nodeconfig\nspec:\n{{CLUSTER}}")
	add("apiversion-uppercase-group", "apiVersion: Node.EKS.aws/v1alpha1\nkind: NodeConfig\nspec:\n{{CLUSTER}}")
	add("apiversion-no-version", "apiVersion: node.eks.aws\nkind: NodeConfig\nspec:\n{{CLUSTER}}")
	add("apiversion-missing", "kind: NodeConfig\nspec:\n{{CLUSTER}}")
	add("kind-missing", "apiVersion: node.eks.aws/v1alpha1\nspec:\n{{CLUSTER}}")
	add("metadata-and-status", base+"metadata:\n  name: x\n  labels: {a: b}\nstatus:\n  foo: bar\n")
	add("unknown-top", base+"extra: 1\n")
	add("unknown-everywhere", header+"spec:\n  cluster:\n    name: my-cluster\n    apiServerEndpoint: https://example.com\n    certificateAuthority: {{CA}}\n    cidr: 10.100.0.0/16\n    zzz: 1\n  kubelet:\n    zzz: 1\n  containerd:\n    zzz: 1\n  instance:\n    zzz: 1\n    localStorage:\n      strategy: RAID0\n      zzz: 1\n    network:\n      zzz: 2\n  zzz: 3\n")
	add("spec-capitalised", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nSpec:\n{{CLUSTER}}")
	add("cluster-field-capitalised", header+"spec:\n  cluster:\n    Name: my-cluster\n    apiServerEndpoint: https://example.com\n    certificateAuthority: {{CA}}\n    cidr: 10.100.0.0/16\n")
	add("kubelet-config-unknown-fields", base+"  kubelet:\n    config:\n      fooBar: 1\n      nested:\n        deep:\n          list: [1, {a: b}]\n")
	refusedByTheKubelet("kubelet-config-wrong-type-maxpods", base+"  kubelet:\n    config:\n      maxPods: \"30\"\n")
	refusedByTheKubelet("kubelet-config-wrong-type-dns", base+"  kubelet:\n    config:\n      clusterDNS: 10.100.0.10\n")
	add("kubelet-config-float", base+"  kubelet:\n    config:\n      maxPods: 30.0\n      imageGCHighThresholdPercent: 85\n")
	refusedByTheKubelet("kubelet-config-bool-string", base+"  kubelet:\n    config:\n      serializeImagePulls: \"false\"\n")
	add("kubelet-config-yes", base+"  kubelet:\n    config:\n      serializeImagePulls: no\n      failSwapOn: yes\n")
	add("kubelet-config-null", base+"  kubelet:\n    config:\n      maxPods: null\n      clusterDNS: ~\n")
	add("kubelet-config-kind", base+"  kubelet:\n    config:\n      kind: KubeletConfiguration\n      apiVersion: kubelet.config.k8s.io/v1beta1\n      maxPods: 12\n")
	add("kubelet-config-nested-maps", base+"  kubelet:\n    config:\n      evictionHard:\n        memory.available: 100Mi\n        nodefs.available: 5%\n      evictionSoft:\n        memory.available: 300Mi\n      evictionSoftGracePeriod:\n        memory.available: 30s\n      featureGates:\n        Foo: true\n        GracefulNodeShutdown: false\n")
	add("kubelet-config-empty", base+"  kubelet:\n    config: {}\n    flags: []\n")
	add("kubelet-config-list", base+"  kubelet:\n    config: [1]\n")
	add("kubelet-flags-dupes", base+"  kubelet:\n    flags:\n      - --node-labels=a=b\n      - --node-labels=c=d\n      - --v=2\n      - --v=4\n")
	add("kubelet-flags-override-config", base+"  kubelet:\n    config:\n      maxPods: 20\n      clusterDNS: [10.100.0.10]\n    flags:\n      - --max-pods=40\n      - --cluster-dns=10.100.0.53\n")
	add("kubelet-flags-space-form", base+"  kubelet:\n    flags:\n      - --node-labels a=b\n      - \"--register-with-taints  x=y:NoSchedule\"\n")
	add("kubelet-flags-one-string", base+"  kubelet:\n    flags:\n      - --v=2 --node-labels=a=b\n")
	add("kubelet-flags-scalar", base+"  kubelet:\n    flags: --v=2\n")
	add("kubelet-flags-single-dash", base+"  kubelet:\n    flags:\n      - -v=2\n")
	refusedByTheKubelet("kubelet-flags-no-dash", base+"  kubelet:\n    flags:\n      - v=2\n")
	refusedByTheKubelet("kubelet-flags-quotes", base+"  kubelet:\n    flags:\n      - '--node-labels=\"a=b c\"'\n")
	add("kubelet-flags-number", base+"  kubelet:\n    flags:\n      - 3\n")
	add("containerd-v3", base+"  containerd:\n    config: |\n      version = 3\n      [plugins.'io.containerd.cri.v1.images']\n      snapshotter = \"overlayfs\"\n")
	add("containerd-v2-merge", base+"  containerd:\n    config: |\n      version = 2\n      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n      SystemdCgroup = false\n      [plugins.\"io.containerd.grpc.v1.cri\"]\n      sandbox_image = \"x/pause:1\"\n")
	add("containerd-invalid-toml", base+"  containerd:\n    config: |\n      version = = 2\n")
	add("containerd-no-version", base+"  containerd:\n    config: |\n      [grpc]\n      address = \"/run/x.sock\"\n")
	add("containerd-root", base+"  containerd:\n    config: |\n      root = \"/data/containerd\"\n      oom_score = -999\n")
	add("containerd-empty", base+"  containerd:\n    config: \"\"\n")
	add("base-runtime-spec", base+"  containerd:\n    baseRuntimeSpec:\n      process:\n        rlimits:\n          - type: RLIMIT_NOFILE\n            soft: 1024\n            hard: 2048\n      foo: bar\n      linux:\n        sysctl:\n          net.core.somaxconn: \"1024\"\n")
	add("base-runtime-spec-empty", base+"  containerd:\n    baseRuntimeSpec: {}\n")
	add("local-storage-mount", base+"  instance:\n    localStorage:\n      strategy: Mount\n      mountPath: /mnt/k8s\n      disabledMounts: [Containerd, PodLogs]\n")
	add("local-storage-bad-strategy", base+"  instance:\n    localStorage:\n      strategy: raid0\n")
	add("feature-gates-unknown", base+"  featureGates:\n    Foo: true\n")
	add("feature-gates-false", base+"  featureGates:\n    InstanceIdNodeName: false\n    FastImagePull: false\n")
	add("feature-gates-fast-image-pull", base+"  featureGates:\n    FastImagePull: true\n")
	add("feature-gates-string", base+"  featureGates:\n    InstanceIdNodeName: \"true\"\n")
	add("cidr-ipv6", header+"spec:\n  cluster:\n    name: my-cluster\n    apiServerEndpoint: https://example.com\n    certificateAuthority: {{CA}}\n    cidr: fd00:10:96::/108\n")
	add("cidr-ipv6-upper", header+"spec:\n  cluster:\n    name: my-cluster\n    apiServerEndpoint: https://example.com\n    certificateAuthority: {{CA}}\n    cidr: FD00:10:96::/108\n")
	add("cidr-missing", header+"spec:\n  cluster:\n    name: my-cluster\n    apiServerEndpoint: https://example.com\n    certificateAuthority: {{CA}}\n")
	add("outpost", header+"spec:\n  cluster:\n    name: my-cluster\n    id: 0123-abc\n    enableOutpost: true\n    apiServerEndpoint: https://localhost\n    certificateAuthority: {{CA}}\n    cidr: 10.100.0.0/16\n")
	add("outpost-no-id", header+"spec:\n  cluster:\n    name: my-cluster\n    enableOutpost: true\n    apiServerEndpoint: https://example.com\n    certificateAuthority: {{CA}}\n    cidr: 10.100.0.0/16\n")
	add("outpost-false", header+"spec:\n  cluster:\n    name: my-cluster\n    enableOutpost: false\n    apiServerEndpoint: https://example.com\n    certificateAuthority: {{CA}}\n    cidr: 10.100.0.0/16\n")
	add("endpoint-no-scheme", header+"spec:\n  cluster:\n    name: my-cluster\n    apiServerEndpoint: example.com\n    certificateAuthority: {{CA}}\n    cidr: 10.100.0.0/16\n")
	add("ca-multiline-block", header+"spec:\n  cluster:\n    name: my-cluster\n    apiServerEndpoint: https://example.com\n    certificateAuthority: >-\n      {{CA}}\n    cidr: 10.100.0.0/16\n")
	add("kubelet-flags-bool-then-flag", base+"  kubelet:\n    flags:\n      - --fail-swap-on --v=2\n")
	refusedByTheKubelet("kubelet-flags-value-then-flag", base+"  kubelet:\n    flags:\n      - --node-labels --v=9\n")
	add("feature-gates-yes", base+"  featureGates:\n    InstanceIdNodeName: yes\n")
	add("base-runtime-spec-yes", base+"  containerd:\n    baseRuntimeSpec:\n      process:\n        noNewPrivileges: yes\n        terminal: off\n")
	add("json-yaml11-strings", `{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig","spec":{"cluster":{"name":"my-cluster","apiServerEndpoint":"https://example.com","certificateAuthority":"{{CA}}","cidr":"10.100.0.0/16"},"kubelet":{"config":{"providerID":"yes"}}}}`)
	add("cluster-name-yes", header+"spec:\n  cluster:\n    name: yes\n    apiServerEndpoint: https://example.com\n    certificateAuthority: {{CA}}\n    cidr: 10.100.0.0/16\n")
	add("environment-on", base+"  instance:\n    environment:\n      default:\n        A: on\n")
	refusedByTheKubelet("kubelet-string-field-yes", base+"  kubelet:\n    config:\n      providerID: yes\n")
	add("environment", base+"  instance:\n    environment:\n      default:\n        A: \"1\"\n        B: 'x y'\n      kubelet:\n        C: \"$HOME\"\n      containerd:\n        D: \"%h\"\n")
	add("environment-int", base+"  instance:\n    environment:\n      default:\n        A: 1\n")
	add("environment-unknown-unit", base+"  instance:\n    environment:\n      sshd:\n        A: \"1\"\n")
}

func crlf(s string) string {
	out := ""
	for _, line := range splitKeep(s) {
		out += line
	}
	return out
}

func splitKeep(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			lines = append(lines, s[start:i]+"\r\n")
			start = i + 1
		}
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}
