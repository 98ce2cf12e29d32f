package generate

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/nodeboot/nodeboot/internal/author/convert"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// bootstrapFileLine sets the path of the Windows bootstrap script.
const bootstrapFileLine = `[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\Amazon\EKS\Start-EKSBootstrap.ps1"` + "\n"

// windowsPart writes the producer's Start-EKSBootstrap.ps1 call (the
// <powershell> block around it is added when the parts are assembled).
func windowsPart(in *injection, own hub.Kubelet) Part {
	args := []string{"--node-labels=" + labelsText(in.labels)}
	if in.producer == ProducerKarpenter {
		args[0] = `--node-labels="` + labelsText(in.labels) + `"`
	}
	if len(in.taints) > 0 {
		taints := "--register-with-taints=" + taintsText(in.taints, in.producer)
		if in.producer == ProducerKarpenter {
			taints = `--register-with-taints="` + taintsText(in.taints, in.producer) + `"`
		}
		args = append(args, taints)
	}
	if in.maxPods > 0 {
		args = append(args, "--max-pods="+strconv.Itoa(int(in.maxPods)))
	}
	extra, left := convert.KubeletArgs(own, "Start-EKSBootstrap.ps1", true)
	for _, l := range left {
		in.notes.add("%s", l)
	}
	args = append(args, extra...)
	var b bytes.Buffer
	b.WriteString(bootstrapFileLine)
	b.WriteString("& $EKSBootstrapScriptFile")
	if in.producer == ProducerEksctl {
		writeEksctlWindowsParams(&b, in, args)
	} else {
		writeWindowsParams(&b, in, args)
	}
	part := generatedPart(in.producer, FormatPowerShell, "", b.Bytes())
	part.Spec = in.hubSpec(own)
	return part
}

// writeWindowsParams writes single-quoted parameters: EKS (inferred) in
// the documented order, Karpenter with the kubelet arguments before the
// DNS address and no output redirection.
func writeWindowsParams(b *bytes.Buffer, in *injection, args []string) {
	param := func(name, value string) {
		if value != "" {
			b.WriteString(" -" + name + " " + convert.PowerShellQuote(value))
		}
	}
	param("EKSClusterName", in.cluster.Name)
	param("APIServerEndpoint", in.cluster.APIServerEndpoint)
	param("Base64ClusterCA", caText(in))
	if in.producer == ProducerKarpenter {
		param("KubeletExtraArgs", strings.Join(args, " "))
		b.WriteString("\n")
		return
	}
	param("DNSClusterIP", in.dns)
	param("KubeletExtraArgs", strings.Join(args, " "))
	b.WriteString(" 3>&1 4>&1 5>&1 6>&1\n")
}

// writeEksctlWindowsParams writes eksctl's double-quoted parameters,
// leaving out empty ones.
func writeEksctlWindowsParams(b *bytes.Buffer, in *injection, args []string) {
	param := func(name, value string) {
		if value != "" {
			b.WriteString(" -" + name + " " + powershellDoubleQuote(value))
		}
	}
	param("EKSClusterName", in.cluster.Name)
	param("APIServerEndpoint", in.cluster.APIServerEndpoint)
	param("Base64ClusterCA", caText(in))
	if !strings.Contains(in.cluster.CIDR, ":") {
		param("ServiceCIDR", in.cluster.CIDR)
	}
	param("DNSClusterIP", in.dns)
	param("ContainerRuntime", "containerd")
	param("KubeletExtraArgs", strings.Join(args, " "))
	b.WriteString(" 3>&1 4>&1 5>&1 6>&1\n")
}

// powershellDoubleQuote quotes s as an expandable PowerShell string,
// escaping what PowerShell would expand or end it with.
func powershellDoubleQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '`', '$', '"', '\u201C', '\u201D', '\u201E':
			b.WriteByte('`')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// powershellBody returns a user document's PowerShell without the
// <powershell> tags around it.
func powershellBody(data []byte) []byte {
	t := bytes.TrimSpace(data)
	lower := bytes.ToLower(t)
	if bytes.HasPrefix(lower, []byte("<powershell>")) {
		t = t[len("<powershell>"):]
		if i := bytes.LastIndex(bytes.ToLower(t), []byte("</powershell>")); i >= 0 {
			t = t[:i]
		}
	}
	return append(bytes.TrimSpace(t), '\n')
}
