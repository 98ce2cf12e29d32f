package convert

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

func TestWindowsMaxPodsFor(t *testing.T) {
	tests := []struct {
		name, instanceType string
		want               int
		known              bool
	}{
		{name: "m5.large", instanceType: "m5.large", want: 9, known: true},
		{name: "m5.xlarge", instanceType: "m5.xlarge", want: 14, known: true},
		{name: "t3.micro", instanceType: "t3.micro", want: 1, known: true},
		{name: "unknown type", instanceType: "m5.huge"},
		{name: "case matters", instanceType: "M5.large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, known := windowsMaxPodsFor(tc.instanceType)
			if got != tc.want || known != tc.known {
				t.Fatalf("windowsMaxPodsFor(%q) = %d, %v; want %d, %v", tc.instanceType, got, known, tc.want, tc.known)
			}
		})
	}
}

func TestLabeledInstanceType(t *testing.T) {
	tests := []struct {
		name              string
		flags             []string
		wantType, wantLbl string
	}{
		{name: "no flags"},
		{name: "other labels", flags: []string{"--node-labels=team=a"}},
		{name: "current label", flags: []string{"--v=2", "--node-labels=team=a,node.kubernetes.io/instance-type=c5.large"},
			wantType: "c5.large", wantLbl: "node.kubernetes.io/instance-type"},
		{name: "beta label", flags: []string{"--node-labels=beta.kubernetes.io/instance-type=m5.large"},
			wantType: "m5.large", wantLbl: "beta.kubernetes.io/instance-type"},
		{name: "current label preferred", flags: []string{"--node-labels=beta.kubernetes.io/instance-type=m5.large,node.kubernetes.io/instance-type=m5.xlarge"},
			wantType: "m5.xlarge", wantLbl: "node.kubernetes.io/instance-type"},
		{name: "last flag wins", flags: []string{"--node-labels=node.kubernetes.io/instance-type=m5.large", "--node-labels=node.kubernetes.io/instance-type=c5.xlarge"},
			wantType: "c5.xlarge", wantLbl: "node.kubernetes.io/instance-type"},
		{name: "unparsable labels skipped", flags: []string{"--node-labels=node.kubernetes.io/instance-type=m5.large", "--node-labels=oops"},
			wantType: "m5.large", wantLbl: "node.kubernetes.io/instance-type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			typ, label, ok := labeledInstanceType(tc.flags)
			if typ != tc.wantType || label != tc.wantLbl || ok != (tc.wantType != "") {
				t.Fatalf("labeledInstanceType = %q, %q, %v; want %q, %q", typ, label, ok, tc.wantType, tc.wantLbl)
			}
		})
	}
}

// TestWindowsMaxPods checks that kubelet maxPods never reaches
// -KubeletExtraArgs and that the note gives the Windows rule and, when the
// labels name a known instance type, its figure.
func TestWindowsMaxPods(t *testing.T) {
	const rule = "spec.kubelet.config[maxPods]: 58 is a Linux max pods figure and is not passed; Windows max pods = IPv4 addresses per ENI - 1 (m5.large: 9), which Start-EKSBootstrap.ps1 applies by itself; set it per instance type with --max-pods in spec.kubelet.flags"
	maxPods := map[string]json.RawMessage{"maxPods": json.RawMessage(`58`)}
	tests := []struct {
		name     string
		kubelet  hub.Kubelet
		wantNote []string
		wantArgs string
	}{
		{name: "no max pods", kubelet: hub.Kubelet{Flags: []string{"--v=2"}}, wantArgs: "-KubeletExtraArgs '--v=2'"},
		{name: "null max pods", kubelet: hub.Kubelet{Config: map[string]json.RawMessage{"maxPods": json.RawMessage(`null`)}}},
		{name: "rule only", kubelet: hub.Kubelet{Config: maxPods}, wantNote: []string{rule}},
		{name: "known instance type", kubelet: hub.Kubelet{Config: maxPods, Flags: []string{"--node-labels=node.kubernetes.io/instance-type=m5.xlarge"}},
			wantNote: []string{rule + "; m5.xlarge (node label node.kubernetes.io/instance-type) gets 14"},
			wantArgs: "-KubeletExtraArgs '--node-labels=node.kubernetes.io/instance-type=m5.xlarge'"},
		{name: "unknown instance type", kubelet: hub.Kubelet{Config: maxPods, Flags: []string{"--node-labels=beta.kubernetes.io/instance-type=x9.mega"}},
			wantNote: []string{rule + "; x9.mega (node label beta.kubernetes.io/instance-type) is not in nodeboot's ENI table"},
			wantArgs: "-KubeletExtraArgs '--node-labels=beta.kubernetes.io/instance-type=x9.mega'"},
		{name: "explicit flag is passed", kubelet: hub.Kubelet{Config: maxPods, Flags: []string{"--max-pods=14"}},
			wantNote: []string{rule}, wantArgs: "-KubeletExtraArgs '--max-pods=14'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, notes, err := Windows(hub.Spec{Cluster: hub.Cluster{Name: "a"}, Kubelet: tc.kubelet})
			if err != nil {
				t.Fatal(err)
			}
			if len(notes) == 0 {
				notes = nil
			}
			if !reflect.DeepEqual([]string(notes), tc.wantNote) {
				t.Errorf("notes\n got %q\nwant %q", notes, tc.wantNote)
			}
			args := ""
			if i := strings.Index(string(out), "-KubeletExtraArgs '"); i >= 0 {
				args, _, _ = strings.Cut(string(out[i:]), " `")
			}
			if args != tc.wantArgs {
				t.Errorf("extra args %q, want %q", args, tc.wantArgs)
			}
		})
	}
}

// TestWindowsServiceCIDR checks that an IPv4 service CIDR is passed as
// -ServiceCIDR and an IPv6 one is noted, never dropped silently.
func TestWindowsServiceCIDR(t *testing.T) {
	tests := []struct {
		name, cidr, wantParam string
		wantNotes             []string
	}{
		{name: "ipv4", cidr: "172.20.0.0/16", wantParam: "-ServiceCIDR '172.20.0.0/16'"},
		{name: "ipv6", cidr: "fd00:10:96::/108", wantNotes: []string{"spec.cluster.cidr: Windows nodes are IPv4-only"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, notes, err := Windows(hub.Spec{Cluster: hub.Cluster{Name: "a", CIDR: tc.cidr}})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(out), "-ServiceCIDR"); got != (tc.wantParam != "") || !strings.Contains(string(out), tc.wantParam) {
				t.Errorf("output lacks %q or passes an unwanted -ServiceCIDR:\n%s", tc.wantParam, out)
			}
			if len(notes) == 0 {
				notes = nil
			}
			if !reflect.DeepEqual([]string(notes), tc.wantNotes) {
				t.Errorf("notes %q, want %q", notes, tc.wantNotes)
			}
		})
	}
}
