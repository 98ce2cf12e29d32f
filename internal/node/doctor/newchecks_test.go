package doctor

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/aws/ec2"
	"github.com/nodeboot/nodeboot/internal/aws/eks"
	"github.com/nodeboot/nodeboot/internal/config/eni"
	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

// TestDiskVerdict grades the file systems the kubelet, containerd and the
// logs write to against the kubelet's eviction thresholds.
func TestDiskVerdict(t *testing.T) {
	kubelet := []diskUse{{Path: "/var/lib/kubelet", What: "kubelet", Signal: "nodefs"}}
	containerd := []diskUse{{Path: "/var/lib/containerd", What: "containerd", Signal: "imagefs"}}
	gib := uint64(1 << 30)
	place := func(uses []diskUse, avail, inodesFree uint64) DiskPlace {
		return DiskPlace{Uses: uses, Stats: DiskStats{Total: 100 * gib, Avail: avail, Inodes: 1000, InodesFree: inodesFree}}
	}
	ev := func(places ...DiskPlace) DiskEvidence {
		return DiskEvidence{Places: places, Thresholds: kubeletEvictionDefaults}
	}
	checkVerdicts(t, CheckDisk, []verdictCase{
		{name: "room to spare", got: diskVerdict(ev(place(kubelet, 60*gib, 900), place(containerd, 60*gib, 900))), verdict: OK,
			evidence: []string{"/var/lib/kubelet (kubelet): 60.0 GiB of 100.0 GiB free", "nodefs.available<10%", "imagefs.available<15%"}},
		{name: "full kubelet disk", got: diskVerdict(ev(place(kubelet, 0, 900))), verdict: Fail,
			summary: []string{"below the kubelet's eviction threshold", "/var/lib/kubelet"}},
		{name: "containerd under imagefs.available", got: diskVerdict(ev(place(kubelet, 60*gib, 900), place(containerd, 10*gib, 900))), verdict: Fail,
			summary: []string{"/var/lib/containerd"}},
		{name: "inodes exhausted", got: diskVerdict(ev(place(kubelet, 60*gib, 20))), verdict: Fail, summary: []string{"2.0% of inodes free"}, evidence: []string{"20 of 1000 inodes free"}},
		{name: "close to the threshold", got: diskVerdict(ev(place(kubelet, 11*gib, 900))), verdict: Warn},
		{name: "space now, but the kubelet saw none", got: diskVerdict(DiskEvidence{Places: []DiskPlace{place(kubelet, 60*gib, 900)}, Thresholds: kubeletEvictionDefaults,
			NoSpaceLines: []string{`E1122 kubelet.go:1] "write /var/lib/kubelet/x: no space left on device"`}}), verdict: Warn, evidence: []string{"no space left on device"}},
	})
	if v, err := thresholdBytes("500Mi", 0); err != nil || v != 500<<20 {
		t.Errorf("500Mi = %v, %v", v, err)
	}
}

// TestGatherDiskGroupsFileSystems: places on one file system are judged
// together, with the kubelet's evictionHard over the defaults.
func TestGatherDiskGroupsFileSystems(t *testing.T) {
	root := t.TempDir()
	k := KubeletFacts{Config: KubeletConfig{EvictionHard: map[string]string{"nodefs.available": "5Gi"}}}
	stat := func(p string) (DiskStats, error) {
		if strings.Contains(p, "containerd") {
			return DiskStats{Device: 2, Total: 1 << 40, Avail: 1 << 39}, nil
		}
		return DiskStats{Device: 1, Total: 1 << 40, Avail: 1 << 39}, nil
	}
	write(t, root, "/var/lib/containerd/.keep", "")
	ev := gatherDisk(Files{Root: root}, k, stat, RuntimeEvidence{})
	if len(ev.Places) != 2 || len(ev.Places[0].Uses) != 3 || ev.Thresholds["nodefs.available"] != "5Gi" || ev.Thresholds["imagefs.available"] != "15%" {
		t.Errorf("places %+v thresholds %v", ev.Places, ev.Thresholds)
	}
}

// TestMaxPodsVerdict judges maxPods against what the CNI can address, with
// ipamd's mode from a real HTTP server speaking its introspection format.
func TestMaxPodsVerdict(t *testing.T) {
	m5large, _ := eni.Lookup("m5.large") // 3 ENIs × 10 IPv4: 29 pods, 434 with prefixes
	base := func(maxPods int32, cni, ipam string) MaxPodsEvidence {
		return MaxPodsEvidence{MaxPods: maxPods, InstanceType: "m5.large", Limits: m5large, Known: true, LimitsFrom: "table", CNI: cni, CNIFile: "/etc/cni/net.d/10-aws.conflist", IPAM: ipam}
	}
	checkVerdicts(t, CheckMaxPods, []verdictCase{
		{name: "fits", got: maxPodsVerdict(base(29, vpcCNIType, ipamSecondaryIPs)), verdict: OK, summary: []string{"fits the 29 pods"}},
		{name: "above the ENI limit in secondary-IP mode", got: maxPodsVerdict(base(110, vpcCNIType, ipamSecondaryIPs)), verdict: Fail,
			summary: []string{"maxPods 110 is above the 29 pods", "failed to assign an IP address"}},
		{name: "prefix delegation confirmed", got: maxPodsVerdict(base(110, vpcCNIType, ipamPrefixes)), verdict: OK},
		{name: "mode unknown: needs prefix delegation", got: maxPodsVerdict(base(110, vpcCNIType, "")), verdict: Warn, summary: []string{"could not be confirmed"}},
		{name: "above even prefix delegation", got: maxPodsVerdict(base(500, vpcCNIType, ipamPrefixes)), verdict: Fail},
		{name: "another CNI", got: maxPodsVerdict(base(250, "cilium-cni", "")), verdict: OK, summary: []string{"not the VPC CNI"}},
		{name: "unknown type", got: maxPodsVerdict(MaxPodsEvidence{MaxPods: 110, LimitsError: errors.New("type zz")}), verdict: Warn},
	})
	for want, cidrs := range map[string]string{ipamPrefixes: `"10.0.1.16/28":{}`, ipamSecondaryIPs: `"10.0.1.5/32":{}`} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/enis" {
				w.WriteHeader(404)
				return
			}
			_, _ = w.Write([]byte(`{"TotalIPs":14,"ENIs":{"eni-1":{"ID":"eni-1","IsPrimary":true,"AvailableIPv4Cidrs":{` + cidrs + `}}}}`))
		}))
		got, err := ipamdMode(context.Background(), srv.URL)
		srv.Close()
		if got != want || err != nil {
			t.Errorf("ipamd answering %s: %q, %v; want %q", cidrs, got, err, want)
		}
	}
}

func TestFirstCNI(t *testing.T) {
	root := t.TempDir()
	write(t, root, "/etc/cni/net.d/10-aws.conflist", `{"cniVersion":"0.4.0","name":"aws-cni","plugins":[{"type":"aws-cni"},{"type":"egress-cni"}]}`)
	write(t, root, "/etc/cni/net.d/05-cilium.conf", `{"cniVersion":"0.3.1","name":"cilium","type":"cilium-cni"}`)
	if got, file := firstCNI(Files{Root: root}); got != "cilium-cni" || file != "/etc/cni/net.d/05-cilium.conf" {
		t.Errorf("first CNI %q from %s", got, file)
	}
}

// TestSecurityGroupVerdict: the cluster security group must reach the
// kubelet's port, and the node the API server on 443.
func TestSecurityGroupVerdict(t *testing.T) {
	cluster := eks.ClusterInfo{ClusterSecurityGroupID: "sg-cluster", SecurityGroupIDs: []string{"sg-cp-extra"}}
	allOut := ec2.Permission{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}
	ev := func(groups ...ec2.SecurityGroup) KubeletPortEvidence {
		return KubeletPortEvidence{Port: 10250, Dialed: "10.0.0.5:10250", Cloud: CloudEvidence{Cluster: "prod", Info: cluster, Groups: groups}}
	}
	nodeSG := func(in ...ec2.Permission) ec2.SecurityGroup {
		return ec2.SecurityGroup{ID: "sg-node", Ingress: in, Egress: []ec2.Permission{allOut}}
	}
	checkVerdicts(t, CheckKubeletPort, []verdictCase{
		{name: "cluster group allowed on 10250", got: kubeletPortVerdict(ev(nodeSG(ec2.Permission{Protocol: "tcp", FromPort: 10250, ToPort: 10250, Groups: []string{"sg-cluster"}}))),
			verdict: OK, evidence: []string{"sg-node allows sg-cluster"}},
		{name: "in the cluster group (managed node groups)", got: kubeletPortVerdict(ev(ec2.SecurityGroup{ID: "sg-cluster",
			Ingress: []ec2.Permission{{Protocol: "-1", Groups: []string{"sg-cluster"}}}, Egress: []ec2.Permission{allOut}})), verdict: OK,
			evidence: []string{"in the cluster security group"}},
		{name: "only 443 open", got: kubeletPortVerdict(ev(nodeSG(ec2.Permission{Protocol: "tcp", FromPort: 443, ToPort: 443, Groups: []string{"sg-cluster"}}))),
			verdict: Fail, summary: []string{"the control plane cannot reach the kubelet", "TCP 10250", "kubectl logs, exec"}},
		{name: "no egress", got: kubeletPortVerdict(ev(ec2.SecurityGroup{ID: "sg-node", Ingress: []ec2.Permission{{Protocol: "tcp", FromPort: 1025, ToPort: 65535, Groups: []string{"sg-cp-extra"}}}})),
			verdict: Fail, summary: []string{"out to the cluster security group on TCP 443"}},
		{name: "not listening", got: kubeletPortVerdict(KubeletPortEvidence{Dialed: "127.0.0.1:10250", ListenErr: opErr(111)}), verdict: Fail,
			summary: []string{"nothing answers on the kubelet's port"}},
		{name: "groups unreadable", got: kubeletPortVerdict(KubeletPortEvidence{Dialed: "x", Cloud: CloudEvidence{Cluster: "prod", GroupsErr: errors.New("UnauthorizedOperation")}}),
			verdict: Warn},
		{name: "no EKS cluster", got: kubeletPortVerdict(KubeletPortEvidence{Dialed: "x"}), verdict: OK, summary: []string{"not checked"}},
	})
}

// TestAcceleratorVerdict: a GPU or Neuron instance needs its driver, a
// runtime that can use it, and a Node that advertises it.
func TestAcceleratorVerdict(t *testing.T) {
	gpuNode := &kubeapi.Node{Status: kubeapi.NodeStatus{Allocatable: map[string]string{resourceNVIDIAGPU: "1"}}}
	plainNode := &kubeapi.Node{Status: kubeapi.NodeStatus{Allocatable: map[string]string{"cpu": "4"}}}
	gpu := func(f func(*AcceleratorEvidence)) AcceleratorEvidence {
		ev := AcceleratorEvidence{InstanceType: "g4dn.xlarge", NVIDIAGPUs: 1, PCINVIDIA: 1, Driver: "NVRM version: 570.86", Runtimes: []string{"nvidia", "runc"}, Node: gpuNode}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	checkVerdicts(t, CheckAccelerators, []verdictCase{
		{name: "no accelerators", got: acceleratorVerdict(AcceleratorEvidence{InstanceType: "m5.large"}), verdict: OK, summary: []string{"no GPU or Neuron"}},
		{name: "GPU ready", got: acceleratorVerdict(gpu(nil)), verdict: OK, summary: []string{"Node advertises them"}},
		{name: "no driver", got: acceleratorVerdict(gpu(func(e *AcceleratorEvidence) { e.Driver = "" })), verdict: Fail, summary: []string{"no NVIDIA driver"}},
		{name: "no nvidia runtime", got: acceleratorVerdict(gpu(func(e *AcceleratorEvidence) { e.Runtimes = []string{"runc"} })), verdict: Fail,
			summary: []string{"no nvidia runtime"}},
		{name: "CDI instead of the runtime", got: acceleratorVerdict(gpu(func(e *AcceleratorEvidence) { e.Runtimes, e.CDI = []string{"runc"}, true })), verdict: OK},
		{name: "Node without nvidia.com/gpu", got: acceleratorVerdict(gpu(func(e *AcceleratorEvidence) { e.Node = plainNode })), verdict: Fail,
			summary: []string{"does not advertise nvidia.com/gpu"}},
		{name: "GPU seen on the bus of an unknown type", got: acceleratorVerdict(gpu(func(e *AcceleratorEvidence) { e.NVIDIAGPUs, e.Driver = -1, "" })), verdict: Fail},
		{name: "Neuron without its driver", got: acceleratorVerdict(AcceleratorEvidence{InstanceType: "inf2.xlarge", NeuronDevices: 1}), verdict: Fail,
			summary: []string{"no /dev/neuron"}},
		{name: "Neuron without its device plugin", got: acceleratorVerdict(AcceleratorEvidence{InstanceType: "inf2.xlarge", NeuronDevices: 1,
			NeuronNodes: []string{"/dev/neuron0"}, Node: plainNode}), verdict: Fail, summary: []string{"advertises no Neuron resource"}},
	})
}

// TestGatherAccelerators reads the PCI bus, the driver and containerd's
// runtimes from a node's files.
func TestGatherAccelerators(t *testing.T) {
	root := t.TempDir()
	write(t, root, "/sys/bus/pci/devices/0000:00:1e.0/vendor", "0x10de\n")
	write(t, root, "/sys/bus/pci/devices/0000:00:1e.0/class", "0x030200\n")
	write(t, root, "/sys/bus/pci/devices/0000:00:05.0/vendor", "0x1d0f\n")
	write(t, root, "/sys/bus/pci/devices/0000:00:05.0/class", "0x020000\n")
	write(t, root, "/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15\nGCC version\n")
	write(t, root, "/etc/containerd/config.toml", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\nruntime_type = \"io.containerd.runc.v2\"\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n")
	ev := gatherAccelerators(Files{Root: root}, "g4dn.xlarge", CloudEvidence{Type: ec2.Limits{NVIDIAGPUs: 1}})
	if ev.PCINVIDIA != 1 || !strings.Contains(ev.Driver, "570.86.15") || strings.Join(ev.Runtimes, ",") != "nvidia,runc" || ev.NVIDIAGPUs != 1 {
		t.Errorf("evidence %+v", ev)
	}
}
