package localdisk

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// ParseMountInfo reads /proc/self/mountinfo (proc(5)): for each line the
// device number, the root of the mount within its file system and the
// mount point, with the kernel's octal escapes (\040 for a space) undone.
func ParseMountInfo(data []byte) ([]MountPoint, error) {
	var out []MountPoint
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 5 || !strings.Contains(f[2], ":") {
			return nil, fmt.Errorf("mountinfo line %d: %q: want id, parent, major:minor, root and mount point", n, line)
		}
		root, err := unescapeMountField(f[3])
		if err != nil {
			return nil, fmt.Errorf("mountinfo line %d: %w", n, err)
		}
		target, err := unescapeMountField(f[4])
		if err != nil {
			return nil, fmt.Errorf("mountinfo line %d: %w", n, err)
		}
		out = append(out, MountPoint{Dev: f[2], Root: root, Target: target})
	}
	return out, sc.Err()
}

// unescapeMountField undoes the kernel's \ooo escapes of space, tab,
// newline and backslash.
func unescapeMountField(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+4 > len(s) {
			return "", fmt.Errorf("truncated escape in %q", s)
		}
		v, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		b.WriteByte(byte(v))
		i += 3
	}
	return b.String(), nil
}

// ParseBlkid reads `blkid -p -o export` output (KEY=value lines) into a
// Signature. Values are taken as they are: the keys used here (TYPE,
// LABEL, PTTYPE) matter only for comparison with nodeboot's own labels.
func ParseBlkid(out []byte) Signature {
	var s Signature
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		switch k {
		case "TYPE":
			s.Type = v
		case "LABEL":
			s.Label = v
		case "PTTYPE":
			s.PartitionTable = v
		}
	}
	return s
}
