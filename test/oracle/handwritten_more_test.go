//go:build oracle

package oracle

func init() {
	add := func(name, text string) { handWritten[name] = text }
	base := header + "spec:\n{{CLUSTER}}"
	handOutcomes["kubelet-config-kind-other"] = "kubelet-refuses-what-nodeadm-writes"
	add("kubelet-config-kind-other", base+"  kubelet:\n    config:\n      kind: Foo\n      maxPods: 12\n")
	add("apiversion-quoted-spaces", "apiVersion: \"node.eks.aws/v1alpha1\"   \nkind:   NodeConfig   \nspec:\n{{CLUSTER}}")
	add("spec-null", header+"spec: null\n")
	add("nameservers-ipv6", base+"  instance:\n    network:\n      nameservers: [\"fd00::2\", 10.0.0.2]\n      domains: [a.example, b.example]\n")
	add("register-with-taints-config", base+"  kubelet:\n    config:\n      registerWithTaints:\n        - key: a\n          value: b\n          effect: NoSchedule\n")
	add("kube-reserved-flag-and-config", base+"  kubelet:\n    config:\n      kubeReserved: {cpu: 100m, memory: 1Gi}\n    flags: [--kube-reserved=cpu=200m]\n")
	add("max-pods-expression-and-config", base+"  kubelet:\n    maxPodsExpression: max_pods + 3\n    config: {maxPods: 17}\n")
	add("max-pods-expression", base+"  kubelet:\n    maxPodsExpression: \"default_enis * 2\"\n")
	add("containerd-nvidia-runtime", base+"  containerd:\n    config: |\n      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n      runtime_type = \"io.containerd.runc.v2\"\n      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n      BinaryName = \"/usr/bin/nvidia-container-runtime\"\n")
	add("containerd-imports", base+"  containerd:\n    config: |\n      imports = [\"/etc/containerd/conf.d/*.toml\"]\n")
	add("containerd-default-runtime", base+"  containerd:\n    config: |\n      version = 2\n      [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n      default_runtime_name = \"nvidia\"\n")
	add("flags-override-generated", base+"  kubelet:\n    flags:\n      - --hostname-override=my-node\n      - --node-ip=10.0.0.9\n      - --cloud-provider=aws\n")
	add("flags-hostname-uppercase", base+"  kubelet:\n    flags: [--hostname-override=My-Node.Example]\n")
	add("flags-config-path", base+"  kubelet:\n    flags: [--config=/etc/kubernetes/kubelet/other.json]\n")
	add("instance-id-node-name", base+"  featureGates:\n    InstanceIdNodeName: true\n")
	add("environment-empty-value", base+"  instance:\n    environment:\n      default:\n        A: \"\"\n")
	add("environment-odd-name", base+"  instance:\n    environment:\n      kubelet:\n        \"A-B\": x\n      default:\n        1X: y\n")
	add("cidr-ipv6-compressible", header+"spec:\n  cluster:\n    name: my-cluster\n    apiServerEndpoint: https://example.com\n    certificateAuthority: {{CA}}\n    cidr: \"fd00:10:96:0::/108\"\n")
	add("cluster-ip-family-ipv6", header+"spec:\n  cluster:\n    name: my-cluster\n    apiServerEndpoint: https://example.com\n    certificateAuthority: {{CA}}\n    cidr: fd00:10:96::/108\n    ipFamily: ipv6\n")
	add("kubelet-config-cluster-dns-override", base+"  kubelet:\n    config:\n      clusterDNS: [169.254.20.10, 10.100.0.10]\n      clusterDomain: corp.local\n")
	add("kubelet-config-image-gc", base+"  kubelet:\n    config:\n      imageGCHighThresholdPercent: 90\n      imageGCLowThresholdPercent: 80\n      imageMaximumGCAge: 168h\n")
	add("kubelet-config-reserved-cgroups-null", base+"  kubelet:\n    config:\n      systemReservedCgroup: null\n      kubeReservedCgroup: null\n      reservedSystemCPUs: \"0\"\n")
	add("cluster-endpoint-trailing-slash", header+"spec:\n  cluster:\n    name: my-cluster\n    apiServerEndpoint: https://example.com/\n    certificateAuthority: {{CA}}\n    cidr: 10.100.0.0/16\n")
	add("cluster-endpoint-port", header+"spec:\n  cluster:\n    name: my-cluster\n    apiServerEndpoint: https://example.com:8443\n    certificateAuthority: {{CA}}\n    cidr: 10.100.0.0/16\n")
	add("mime-boundary-special", "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"==a'()+_,-./:=?b==\"\n\n--==a'()+_,-./:=?b==\n"+ncType+"\n\n"+base+"\n--==a'()+_,-./:=?b==--\n")
	add("mime-part-filename", mimeDoc([2]string{ncType + "\nContent-Disposition: attachment; filename=\"nodeconfig.yaml\"", base}))
	add("mime-preamble-epilogue", "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\nThis is a preamble.\n--B\n"+ncType+"\n\n"+base+"\n--B--\nepilogue text\n")
}
