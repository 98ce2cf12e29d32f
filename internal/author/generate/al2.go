package generate

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/nodeboot/nodeboot/internal/author/convert"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// bootstrapScript is where Amazon Linux 2 EKS AMIs keep the bootstrap script.
const bootstrapScript = "/etc/eks/bootstrap.sh"

// al2Part writes the producer's Amazon Linux 2 part.
func al2Part(in *injection, own hub.Kubelet) (Part, error) {
	switch in.producer {
	case ProducerEKS:
		return generatedPart(in.producer, userdata.FormatShell, convert.ContentTypeShell, []byte(eksAL2Script(in))), nil
	case ProducerKarpenter:
		return generatedPart(in.producer, userdata.FormatShell, convert.ContentTypeShell, []byte(karpenterAL2Script(in, own))), nil
	}
	body, err := eksctlCloudConfig(in, own)
	if err != nil {
		return Part{}, err
	}
	part := generatedPart(in.producer, userdata.FormatCloudConfig, "text/cloud-config", body)
	part.Spec = in.hubSpec(own)
	return part, nil
}

// caText is the cluster CA as bootstrap.sh takes it (base64), or "".
func caText(in *injection) string {
	if len(in.cluster.CertificateAuthority) == 0 {
		return ""
	}
	return base64.StdEncoding.EncodeToString(in.cluster.CertificateAuthority)
}

// eksAL2Script is the managed node group's part: variables, then one
// bootstrap.sh line with the kubelet arguments first.
func eksAL2Script(in *injection) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\nset -ex\n")
	var tail []string
	if ca := caText(in); ca != "" {
		b.WriteString("B64_CLUSTER_CA=" + convert.ShellQuote(ca) + "\n")
		tail = append(tail, "--b64-cluster-ca $B64_CLUSTER_CA")
	}
	if ep := in.cluster.APIServerEndpoint; ep != "" {
		b.WriteString("API_SERVER_URL=" + convert.ShellQuote(ep) + "\n")
		tail = append(tail, "--apiserver-endpoint $API_SERVER_URL")
	}
	if in.dns != "" {
		b.WriteString("K8S_CLUSTER_DNS_IP=" + in.dns + "\n")
		tail = append(tail, "--dns-cluster-ip $K8S_CLUSTER_DNS_IP")
	}
	args := []string{"--node-labels=" + labelsText(in.labels)}
	if len(in.taints) > 0 {
		args = append(args, "--register-with-taints="+taintsText(in.taints, in.producer))
	}
	if in.maxPods > 0 {
		args = append(args, "--max-pods="+strconv.Itoa(int(in.maxPods)))
		tail = append(tail, "--use-max-pods false")
	}
	line := []string{bootstrapScript, convert.ShellQuote(in.cluster.Name), "--kubelet-extra-args", convert.SingleQuote(strings.Join(args, " "))}
	b.WriteString(strings.Join(append(line, tail...), " ") + "\n")
	return b.String()
}

// karpenterAL2Script is Karpenter's part: output logged, then bootstrap.sh
// with its options on continuation lines.
func karpenterAL2Script(in *injection, own hub.Kubelet) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash -xe\n")
	b.WriteString("exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n")
	b.WriteString(bootstrapScript + " " + convert.SingleQuote(in.cluster.Name))
	if ep := in.cluster.APIServerEndpoint; ep != "" {
		b.WriteString(" --apiserver-endpoint " + convert.SingleQuote(ep))
	}
	if ca := caText(in); ca != "" {
		b.WriteString(" --b64-cluster-ca " + convert.SingleQuote(ca))
	}
	args := []string{`--node-labels="` + labelsText(in.labels) + `"`}
	if len(in.taints) > 0 {
		args = append(args, `--register-with-taints="`+taintsText(in.taints, in.producer)+`"`)
	}
	if in.maxPods > 0 {
		b.WriteString(" \\\n--use-max-pods false")
		args = append(args, "--max-pods="+strconv.Itoa(int(in.maxPods)))
	}
	extra, left := convert.KubeletArgs(own, "Karpenter's bootstrap.sh call", false)
	for _, l := range left {
		in.notes.add("%s", l)
	}
	args = append(args, extra...)
	b.WriteString(" \\\n--kubelet-extra-args " + convert.SingleQuote(strings.Join(args, " ")) + "\n")
	return b.String()
}
