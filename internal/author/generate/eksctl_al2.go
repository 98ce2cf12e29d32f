package generate

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// Files eksctl's Amazon Linux 2 cloud-config writes.
const (
	eksctlKubeletEnv   = "/etc/eksctl/kubelet.env"
	eksctlKubeletExtra = "/etc/eksctl/kubelet-extra.json"
	eksctlBootstrap    = "/var/lib/cloud/scripts/eksctl/bootstrap.al2.sh"
)

// eksctlCloudConfig writes what eksctl gives a self-managed Amazon Linux 2
// node group (eksctl gzips and base64-encodes it for the launch template;
// cloud-init undoes both): kubelet.env with the cluster and node settings,
// kubelet-extra.json with the kubelet config fields, and a script that
// calls bootstrap.sh with them, adds node-lifecycle and the instance ID
// (both from instance metadata) to the labels, merges kubelet-extra.json into the kubelet config and
// restarts the kubelet.
func eksctlCloudConfig(in *injection, own hub.Kubelet) ([]byte, error) {
	env := []string{"CLUSTER_NAME=" + in.cluster.Name}
	if ep := in.cluster.APIServerEndpoint; ep != "" {
		env = append(env, "API_SERVER_URL="+ep)
	}
	if ca := caText(in); ca != "" {
		env = append(env, "B64_CLUSTER_CA="+ca)
	}
	env = append(env, "NODE_LABELS="+labelsText(in.labels), "NODE_TAINTS="+taintsText(in.taints, in.producer))
	if in.maxPods > 0 {
		env = append(env, "MAX_PODS="+strconv.Itoa(int(in.maxPods)))
	}
	if in.dns != "" {
		env = append(env, "CLUSTER_DNS="+in.dns)
	}
	env = append(env, "CONTAINER_RUNTIME=containerd")
	extra := []byte("{}\n")
	if len(own.Config) > 0 {
		var err error
		if extra, err = json.MarshalIndent(own.Config, "", "  "); err != nil {
			return nil, err
		}
		extra = append(extra, '\n')
	}
	var b bytes.Buffer
	b.WriteString("#cloud-config\n")
	b.WriteString("runcmd:\n- " + eksctlBootstrap + "\n")
	b.WriteString("write_files:\n")
	writeFile(&b, eksctlKubeletEnv, "0644", strings.Join(env, "\n")+"\n")
	writeFile(&b, eksctlKubeletExtra, "0644", string(extra))
	writeFile(&b, eksctlBootstrap, "0755", eksctlBootstrapScript(in, len(own.Config) > 0))
	return b.Bytes(), nil
}

// writeFile adds one write_files entry with its content as a literal block.
func writeFile(b *bytes.Buffer, path, mode, content string) {
	b.WriteString("- path: " + path + "\n  owner: root:root\n  permissions: \"" + mode + "\"\n  content: |\n")
	for _, line := range strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") {
		b.WriteString("    " + line)
	}
	b.WriteString("\n")
}

// eksctlBootstrapScript reads kubelet.env and calls bootstrap.sh.
func eksctlBootstrapScript(in *injection, mergeExtra bool) string {
	args := []string{`--node-labels=${NODE_LABELS},` + LabelEksctlLifecycle + "=${INSTANCE_LIFECYCLE}," + LabelEksctlInstanceID + "=${INSTANCE_ID}"}
	if len(in.taints) > 0 {
		args = append(args, "--register-with-taints=${NODE_TAINTS}")
	}
	if in.maxPods > 0 {
		args = append(args, "--max-pods=${MAX_PODS}")
	}
	var b strings.Builder
	b.WriteString("#!/bin/bash\nset -o errexit -o pipefail -o nounset\n")
	b.WriteString("source " + eksctlKubeletEnv + "\n")
	b.WriteString("INSTANCE_ID=\"$(imds latest/meta-data/instance-id)\"\n")
	// Each instance's own lifecycle (on-demand or spot), as eksctl's
	// script reads it: a mixed-instances group has both.
	b.WriteString("INSTANCE_LIFECYCLE=\"$(imds latest/meta-data/instance-life-cycle)\"\n")
	b.WriteString(bootstrapScript + ` "${CLUSTER_NAME}"`)
	if in.cluster.APIServerEndpoint != "" {
		b.WriteString(` --apiserver-endpoint "${API_SERVER_URL}"`)
	}
	if len(in.cluster.CertificateAuthority) > 0 {
		b.WriteString(` --b64-cluster-ca "${B64_CLUSTER_CA}"`)
	}
	if in.dns != "" {
		b.WriteString(` --dns-cluster-ip "${CLUSTER_DNS}"`)
	}
	b.WriteString(` --container-runtime "${CONTAINER_RUNTIME}"`)
	b.WriteString(` --kubelet-extra-args "` + strings.Join(args, " ") + "\"\n")
	if mergeExtra {
		b.WriteString("config=/etc/kubernetes/kubelet/kubelet-config.json\n")
		b.WriteString(`jq -s '.[0] * .[1]' "$config" ` + eksctlKubeletExtra + ` > "$config.new"` + "\n")
		b.WriteString(`mv "$config.new" "$config"` + "\n")
		b.WriteString("systemctl daemon-reload\nsystemctl restart kubelet\n")
	}
	return b.String()
}
