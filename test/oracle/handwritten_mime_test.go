//go:build oracle

package oracle

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/mimetest"
)

// mimeDoc is a multipart/mixed message of the parts, each a header block
// and a body.
func mimeDoc(parts ...[2]string) string {
	var b strings.Builder
	b.WriteString("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n")
	for _, p := range parts {
		b.WriteString("--BOUNDARY\n" + p[0] + "\n\n" + p[1] + "\n")
	}
	b.WriteString("--BOUNDARY--\n")
	return b.String()
}

const ncType = "Content-Type: application/node.eks.aws"

func init() {
	add := func(name, text string) { handWritten[name] = text }
	base := header + "spec:\n{{CLUSTER}}"
	script := [2]string{"Content-Type: text/x-shellscript; charset=\"us-ascii\"", "#!/bin/bash\necho hi"}
	add("mime-charset", mimeDoc([2]string{ncType + "; charset=\"utf-8\"", base}))
	add("mime-shellscript-first", mimeDoc(script, [2]string{ncType, base}))
	add("mime-base64-cte", mimeDoc([2]string{ncType + "\nContent-Transfer-Encoding: base64", base64.StdEncoding.EncodeToString([]byte(header + "spec:\n" + clusterSection))}))
	add("mime-7bit-cte", mimeDoc([2]string{ncType + "\nContent-Transfer-Encoding: 7bit", base}))
	add("mime-quoted-printable", mimeDoc([2]string{ncType + "\nContent-Transfer-Encoding: quoted-printable", base + "  kubelet:\n    flags:\n      - --node-labels=3Da=3Db\n"}))
	merge := func(second string) string {
		return mimeDoc([2]string{ncType, base + "  kubelet:\n    config:\n      maxPods: 20\n      clusterDNS: [10.100.0.10]\n      evictionHard: {memory.available: 100Mi}\n    flags: [--v=2, --node-labels=a=b]\n"},
			[2]string{ncType, header + "spec:\n" + second})
	}
	add("merge-scalar-override", merge("  kubelet:\n    config:\n      maxPods: 40\n"))
	add("merge-list-second", merge("  kubelet:\n    config:\n      clusterDNS: [10.100.0.53]\n    flags: [--v=4]\n"))
	add("merge-map-second", merge("  kubelet:\n    config:\n      evictionHard: {nodefs.available: 5%}\n"))
	add("merge-cluster-second", merge("  cluster:\n    name: other\n    cidr: 10.200.0.0/16\n"))
	add("merge-empty-list", merge("  kubelet:\n    flags: []\n"))
	add("merge-null", merge("  kubelet:\n    config:\n      maxPods: null\n"))
	add("merge-featuregates", mimeDoc([2]string{ncType, base + "  featureGates: {InstanceIdNodeName: true}\n"}, [2]string{ncType, header + "spec:\n  featureGates: {InstanceIdNodeName: false}\n"}))
	add("merge-environment", mimeDoc([2]string{ncType, base + "  instance:\n    environment:\n      default: {A: \"1\", B: \"2\"}\n"}, [2]string{ncType, header + "spec:\n  instance:\n    environment:\n      default: {A: \"3\"}\n"}))
	add("merge-containerd-config", mimeDoc([2]string{ncType, base + "  containerd:\n    config: |\n      [plugins.\"io.containerd.grpc.v1.cri\".registry]\n      config_path = \"/a\"\n"}, [2]string{ncType, header + "spec:\n  containerd:\n    config: |\n      [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n      discard_unpacked_layers = false\n"}))
	add("merge-containerd-spec", mimeDoc([2]string{ncType, base + "  containerd:\n    baseRuntimeSpec: {process: {rlimits: [{type: RLIMIT_NOFILE, soft: 1, hard: 2}]}}\n"}, [2]string{ncType, header + "spec:\n  containerd:\n    baseRuntimeSpec: {linux: {sysctl: {a.b: \"1\"}}}\n"}))
	add("merge-network", mimeDoc([2]string{ncType, base + "  instance:\n    network: {nameservers: [10.0.0.2], domains: [a.example]}\n"}, [2]string{ncType, header + "spec:\n  instance:\n    network: {nameservers: [10.0.0.3]}\n"}))
	add("merge-max-pods-expression", mimeDoc([2]string{ncType, base + "  kubelet:\n    maxPodsExpression: max_pods + 2\n    config: {maxPods: 11}\n"}, [2]string{ncType, header + "spec:\n  kubelet:\n    config: {maxPods: 12}\n"}))
	add("mime-nested-multipart", "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"OUTER\"\n\n--OUTER\nContent-Type: multipart/alternative; boundary=\"INNER\"\n\n--INNER\n"+ncType+"\n\n"+base+"\n--INNER--\n--OUTER--\n")
	add("mime-no-nodeconfig", mimeDoc(script))
	add("mime-uppercase-type", mimeDoc([2]string{"Content-Type: Application/Node.EKS.aws", base}))
	add("mime-crlf", crlf(mimeDoc([2]string{ncType, base})))
	add("gzip-part-base64", mimeDoc([2]string{ncType, "{{GZIPB64}}"}))
	handTransforms["gzip-part-base64"] = func(t testing.TB, text string) []byte {
		inner := strings.ReplaceAll(header+"spec:\n"+clusterSection, "{{CA}}", handCA)
		return []byte(strings.ReplaceAll(text, "{{GZIPB64}}", base64.StdEncoding.EncodeToString(mimetest.Gzip(t, inner))))
	}
	handOutcomes["whole-gzip"] = "whole-payload-decoded-from-every-source"
	add("whole-gzip", base)
	handTransforms["whole-gzip"] = func(t testing.TB, text string) []byte { return mimetest.Gzip(t, text) }
	handOutcomes["whole-base64"] = "whole-payload-decoded-from-every-source"
	add("whole-base64", base)
	handTransforms["whole-base64"] = func(t testing.TB, text string) []byte { return []byte(base64.StdEncoding.EncodeToString([]byte(text))) }
	handOutcomes["whole-base64-gzip-mime"] = "whole-payload-decoded-from-every-source"
	add("whole-base64-gzip-mime", mimeDoc([2]string{ncType, base}))
	handTransforms["whole-base64-gzip-mime"] = func(t testing.TB, text string) []byte {
		return []byte(base64.StdEncoding.EncodeToString(mimetest.Gzip(t, text)))
	}
}
