package redact

import (
	"bytes"
	"compress/gzip"
	"crypto/x509"
	"encoding/base64"
	"io"
	"unicode/utf8"
)

const (
	// minEncodedRun is the shortest base64 run inside a line worth
	// decoding: the base64 of a bootstrap token is 32 characters, of an
	// access key ID 28.
	minEncodedRun = 20
	// minBlockLine is the shortest line that can belong to a multi-line
	// base64 block (MIME bodies use 76 columns, PEM 64).
	minBlockLine = 16
)

// verdict is what decoding a base64 run showed.
type verdict int

const (
	plain       verdict = iota // not base64, or nothing secret inside
	secret                     // decodes to something the redactor masks
	privateKey                 // decodes to a DER private key
	undecodable                // gzip that cannot be inflated within the bounds
)

func (v verdict) rule() Rule {
	switch v {
	case privateKey:
		return RulePrivateKey
	case undecodable:
		return RuleUndecodable
	}
	return RuleEncodedSecret
}

// encodedRuns masks base64 runs inside a line that decode to a secret, or
// to gzip that cannot be inflated within the bounds.
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
		j := runEnd(line, i)
		if j-i >= minEncodedRun && !isMask(line[i:j]) && mayDecode(line[i:j]) {
			if v := r.decodedVerdict(line[i:j]); v != plain {
				out = append(out, line[done:i]...)
				out = append(out, Mask...)
				done = j
				r.add(v.rule(), n, "")
				r.masked(v.rule(), "", line[i:j])
			}
		}
		i = j
	}
	if out == nil {
		return line
	}
	return append(out, line[done:]...)
}

// runEnd returns the end of the base64 run starting at i: '=' only as
// padding at its end ("v=eyJ…" is a key and a run, not one run).
func runEnd(line []byte, i int) int {
	j := i
	for j < len(line) && isBase64Char(line[j]) && line[j] != '=' {
		j++
	}
	for k := 0; k < 2 && j < len(line) && line[j] == '='; k++ {
		j++
	}
	return max(j, i+1)
}

// mayDecode reports whether a run can be base64 text worth decoding: not
// hex (IDs, digests: "//" + a container ID included), and in one alphabet
// (a path with '-' and '/' is neither).
func mayDecode(run []byte) bool {
	if isHex(bytes.Trim(run, "/")) {
		return false
	}
	std := bytes.ContainsAny(run, "+/")
	url := bytes.ContainsAny(run, "-_")
	return !(std && url)
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

// decodedVerdict decodes s (standard or URL alphabet, padded or not,
// possibly gzip inside) and says whether what it decodes to holds
// anything to redact.
func (r *redactor) decodedVerdict(s []byte) verdict {
	decoded, ok := decodeBase64(s)
	if !ok {
		return plain
	}
	if bytes.HasPrefix(decoded, []byte{0x1f, 0x8b}) {
		inflated, ok := gunzip(decoded)
		if !ok {
			return undecodable
		}
		decoded = inflated
	}
	if !isText(decoded) {
		if isDERPrivateKey(decoded) {
			return privateKey
		}
		return plain
	}
	if _, sub := scan(decoded, r.depth+1, false); len(sub.findings) > 0 {
		return secret
	}
	return plain
}

// decodeBase64 decodes s; a run cut short (a length no encoder writes)
// loses its last character, so that what it holds is still seen.
func decodeBase64(s []byte) ([]byte, bool) {
	trimmed := bytes.TrimRight(s, "=")
	if len(trimmed)%4 == 1 {
		trimmed = trimmed[:len(trimmed)-1]
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if out, err := enc.DecodeString(string(trimmed)); err == nil {
			return out, true
		}
	}
	return nil, false
}

// gunzip inflates b whole, up to maxDecoded; ok is false for a broken or
// truncated stream or one that inflates past the bound.
func gunzip(b []byte) ([]byte, bool) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, false
	}
	defer zr.Close()
	out, err := io.ReadAll(io.LimitReader(zr, maxDecoded+1))
	return out, err == nil && len(out) <= maxDecoded
}

// isText reports whether b reads as text: valid UTF-8 without control
// bytes other than whitespace.
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// isDERPrivateKey reports whether b is a DER private key (PKCS#8, PKCS#1
// or SEC 1): base64 key material without its PEM armour.
func isDERPrivateKey(b []byte) bool {
	if len(b) < 32 || b[0] != 0x30 { // an ASN.1 SEQUENCE
		return false
	}
	if _, err := x509.ParsePKCS8PrivateKey(b); err == nil {
		return true
	}
	if _, err := x509.ParsePKCS1PrivateKey(b); err == nil {
		return true
	}
	_, err := x509.ParseECPrivateKey(b)
	return err == nil
}
