package decode

import (
	"syscall"
	"testing"
	"time"

	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// typicalDocument is a 39-line NodeConfig: cluster with a 2048-bit RSA CA
// bundle (as EKS issues), containerd TOML, environment, local storage,
// nameservers, a kubelet.config with nested maps, flags and feature gates.
func typicalDocument(b *testing.B) []byte {
	b.Helper()
	return golden.Read(b, "testdata/valid/typical.yaml")
}

// BenchmarkNodeConfig decodes the typical document with every check. It
// also reports cpu-ns/op (process CPU time), which stays meaningful when
// the machine is shared and wall time is inflated by waiting for a CPU.
func BenchmarkNodeConfig(b *testing.B) {
	doc := userdata.Document{Source: diag.Source{URI: "imds://user-data", Line: 1}, Format: userdata.FormatNodeConfig, Data: typicalDocument(b)}
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if _, ps := NodeConfig(doc); len(ps) != 0 {
			b.Fatal(ps)
		}
	}
	b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkYAMLParseOnly is the floor set by the YAML parser: the same
// document parsed into a yaml.Node and nothing else.
func BenchmarkYAMLParseOnly(b *testing.B) {
	data := typicalDocument(b)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// cpuTime is the user+system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
