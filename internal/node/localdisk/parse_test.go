package localdisk

import (
	"reflect"
	"testing"
)

func TestParseMountInfo(t *testing.T) {
	data := []byte(`22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
36 22 9:127 / /mnt/k8s-disks/0 rw,noatime shared:20 - xfs /dev/md127 rw,attr2,inode64
37 22 9:127 /kubelet /var/lib/kubelet rw,noatime shared:20 - xfs /dev/md127 rw
38 22 7:5 / /tmp/odd\040dir\134x rw - xfs /dev/loop5 rw

`)
	got, err := ParseMountInfo(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []MountPoint{
		{Dev: "254:1", Root: "/", Target: "/"},
		{Dev: "9:127", Root: "/", Target: "/mnt/k8s-disks/0"},
		{Dev: "9:127", Root: "/kubelet", Target: "/var/lib/kubelet"},
		{Dev: "7:5", Root: "/", Target: `/tmp/odd dir\x`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{"1 2 3", `1 2 7:5 / /a\04 rw - xfs x rw`, `1 2 7:5 / /a\9zz rw - xfs x rw`} {
		if _, err := ParseMountInfo([]byte(bad)); err == nil {
			t.Errorf("ParseMountInfo(%q) accepted", bad)
		}
	}
}

func TestParseBlkid(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      Signature
	}{
		{"blank", "", Signature{}},
		{"nodeboot xfs", "DEVNAME=/dev/loop0\nLABEL=nodeboot-1\nUUID=e5c9\nBLOCK_SIZE=512\nTYPE=xfs\nUSAGE=filesystem\n", Signature{Type: "xfs", Label: "nodeboot-1"}},
		{"md member", "DEVNAME=/dev/nvme1n1\nLABEL=ip-10-0-0-5:kubernetes\nTYPE=linux_raid_member\nUSAGE=raid\n", Signature{Type: "linux_raid_member", Label: "ip-10-0-0-5:kubernetes"}},
		{"partition table", "DEVNAME=/dev/nvme1n1\nPTUUID=abc\nPTTYPE=gpt\n", Signature{PartitionTable: "gpt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseBlkid([]byte(tc.out)); got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// FuzzParseMountInfo: mountinfo is read on every boot; no input may panic.
func FuzzParseMountInfo(f *testing.F) {
	f.Add([]byte("36 22 9:127 /kubelet /var/lib/kubelet rw - xfs /dev/md127 rw\n"))
	f.Add([]byte(`1 2 7:5 / /a\040b rw - xfs x rw`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseMountInfo(data)
	})
}
