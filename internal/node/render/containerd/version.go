package containerd

import (
	"fmt"
	"strconv"
	"strings"
)

// majorMinor parses the leading "MAJOR.MINOR" of a version such as
// "1.7.27", "v2.0.5", "v1.32.1-eks-5e0fdde" or "1.7.27-1.amzn2023.0.1".
// A missing minor version reads as 0.
func majorMinor(version string) (major, minor int, err error) {
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(version), "v"), ".", 3)
	major, err = strconv.Atoi(parts[0])
	if err != nil || major < 0 {
		return 0, 0, fmt.Errorf("version %q: no numeric major version", version)
	}
	if len(parts) < 2 {
		return major, 0, nil
	}
	digits := leadingDigits(parts[1])
	if digits == "" {
		return 0, 0, fmt.Errorf("version %q: no numeric minor version", version)
	}
	minor, err = strconv.Atoi(digits)
	if err != nil {
		return 0, 0, fmt.Errorf("version %q: %w", version, err)
	}
	return major, minor, nil
}

func leadingDigits(s string) string {
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	return s[:end]
}

// atLeast reports whether major.minor >= wantMajor.wantMinor.
func atLeast(major, minor, wantMajor, wantMinor int) bool {
	return major > wantMajor || (major == wantMajor && minor >= wantMinor)
}
