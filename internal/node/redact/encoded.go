package redact

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
)

const (
	// minEncodedRun is the shortest base64 run inside a line worth
	// decoding: shorter ones cannot hold a key or a token with context.
	minEncodedRun = 40
	// minBlockLine is the shortest line that can belong to a multi-line
	// base64 block (MIME bodies use 76 columns, PEM 64).
	minBlockLine = 16
	// maxDecoded bounds what one gzip stream may inflate to.
	maxDecoded = 4 << 20
)

// encodedBlocks marks the lines of multi-line base64 blocks (MIME parts,
// wrapped PEM-less keys) whose decoded content holds a secret.
func (r *redactor) encodedBlocks(lines [][]byte) []bool {
	marked := make([]bool, len(lines))
	if r.depth >= maxDepth {
		return marked
	}
	for i := 0; i < len(lines); {
		j := i
		var joined []byte
		for j < len(lines) {
			body, _ := splitEOL(lines[j])
			t := bytes.TrimSpace(body)
			if len(t) < minBlockLine || !allBase64(t) {
				break
			}
			joined = append(joined, t...)
			j++
		}
		if j-i >= 2 && r.holdsSecret(joined) {
			for k := i; k < j; k++ {
				marked[k] = true
			}
			r.add(RuleEncodedSecret, i+1, "")
		}
		i = max(j, i+1)
	}
	return marked
}

// encodedRuns masks base64 runs inside a line that decode to a secret.
func (r *redactor) encodedRuns(line []byte, n int) []byte {
	if r.depth >= maxDepth || len(line) < minEncodedRun {
		return line
	}
	var out []byte
	done := 0
	for i := 0; i < len(line); {
		if !isBase64Char(line[i]) {
			i++
			continue
		}
		j := i
		for j < len(line) && isBase64Char(line[j]) {
			j++
		}
		if j-i >= minEncodedRun && !isMask(line[i:j]) && !isHex(line[i:j]) && r.holdsSecret(line[i:j]) {
			out = append(out, line[done:i]...)
			out = append(out, Mask...)
			done = j
			r.add(RuleEncodedSecret, n, "")
		}
		i = j
	}
	if out == nil {
		return line
	}
	return append(out, line[done:]...)
}

// isHex reports whether a run is plain hex (container and image IDs,
// digests): such runs are not base64 text worth decoding.
func isHex(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func allBase64(b []byte) bool {
	for _, c := range b {
		if !isBase64Char(c) {
			return false
		}
	}
	return true
}

// holdsSecret decodes s (standard or URL alphabet, padded or not, possibly
// gzip inside) and reports whether the decoded text has anything to redact.
func (r *redactor) holdsSecret(s []byte) bool {
	decoded, ok := decodeBase64(s)
	if !ok {
		return false
	}
	if bytes.HasPrefix(decoded, []byte{0x1f, 0x8b}) {
		if inflated, err := gunzip(decoded); err == nil {
			decoded = inflated
		}
	}
	_, findings := redact(decoded, r.depth+1)
	return len(findings) > 0
}

func decodeBase64(s []byte) ([]byte, bool) {
	trimmed := bytes.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if out, err := enc.DecodeString(string(trimmed)); err == nil {
			return out, true
		}
	}
	return nil, false
}

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(io.LimitReader(zr, maxDecoded))
}
