//go:build e2e

package e2e

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"

	corev1 "k8s.io/api/core/v1"
)

// generatedImage is the AMI ID the generated scenarios' node group names;
// EKS labels nodes with it.
const generatedImage = "ami-0e2e0000000000001"

// nodeGroupTemplate is the NodeGroup the generated scenarios hand to
// `nodeboot userdata generate`: the cluster as EKS knows it, the instance
// type max pods are computed for, labels, taints, and this machine's
// kubelet and containerd needs (the same quirks as every scenario's user
// data), which EKS carries in the launch template's own part.
var nodeGroupTemplate = template.Must(template.Must(template.New("nodegroup").Parse(hostTemplates)).Parse(`apiVersion: nodeboot.io/v1alpha1
kind: NodeGroup
metadata:
  name: {{.Name}}
spec:
  cluster:
    name: {{.Cluster}}
    apiServerEndpoint: {{.Server}}
    certificateAuthority: {{.CA64}}
    cidr: {{.CIDR}}
  imageId: {{.Image}}
  instanceType: {{.InstanceType}}
  labels:
{{- range $k, $v := .Labels}}
    {{$k}}: {{$v}}
{{- end}}
  taints:
{{- range .Taints}}
    - key: {{.Key}}
      value: {{.Value}}
      effect: {{.Effect}}
{{- end}}
  kubelet:
    config:
{{- template "kubeletCgroupQuirks" .}}
{{- template "hostServing" .}}
{{- template "containerdQuirks" .}}
`))

// nodeGroupLabels are the scenario's labels the node group itself sets;
// the eks.amazonaws.com ones are EKS's, written by the generator.
func nodeGroupLabels(labels map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		if !strings.HasPrefix(k, "eks.amazonaws.com/") {
			out[k] = v
		}
	}
	return out
}

// renderGeneratedUserData writes the scenario's NodeGroup and has the
// agent binary generate the user data an EKS managed node group of the
// scenario's family would put on the instance.
func renderGeneratedUserData(agentBin, dir string, sc joinScenario, in userDataInput) ([]byte, error) {
	var buf bytes.Buffer
	data := struct {
		userDataInput
		Name, CA64, Image, InstanceType string
		Labels                          map[string]string
		Taints                          []corev1.Taint
	}{in, sc.labels["eks.amazonaws.com/nodegroup"], base64.StdEncoding.EncodeToString(in.CAPEM), generatedImage, sc.instanceType, nodeGroupLabels(sc.labels), sc.taints}
	if err := nodeGroupTemplate.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("render node group: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "nodegroup.yaml")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(agentBin, "userdata", "generate", "-f", path, "--family", sc.generated, "--as", "eks")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("nodeboot userdata generate: %w\n%s", err, stderr.Bytes())
	}
	return stdout.Bytes(), nil
}
