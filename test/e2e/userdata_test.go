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
}

// userDataTemplate is a nodeadm-style MIME multipart document with one
// NodeConfig part. Everything below spec.kubelet.config, spec.containerd
// and the taints/labels is what a user of THIS machine must write; the
// comments say why.
var userDataTemplate = template.Must(template.New("userdata").Parse(`MIME-Version: 1.0
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
      # This VM: cgroup v1 without systemd as PID 1.
      cgroupDriver: cgroupfs
      failCgroupV1: false
      # This VM's kernel sysctls differ from the kubelet's defaults.
      protectKernelDefaults: false
      # Serve on loopback only; the node name resolves to 127.0.0.1.
      address: 127.0.0.1
      healthzBindAddress: 127.0.0.1
    flags:
      - --node-labels={{.Labels}}
      - --register-with-taints={{.Taints}}
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

--//--
`))

// renderUserData renders the MIME user data for in.
func renderUserData(in userDataInput) ([]byte, error) {
	var buf bytes.Buffer
	data := struct {
		userDataInput
		CA64 string
	}{in, base64.StdEncoding.EncodeToString(in.CAPEM)}
	if err := userDataTemplate.Execute(&buf, data); err != nil {
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
