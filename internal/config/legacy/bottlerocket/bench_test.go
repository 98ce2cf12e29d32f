package bottlerocket

import (
	"encoding/base64"
	"os"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// typicalSettings is what an EKS managed node group merges for a
// Bottlerocket node: dotted keys with literal strings, labels, taints,
// then the user's tables (host containers).
func typicalSettings(tb testing.TB) string {
	tb.Helper()
	pem, err := os.ReadFile("testdata/ca.pem")
	if err != nil {
		tb.Fatal(err)
	}
	return `settings.kubernetes.api-server = 'https://0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com'
settings.kubernetes.cluster-certificate = '` + base64.StdEncoding.EncodeToString(pem) + `'
settings.kubernetes.cluster-name = 'prod'
settings.kubernetes.cluster-dns-ip = '10.100.0.10'
settings.kubernetes.max-pods = 58
settings.kubernetes.node-labels.'eks.amazonaws.com/nodegroup-image' = 'ami-0123456789abcdef0'
settings.kubernetes.node-labels.'eks.amazonaws.com/capacityType' = 'ON_DEMAND'
settings.kubernetes.node-labels.'eks.amazonaws.com/nodegroup' = 'core'
settings.kubernetes.node-taints.dedicated = 'core:NoSchedule'
settings.kubernetes.kube-reserved.memory = '893Mi'
settings.kubernetes.eviction-hard.'memory.available' = '100Mi'
settings.kubernetes.image-gc-high-threshold-percent = 85
settings.kubernetes.shutdown-grace-period = '30s'

[settings.host-containers.admin]
enabled = false
[settings.host-containers.control]
enabled = true
`
}

// BenchmarkDecode decodes a typical managed-node-group settings file.
func BenchmarkDecode(b *testing.B) {
	doc := userdata.Document{Source: diag.Source{URI: "imds://user-data", Line: 1}, Data: []byte(typicalSettings(b))}
	b.ReportAllocs()
	b.SetBytes(int64(len(doc.Data)))
	for b.Loop() {
		if _, problems := Decode(doc); problems.HasErrors() {
			b.Fatalf("problems: %v", problems)
		}
	}
}
