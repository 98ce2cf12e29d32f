package agent

import (
	"os"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// benchStatus is what enrichment finds on an m5.large.
func benchStatus() hub.Status {
	return hub.Status{
		Instance: hub.InstanceStatus{ID: "i-0123456789abcdef0", Region: "us-west-2", Type: "m5.large", AvailabilityZone: "us-west-2a",
			MAC: "0e:49:61:0f:c3:11", PrivateDNSName: "ip-10-0-0-5.us-west-2.compute.internal", NodeIP: "10.0.0.5"},
		KubeletVersion: "v1.34.4", ContainerdVersion: "1.7.27", SandboxImage: DefaultSandboxImage,
		Hardware:      hub.Hardware{CPUs: 2, MemoryMiB: 7822},
		NetworkLimits: hub.NetworkLimits{DefaultENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Source: "table"},
	}
}

// BenchmarkDecodeMergeRender is the pure hot path of every boot: split a
// typical MIME user data (two NodeConfig parts and a shell part), decode,
// merge, validate, compute max pods and render every file.
func BenchmarkDecodeMergeRender(b *testing.B) {
	data, err := os.ReadFile("testdata/cases/mime-two-parts-and-shell/user-data")
	if err != nil {
		b.Fatal(err)
	}
	st := benchStatus()
	b.ReportAllocs()
	for b.Loop() {
		docs, problems := userdata.Split(diag.Source{URI: "imds://user-data"}, data)
		in := Input{Documents: docs, Problems: problems}
		for _, d := range docs {
			frags, p := DecodeDocument(d)
			in.Fragments = append(in.Fragments, frags...)
			in.Problems = append(in.Problems, p...)
		}
		spec, p, err := in.Merged()
		if err != nil || in.Problems.HasErrors() || p.HasErrors() {
			b.Fatalf("%v %v %v", err, in.Problems, p)
		}
		plan, err := MakePlan(hub.NodeConfig{Spec: spec, Status: st}, HostInputs{}, AllDaemons)
		if err != nil || len(plan.Files) < 6 {
			b.Fatalf("plan: %v (%d files)", err, len(plan.Files))
		}
	}
}

// BenchmarkRender is MakePlan alone for the same config.
func BenchmarkRender(b *testing.B) {
	data, err := os.ReadFile("testdata/cases/mime-two-parts-and-shell/user-data")
	if err != nil {
		b.Fatal(err)
	}
	docs, _ := userdata.Split(diag.Source{URI: "imds://user-data"}, data)
	var in Input
	for _, d := range docs {
		frags, _ := DecodeDocument(d)
		in.Fragments = append(in.Fragments, frags...)
	}
	spec, _, _ := in.Merged()
	cfg := hub.NodeConfig{Spec: spec, Status: benchStatus()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MakePlan(cfg, HostInputs{}, AllDaemons); err != nil {
			b.Fatal(err)
		}
	}
}
