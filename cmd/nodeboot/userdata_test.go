package main

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// nodeGroupFile has every NodeGroup field: cluster endpoint, CA and
// service CIDR (so no EKS call is needed), m5.large (29 pods), spot, a
// launch template, a label, a taint and kubelet settings.
const nodeGroupFile = "../../internal/author/generate/testdata/nodegroup.yaml"

// labelsBy are the labels each producer's user data gives the node.
var labelsBy = map[string][]string{
	"eks": {"eks.amazonaws.com/nodegroup-image=ami-0123456789abcdef0", "eks.amazonaws.com/capacityType=SPOT",
		"eks.amazonaws.com/nodegroup=payments", "eks.amazonaws.com/sourceLaunchTemplateId=lt-0123456789abcdef0",
		"eks.amazonaws.com/sourceLaunchTemplateVersion=3", "team=payments"},
	"eksctl":    {"alpha.eksctl.io/cluster-name=prod", "alpha.eksctl.io/nodegroup-name=payments", "team=payments"},
	"karpenter": {"karpenter.sh/capacity-type=spot", "karpenter.sh/nodepool=payments", "team=payments"},
}

// TestGeneratedUserDataBootsTheNodeItDescribes is the round trip: the
// user data `userdata generate` writes for each family nodeboot boots and
// each producer passes `config check`, and `init` renders, from the real
// AWS metadata mock serving it, the node the NodeGroup describes: the
// cluster, every label, the taint, max pods and the kubelet settings.
func TestGeneratedUserDataBootsTheNodeItDescribes(t *testing.T) {
	awstest.IsolateEnv(t)
	ec2 := awstest.NewEC2(t)
	ec2.AddInstance(awstest.Instance{ID: aemmtest.DefaultInstanceID, InstanceType: "m5.large", PrivateDNSName: aemmtest.DefaultHostname})
	for _, family := range []string{"al2023", "al2", "bottlerocket"} {
		for _, producer := range []string{"eks", "eksctl", "karpenter"} {
			if family == "al2" && producer == "eksctl" {
				continue // eksctl's AL2 cloud-config runs bootstrap.sh itself; nodeboot reads no cloud-config
			}
			t.Run(family+"-"+producer, func(t *testing.T) {
				gen := run(t, nil, "userdata", "generate", "-f", nodeGroupFile, "--family", family, "--as", producer)
				if gen.code != 0 {
					t.Fatalf("generate: exit %d\n%s", gen.code, gen.stderr)
				}
				dir := t.TempDir()
				path := filepath.Join(dir, "user-data")
				if err := os.WriteFile(path, []byte(gen.stdout), 0o644); err != nil {
					t.Fatal(err)
				}
				check := run(t, nil, "config", "check", "-c", "file://"+path, "--target", "self-managed", "--family", family)
				if check.code != 0 || strings.Contains(check.stdout, "error:") || !strings.Contains(check.stdout, "configuration is valid") {
					t.Fatalf("config check: exit %d\n%s%s", check.code, check.stdout, check.stderr)
				}
				root := bootFrom(t, []byte(gen.stdout), ec2.URL)
				assertNode(t, root, labelsBy[producer], producer == "karpenter")
			})
		}
	}
}

// bootFrom serves userData from AEMM and runs init --skip run under a new
// root, returning it.
func bootFrom(t *testing.T, userData []byte, ec2URL string) string {
	t.Helper()
	// Karpenter's AL2 and Bottlerocket parts carry no cluster DNS address:
	// bootstrap.sh and Bottlerocket derive it from the VPC CIDR, which
	// for 192.168.0.0/16 gives the address of the default 10.100.0.0/16.
	imdsURL := aemmtest.Start(t, aemmtest.Config{UserData: userData, VPCCIDRs: []string{"192.168.0.0/16"}})
	root := t.TempDir()
	fakeMachine(t, root)
	env := []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + imdsURL, "AWS_ENDPOINT_URL_EC2=" + ec2URL}
	res := run(t, env, "init", "--skip", "run", "--root", root)
	if res.code != 0 {
		t.Fatalf("init: exit %d\n%s", res.code, res.stderr)
	}
	return root
}

// assertNode checks the rendered kubelet files against the NodeGroup.
func assertNode(t *testing.T, root string, labels []string, karpenter bool) {
	t.Helper()
	args := mustRead(t, filepath.Join(root, "etc/eks/kubelet/environment"))
	config := mustRead(t, filepath.Join(root, "etc/kubernetes/kubelet/config.json"))
	var dropIns strings.Builder
	entries, _ := os.ReadDir(filepath.Join(root, "etc/kubernetes/kubelet/config.json.d"))
	for _, e := range entries {
		dropIns.WriteString(mustRead(t, filepath.Join(root, "etc/kubernetes/kubelet/config.json.d", e.Name())))
	}
	kubeconfig := mustRead(t, filepath.Join(root, "var/lib/kubelet/kubeconfig"))
	for _, l := range labels {
		if !strings.Contains(args, l) {
			t.Errorf("kubelet args lack the label %s:\n%s", l, args)
		}
	}
	taints := []string{"dedicated=payments:NoSchedule"}
	if karpenter {
		taints = append(taints, "karpenter.sh/unregistered")
	}
	for _, taint := range taints {
		key, _, _ := strings.Cut(taint, "=")
		if !strings.Contains(args, taint) && !strings.Contains(dropIns.String(), `"key": "`+key+`"`) {
			t.Errorf("the node does not register with the taint %s:\nargs: %s\ndrop-ins: %s", taint, args, dropIns.String())
		}
	}
	for _, want := range []string{`"maxPods": 29`, `"10.100.0.10"`} {
		if !strings.Contains(config, want) && !strings.Contains(dropIns.String(), want) {
			t.Errorf("kubelet config lacks %s:\n%s\n%s", want, config, dropIns.String())
		}
	}
	if !strings.Contains(kubeconfig, "server: https://0123456789ABCDEF0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com") ||
		!strings.Contains(kubeconfig, "prod") {
		t.Errorf("kubeconfig is not the NodeGroup's cluster:\n%s", kubeconfig)
	}
}

// TestMergePreviewNamesKarpenterOverrides drives userdata merge the way a
// Karpenter user would: their NodeConfig sets taints and maxPods, which
// Karpenter's part replaces; --strict turns that into exit 1.
func TestMergePreviewNamesKarpenterOverrides(t *testing.T) {
	user := "../../internal/author/provenance/testdata/karpenter-user.yaml"
	args := []string{"userdata", "merge", "-f", nodeGroupFile, "--family", "al2023", "--as", "karpenter", user}
	res := run(t, nil, args...)
	if res.code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{
		`line 6:16: spec.kubelet.config[maxPods]: kubelet.maxPods: "110" set here is overridden by Karpenter's part 2 ("29")`,
		`line 8:9: spec.kubelet.config[registerWithTaints]: taints: "team=web:NoSchedule" set here is overridden by Karpenter's part 2`,
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("merge preview lacks %q:\n%s", want, res.stdout)
		}
	}
	out := filepath.Join(t.TempDir(), "merged")
	strict := run(t, nil, append([]string{"userdata", "merge", "--strict", "--user-data-out", out}, args[2:]...)...)
	if strict.code != 1 || !strings.Contains(strict.stderr, "--strict") {
		t.Fatalf("merge --strict: exit %d\n%s", strict.code, strict.stderr)
	}
	if merged := mustRead(t, out); !strings.Contains(merged, "# Karpenter Generated NodeConfig") || !strings.Contains(merged, "maxPods: 110") {
		t.Errorf("merged user data lacks the user's part or Karpenter's:\n%s", merged)
	}
	check := run(t, nil, "config", "check", "-c", "file://"+filepath.Join(mustAbs(t, user)), "--target", "karpenter", "--family", "al2023", "--node-group", nodeGroupFile)
	if check.code != 0 || !strings.Contains(check.stdout, `kubelet.maxPods: "110" set here is overridden by Karpenter's part 2 ("29")`) {
		t.Errorf("config check --target karpenter: exit %d\n%s%s", check.code, check.stdout, check.stderr)
	}
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestAUserPartHoldingTheBoundaryStaysWhole gives generate and merge a
// user script with a "--//" line, the delimiter of the boundary EKS and
// Karpenter write with: the output uses another boundary, Go's MIME reader
// finds the user's script whole and the producer's part after it, the
// output passes config check, and the note says why.
func TestAUserPartHoldingTheBoundaryStaysWhole(t *testing.T) {
	script := "#!/bin/bash\necho before\n--//\necho after\n--//--\necho last"
	// EKS takes the launch template's user data as MIME: the user's own
	// document, with a boundary of its own.
	user := filepath.Join(t.TempDir(), "user.mime")
	doc := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"==USER==\"\n\n--==USER==\n" +
		"Content-Type: text/x-shellscript; charset=\"us-ascii\"\n\n" + script + "\n--==USER==--\n"
	if err := os.WriteFile(user, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "merged")
	for _, args := range [][]string{
		{"userdata", "generate", "-f", nodeGroupFile, "--family", "al2023", "--as", "eks", "--user-data", user},
		{"userdata", "merge", "-f", nodeGroupFile, "--family", "al2023", "--as", "karpenter", "--user-data-out", out, user},
	} {
		t.Run(args[1], func(t *testing.T) {
			res := run(t, nil, args...)
			if res.code != 0 {
				t.Fatalf("exit %d\n%s", res.code, res.stderr)
			}
			data := []byte(res.stdout)
			if args[1] == "merge" {
				var err error
				if data, err = os.ReadFile(out); err != nil {
					t.Fatal(err)
				}
			}
			parts := mimeParts(t, data)
			whole := false
			for _, p := range parts {
				whole = whole || strings.TrimSuffix(p, "\n") == script
			}
			if !whole || !strings.Contains(parts[len(parts)-1], "kind: NodeConfig") || !strings.Contains(parts[len(parts)-1], "name: prod") {
				t.Fatalf("parts %q, want the user's script whole, and the producer's NodeConfig last", parts)
			}
			if args[1] == "generate" && !strings.Contains(res.stderr, `uses the boundary "==nodeboot-1=="`) {
				t.Errorf("stderr %q, want a note on the boundary", res.stderr)
			}
			path := filepath.Join(t.TempDir(), "user-data")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if check := run(t, nil, "config", "check", "-c", "file://"+path); check.code != 0 {
				t.Fatalf("config check of the output: exit %d\n%s%s", check.code, check.stdout, check.stderr)
			}
		})
	}
}

// mimeParts reads a multipart/mixed document with Go's mime/multipart.
func mimeParts(t *testing.T, data []byte) []string {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	var out []string
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("part %d: %v", len(out), err)
		}
		b, _ := io.ReadAll(p)
		out = append(out, string(b))
	}
}
