//go:build e2e

package e2e

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"text/template"
)

// userDataInput is what differs between scenarios' user data.
type userDataInput struct {
	// APIVersion is node.eks.aws/v1alpha1 or nodeboot.io/v1alpha1.
	APIVersion string
	Cluster    string
	Server     string
	// CAPEM is written as cluster.certificateAuthority when not empty.
	CAPEM []byte
	CIDR  string
	// Labels and Taints become --node-labels and --register-with-taints.
	Labels string
	Taints string
	// BootstrapToken and CAHash select the nodeboot bootstrap-token identity.
	BootstrapToken string
	CAHash         string
	// SandboxImage is the pause image the local image tar provides.
	SandboxImage string
	// NoFileLimit is the RLIMIT_NOFILE hard limit containers may have.
	NoFileLimit uint64
	// NodeIP is the host's primary IPv4, the one address the kubelet
	// serves on (the node name resolves to it).
	NodeIP string
}

// hostTemplates are the parts of a NodeConfig that THIS machine needs,
// whatever else the user data says; the comments say why. They are shared
// by every scenario's user data.
const hostTemplates = `
{{- define "kubeletCgroupQuirks"}}
      # This VM: cgroup v1 without systemd as PID 1.
      cgroupDriver: cgroupfs
      failCgroupV1: false
      # This VM's kernel sysctls differ from the kubelet's defaults.
      protectKernelDefaults: false
      # This VM's disk is shared with builds and caches and may have less
      # than the kubelet's default 10 % (15 % for images) free: the kubelet
      # would report disk pressure and the doctor, rightly, fail the disk.
      # Every signal is given (a partial evictionHard zeroes the others).
      evictionHard:
        memory.available: 100Mi
        nodefs.available: 2%
        nodefs.inodesFree: 5%
        imagefs.available: 2%
        imagefs.inodesFree: 5%
{{- end}}
{{- define "hostServing"}}
      # Serve on the host's address only (the node name resolves to it; the
      # API server's node proxy refuses loopback); health checks on loopback.
      address: {{.NodeIP}}
      healthzBindAddress: 127.0.0.1
{{- end}}
{{- define "containerdQuirks"}}
  containerd:
    config: |
      [plugins."io.containerd.grpc.v1.cri"]
      # This VM lacks CAP_SYS_RESOURCE: no negative oom_score_adj.
      restrict_oom_score_adj = true
      # No registry: the pause image is imported from a local tar.
      sandbox_image = "{{.SandboxImage}}"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      SystemdCgroup = false
      [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/usr/lib/cni"
    baseRuntimeSpec:
      process:
        rlimits:
          # Without CAP_SYS_RESOURCE no container may exceed this host's hard limit.
          - type: RLIMIT_NOFILE
            soft: 1024
            hard: {{.NoFileLimit}}
{{- end}}`

// userDataTemplate is a nodeadm-style MIME multipart document with one
// NodeConfig part. Everything below spec.kubelet.config, spec.containerd
// and the taints/labels is what a user of THIS machine must write.
var userDataTemplate = template.Must(template.Must(template.New("userdata").Parse(hostTemplates)).Parse(`MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
echo "a user script part nodeboot must skip"

--//
Content-Type: application/node.eks.aws

---
apiVersion: {{.APIVersion}}
kind: NodeConfig
spec:
  cluster:
    name: {{.Cluster}}
    apiServerEndpoint: {{.Server}}
{{- if .CAPEM}}
    certificateAuthority: {{.CA64}}
{{- end}}
    cidr: {{.CIDR}}
{{- if .BootstrapToken}}
  identity:
    mode: BootstrapToken
    bootstrapToken:
      token: {{.BootstrapToken}}
      caCertHashes: ["{{.CAHash}}"]
{{- end}}
  kubelet:
    config:
{{- template "kubeletCgroupQuirks" .}}
{{- template "hostServing" .}}
    flags:
      - --node-labels={{.Labels}}
      - --register-with-taints={{.Taints}}
{{- template "containerdQuirks" .}}

--//--
`))

// al2UserDataTemplate is user data the way an Amazon Linux 2 launch
// template carries it (legacy-formats.md D.3): MIME with boundary "//", a
// platform team's base NodeConfig part with what bootstrap.sh cannot say
// (kubelet config keys, containerd TOML), then the node group's script,
// which calls /etc/eks/bootstrap.sh with the cluster name only. Endpoint,
// CA and service CIDR are left to eks:DescribeCluster. Labels, taints and
// the host's kubelet flags go through --kubelet-extra-args.
var al2UserDataTemplate = template.Must(template.Must(template.New("al2-userdata").Parse(hostTemplates)).Parse(`MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: application/node.eks.aws

---
# Platform base part: this machine's kubelet config and containerd quirks.
apiVersion: {{.APIVersion}}
kind: NodeConfig
spec:
  kubelet:
    config:
{{- template "kubeletCgroupQuirks" .}}
{{- template "containerdQuirks" .}}

--//
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
set -ex
/etc/eks/bootstrap.sh {{.Cluster}} --kubelet-extra-args '{{.KubeletExtraArgs}}'

--//--
`))

// renderUserData renders the nodeadm-style MIME user data for in.
func renderUserData(in userDataInput) ([]byte, error) {
	return executeUserData(userDataTemplate, in)
}

// renderAL2UserData renders the AL2 bootstrap.sh MIME user data for in. It
// refuses cluster details: they must come from eks:DescribeCluster.
func renderAL2UserData(in userDataInput) ([]byte, error) {
	if in.Server != "" || len(in.CAPEM) > 0 || in.CIDR != "" || in.BootstrapToken != "" {
		return nil, fmt.Errorf("render AL2 user data: endpoint, CA, service CIDR and token must be left to discovery, got %+v", in)
	}
	return executeUserData(al2UserDataTemplate, in)
}

// hostKubeletFlags are the kubelet flags this machine needs when they are
// passed the AL2 way: serve on the host's address only (the node name
// resolves to it), health checks on loopback.
func hostKubeletFlags(in userDataInput) []string {
	return []string{"--address=" + in.NodeIP, "--healthz-bind-address=127.0.0.1"}
}

// kubeletExtraArgs returns the words of the AL2 --kubelet-extra-args value
// for in; bootstrap.sh puts them last on the kubelet's command line.
func kubeletExtraArgs(in userDataInput) []string {
	return append([]string{"--node-labels=" + in.Labels, "--register-with-taints=" + in.Taints}, hostKubeletFlags(in)...)
}

func executeUserData(tmpl *template.Template, in userDataInput) ([]byte, error) {
	var buf bytes.Buffer
	data := struct {
		userDataInput
		CA64             string
		KubeletExtraArgs string
	}{in, base64.StdEncoding.EncodeToString(in.CAPEM), strings.Join(kubeletExtraArgs(in), " ")}
	if err := tmpl.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("render user data: %w", err)
	}
	return buf.Bytes(), nil
}

// formatLabels renders a label map as the --node-labels value.
func formatLabels(labels map[string]string) string {
	parts := make([]string, 0, len(labels))
	for _, k := range sortedKeys(labels) {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, ",")
}
