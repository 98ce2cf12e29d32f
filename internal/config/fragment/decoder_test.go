package fragment

import (
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// eksctlMaxPodsSed is the script eksctl v0.215.0 writes into an AL2
// managed node group's launch template for maxPodsPerNode: 58.
const eksctlMaxPodsSed = "#!/bin/sh\nset -ex\nsed -i 's/KUBELET_EXTRA_ARGS=$2/KUBELET_EXTRA_ARGS=\"$2 --max-pods=58\"/' /etc/eks/bootstrap.sh\n"

// eksCall is EKS's bootstrap.sh part for a managed node group.
const eksCall = "#!/bin/bash\nset -ex\n/etc/eks/bootstrap.sh prod --kubelet-extra-args '--node-labels=eks.amazonaws.com/nodegroup=ng-1 --max-pods=29' --apiserver-endpoint https://x.example --use-max-pods false\n"

// TestDecoderCarriesBootstrapPatch: eksctl's sed patch of bootstrap.sh
// applies to the bootstrap.sh calls of later documents, as the patched
// option loop does: it appends its flags to --kubelet-extra-args (so its
// --max-pods wins), and changes nothing for a call before it or one
// without --kubelet-extra-args. Any other edit of bootstrap.sh is still
// reported as having no effect.
func TestDecoderCarriesBootstrapPatch(t *testing.T) {
	tests := []struct {
		name        string
		scripts     []string
		wantMaxPods string
		warnings    int
	}{
		{name: "eksctl's patch before EKS's call", scripts: []string{eksctlMaxPodsSed, eksCall}, wantMaxPods: "58"},
		{name: "an unrelated script first", scripts: []string{"#!/bin/bash\necho hi\n", eksctlMaxPodsSed, eksCall}, wantMaxPods: "58"},
		{name: "the patch after the call", scripts: []string{eksCall, eksctlMaxPodsSed}, wantMaxPods: "29"},
		{name: "a call without --kubelet-extra-args", scripts: []string{eksctlMaxPodsSed,
			"#!/bin/bash\n/etc/eks/bootstrap.sh prod --apiserver-endpoint https://x.example\n"}, wantMaxPods: ""},
		{name: "another sed of bootstrap.sh", scripts: []string{
			"#!/bin/sh\nsed -i 's/--max-pods=[0-9]*/--max-pods=58/' /etc/eks/bootstrap.sh\n", eksCall}, wantMaxPods: "29", warnings: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Decoder
			var maxPods string
			var problems diag.List
			for i, s := range tt.scripts {
				doc := userdata.Document{Source: diag.Source{URI: "imds://user-data", Part: i + 1}, Format: userdata.FormatShell, Data: []byte(s)}
				frags, p := d.Decode(doc)
				problems = append(problems, p...)
				for _, f := range frags {
					maxPods = string(f.Spec.Kubelet.Config["maxPods"])
				}
			}
			if problems.HasErrors() || len(problems) != tt.warnings {
				t.Fatalf("problems %v, want %d warnings", problems, tt.warnings)
			}
			if maxPods != tt.wantMaxPods {
				t.Errorf("maxPods %q, want %q", maxPods, tt.wantMaxPods)
			}
		})
	}
}

// TestDecodeEksctlCloudConfig: eksctl's AL2 cloud-config is read as the
// bootstrap.sh call its script makes; other cloud-config contributes
// nothing.
func TestDecodeEksctlCloudConfig(t *testing.T) {
	eksctl := "#cloud-config\nruncmd:\n- - /var/lib/cloud/scripts/eksctl/bootstrap.al2.sh\nwrite_files:\n- content: |-\n    NODE_LABELS=a=b\n    MAX_PODS=58\n    CLUSTER_DNS=10.100.0.10\n    CONTAINER_RUNTIME=containerd\n    CLUSTER_NAME=prod\n    API_SERVER_URL=https://x.example\n  path: /etc/eksctl/kubelet.env\n"
	for _, tt := range []struct {
		name, data string
		want       int
	}{
		{"eksctl's layout", eksctl, 1},
		{"someone else's cloud-config", "#cloud-config\nruncmd:\n- echo hi\n", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			frags, problems := Decode(userdata.Document{Source: diag.Source{URI: "u"}, Format: userdata.FormatCloudConfig, Data: []byte(tt.data)})
			if problems.HasErrors() || len(frags) != tt.want {
				t.Fatalf("%d fragments, want %d: %v", len(frags), tt.want, problems)
			}
			if tt.want == 1 && (string(frags[0].Spec.Kubelet.Config["maxPods"]) != "58" || !strings.Contains(frags[0].Source.Format, "eksctl")) {
				t.Errorf("spec %+v from %+v", frags[0].Spec.Kubelet, frags[0].Source)
			}
		})
	}
}
