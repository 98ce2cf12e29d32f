// Package v1alpha1 holds the nodeboot.io/v1alpha1 NodeConfig API: every
// field of node.eks.aws/v1alpha1 (same names, JSON tags and meaning, so a
// nodeadm document works after changing only its apiVersion) plus nodeboot's
// extensions:
//
//   - spec.cluster.ipFamily: "ipv4" or "ipv6" when no CIDR is given;
//   - spec.identity: how the kubelet authenticates, with an AWS exec
//     credential (default) or a kubeadm-style bootstrap token;
//   - spec.maxPods: prefix delegation, custom networking, ENI limit, the
//     recommended cap, and whether maxPods is written at all.
//
// In this group only spec.cluster.name is required: a missing
// apiServerEndpoint, certificateAuthority or cidr is looked up with
// eks:DescribeCluster. Unknown fields are errors, as they are for
// node.eks.aws documents read by nodeboot.
//
// The types carry no behaviour; internal/config/decode turns them into the hub
// type. Complete example (every field; the commented lines show
// alternatives):
//
//	apiVersion: nodeboot.io/v1alpha1
//	kind: NodeConfig
//	spec:
//	  cluster:
//	    name: my-cluster
//	    apiServerEndpoint: https://0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com
//	    # certificateAuthority: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t...  (base64 PEM)
//	    cidr: 10.100.0.0/16
//	    ipFamily: ipv4
//	    enableOutpost: false
//	    id: 6b4b0b8a-7a6d-4e53-9d6c-1b2a3c4d5e6f
//	  containerd:
//	    config: |
//	      [plugins."io.containerd.grpc.v1.cri".containerd]
//	      discard_unpacked_layers = false
//	    baseRuntimeSpec:
//	      process:
//	        rlimits:
//	          - type: RLIMIT_NOFILE
//	            soft: 1024
//	            hard: 1024
//	  instance:
//	    environment:
//	      default:
//	        HTTPS_PROXY: http://proxy.internal:3128
//	        NO_PROXY: 169.254.169.254,localhost
//	      kubelet:
//	        GODEBUG: http2client=0
//	    localStorage:
//	      strategy: RAID0
//	      mountPath: /mnt/k8s-disks
//	      disabledMounts: [PodLogs]
//	    network:
//	      nameservers: [10.0.0.2]
//	      domains: [corp.internal]
//	  kubelet:
//	    config:
//	      shutdownGracePeriod: 30s
//	      kubeReserved:
//	        memory: 1Gi
//	      featureGates:
//	        DisableKubeletCloudCredentialProviders: true
//	    flags:
//	      - --node-labels=team=payments
//	      - --register-with-taints=dedicated=payments:NoSchedule
//	    maxPodsExpression: (default_enis - 1) * (ips_per_eni - 1) + 2
//	  featureGates:
//	    InstanceIdNodeName: true
//	  identity:
//	    mode: ExecCredential
//	    exec:
//	      command: aws
//	      args: [eks, get-token, --cluster-name, my-cluster]
//	      env:
//	        AWS_STS_REGIONAL_ENDPOINTS: regional
//	    # mode: BootstrapToken
//	    # bootstrapToken:
//	    #   token: abcdef.0123456789abcdef
//	    #   caCertHashes: ["sha256:<64 hex digits of the CA public key hash>"]
//	  maxPods:
//	    prefixDelegation: true
//	    customNetworking: false
//	    maxENIs: 2
//	    cap: true
//	    set: true
package v1alpha1
