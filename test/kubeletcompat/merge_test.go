//go:build kubeletcompat

package kubeletcompat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/kubeleteffective"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

const kubeletTypeMeta = `"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1",`

// TestDropInMergeMatchesKubelet: kubeleteffective.Merge gives the
// configuration the real kubelet runs with, for kubelets 1.29 and later
// (1.28 lets its defaults in drop-ins override the base file, see
// TestKubelet128DropInResetsBaseValues) and, for a null, 1.32 and later.
func TestDropInMergeMatchesKubelet(t *testing.T) {
	cases := []struct {
		name    string
		files   map[string]string // under the drop-in directory
		minor   int
		wantHas func(effective) bool
	}{
		{name: "objects merge key by key", files: map[string]string{
			"40-a.conf": `{` + kubeletTypeMeta + `"evictionHard":{"memory.available":"200Mi"}}`}},
		{name: "lists are replaced", files: map[string]string{
			"40-a.conf": `{` + kubeletTypeMeta + `"clusterDNS":["10.0.0.53"]}`}},
		{name: "later files win, in lexical order", files: map[string]string{
			"20-b.conf": `{` + kubeletTypeMeta + `"maxPods":30}`, "10-a.conf": `{` + kubeletTypeMeta + `"maxPods":20}`}},
		{name: "subdirectories are read", files: map[string]string{
			"10-a.conf": `{` + kubeletTypeMeta + `"maxPods":20}`, "sub/50-x.conf": `{` + kubeletTypeMeta + `"podPidsLimit":77}`}},
		{name: "other names are ignored", files: map[string]string{
			"10-a.json": `{` + kubeletTypeMeta + `"maxPods":20}`, "10-b.conf.bak": `{` + kubeletTypeMeta + `"maxPods":21}`}},
		{name: "YAML drop-in", files: map[string]string{
			"40-a.conf": "kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nkubeReserved:\n  memory: 1Gi\n"}},
		{name: "null removes the base value", minor: 32, files: map[string]string{
			"40-a.conf": `{` + kubeletTypeMeta + `"kubeReservedCgroup":null}`}},
	}
	for _, k := range kubelets {
		if minorOf(k.version) < 29 {
			continue
		}
		for _, tc := range cases {
			if minorOf(k.version) < tc.minor {
				continue
			}
			t.Run(k.version+"/"+tc.name, func(t *testing.T) {
				root := t.TempDir()
				files := []render.File{{Path: "/config.json", Mode: 0o644, Data: []byte(mergeBase)}}
				for name, data := range tc.files {
					files = append(files, render.File{Path: "/config.json.d/" + name, Mode: 0o644, Data: []byte(data)})
				}
				writeFiles(t, root, files)
				got := runKubelet(t, kubeletBinary(t, k.path), root,
					[]string{"--config=" + filepath.Join(root, "config.json"), "--config-dir=" + filepath.Join(root, "config.json.d")},
					[]string{"KUBELET_CONFIG_DROPIN_DIR_ALPHA=on"})
				if want := mergedLikeTheKubelet(t, root); !reflect.DeepEqual(got, want) {
					t.Errorf("the kubelet runs with %+v\nkubeleteffective.Merge gives %+v", got, want)
				}
			})
		}
	}
}

// mergeBase sets, apart from address, values that differ from the
// kubelet's defaults, so a lost or reset value shows.
const mergeBase = `{` + kubeletTypeMeta + `"cgroupDriver":"systemd","maxPods":29,"address":"0.0.0.0",
"kubeReservedCgroup":"/runtime","podPidsLimit":4096,"clusterDNS":["10.100.0.10","10.100.0.11"],
"evictionHard":{"memory.available":"100Mi","nodefs.available":"10%"},"kubeReserved":{"cpu":"70m"}}`

// mergedLikeTheKubelet merges root's config.json and drop-ins with
// kubeleteffective.
func mergedLikeTheKubelet(t *testing.T, root string) effective {
	t.Helper()
	merged, err := kubeleteffective.Read(os.DirFS(root), "/config.json", "/config.json.d")
	if err != nil {
		t.Fatal(err)
	}
	var eff effective
	if err := json.Unmarshal(merged, &eff); err != nil {
		t.Fatal(err)
	}
	return eff
}

// minorOf returns 34 for "v1.34.4".
func minorOf(version string) int {
	var major, minor, patch int
	_, _ = fmt.Sscanf(version, "v%d.%d.%d", &major, &minor, &patch)
	return minor
}

// TestFlagsOverConfigMatchKubelet: kubeleteffective.ApplyFlags gives the
// configuration the real kubelet runs with when flags name config fields:
// the last scalar wins, map and list flags add up and replace the field.
func TestFlagsOverConfigMatchKubelet(t *testing.T) {
	flags := []string{"--max-pods=7", "--max_pods=8", "--kube-reserved=memory=2Gi", "--kube-reserved=pid=100",
		"--cluster-dns=1.1.1.1", "--cluster-dns=2.2.2.2", "--eviction-hard=memory.available<1Gi",
		"--cgroup-driver=cgroupfs", "--pod-max-pids=100"}
	for _, k := range kubelets {
		if minorOf(k.version) < 29 {
			continue
		}
		t.Run(k.version, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, []render.File{{Path: "/config.json", Mode: 0o644, Data: []byte(mergeBase)}})
			got := runKubelet(t, kubeletBinary(t, k.path), root, append([]string{"--config=" + filepath.Join(root, "config.json")}, flags...), nil)
			merged, err := kubeleteffective.Read(os.DirFS(root), "/config.json", "")
			if err != nil {
				t.Fatal(err)
			}
			withFlags, err := kubeleteffective.ApplyFlags(merged, flags)
			if err != nil {
				t.Fatal(err)
			}
			var want effective
			if err := json.Unmarshal(withFlags, &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the kubelet runs with %+v\nkubeleteffective.ApplyFlags gives %+v", got, want)
			}
		})
	}
}
