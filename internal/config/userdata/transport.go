package userdata

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// maxInflatedSize caps what a gzip stream may inflate to. EC2 user data is
// at most 16 KiB before compression, so anything near this is a gzip bomb.
const maxInflatedSize = 16 << 20

var gzipMagic = []byte{0x1f, 0x8b}

// IsGzip reports whether data is a gzip stream (starts with its magic), as
// reading user data decides before it gunzips.
func IsGzip(data []byte) bool { return bytes.HasPrefix(data, gzipMagic) }

// Names of transport encodings, as diag.Source.Decoded carries them.
const (
	encodingBase64          = "base64"
	encodingGzip            = "gzip"
	encodingQuotedPrintable = "quoted-printable"
)

// undoTransport removes the encodings a payload (or a MIME part body) may be
// wrapped in, in the order nodeadm applies them: first base64 when
// sniffBase64 accepts it, then gzip when the bytes start with the gzip magic.
// It returns the decoded bytes and the name of what was undone ("",
// "base64", "gzip" or "gzip+base64").
// A gzip stream may inflate to at most limit bytes (errInflateLimit).
func undoTransport(data []byte, detectBase64 bool, limit int) ([]byte, string, error) {
	undone := ""
	if detectBase64 {
		if dec, ok := sniffBase64(data); ok {
			data, undone = dec, encodingBase64
		}
	}
	if IsGzip(data) {
		out, err := gunzip(data, limit)
		return out, wrappedIn(encodingGzip, undone), err
	}
	return data, undone, nil
}

// wrappedIn names content encoded as inner and then as outer, the way file
// names stack suffixes: "gzip+base64" is gzip whose bytes were base64
// encoded. Either may be empty.
func wrappedIn(inner, outer string) string {
	switch {
	case inner == "":
		return outer
	case outer == "":
		return inner
	}
	return inner + "+" + outer
}

// sniffBase64 decodes data when it is entirely standard base64 (padding
// required; line breaks anywhere and surrounding white space ignored) and the
// decoded bytes are plausibly user data that was encoded on purpose:
//
//   - a gzip stream (starts with 1f 8b), or
//   - valid UTF-8 text without control characters (tab, CR, LF excepted)
//     that contains at least one byte outside the base64 alphabet.
//
// The last condition keeps words that merely happen to be valid base64 in
// the clear: every real user-data format has such bytes (':' and ' ' in
// YAML, '{' in JSON, '#!' in shell, '[' or '=' in TOML, ':' in MIME
// headers), while a bare word like "true" or "dGVzdA==" does not decode to
// anything that could be configuration, so it is kept as written.
func sniffBase64(data []byte) ([]byte, bool) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return nil, false
	}
	for _, c := range t {
		if !isBase64Byte(c) && c != '=' && c != '\n' && c != '\r' {
			return nil, false
		}
	}
	dec := make([]byte, base64.StdEncoding.DecodedLen(len(t)))
	n, err := base64.StdEncoding.Decode(dec, t)
	if err != nil || n == 0 {
		return nil, false
	}
	dec = dec[:n]
	if IsGzip(dec) || isEncodedText(dec) {
		return dec, true
	}
	return nil, false
}

// isEncodedText reports whether b is printable UTF-8 text that could not
// itself have been a base64 word (see sniffBase64).
func isEncodedText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	outsideAlphabet := false
	for _, r := range string(b) {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
		if r >= utf8.RuneSelf || !isBase64Byte(byte(r)) && r != '=' {
			outsideAlphabet = true
		}
	}
	return outsideAlphabet
}

func isBase64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

// errInflateLimit means a gzip stream inflates past its limit.
var errInflateLimit = errors.New("gzip stream inflates past the limit")

// gunzip inflates a gzip stream (concatenated members allowed), refusing
// corrupt or truncated streams and streams inflating past limit bytes
// (itself at most maxInflatedSize).
func gunzip(data []byte, limit int) ([]byte, error) {
	limit = min(limit, maxInflatedSize)
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("data starts with the gzip magic bytes 1f 8b but is not a valid gzip stream: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("gzip stream is corrupt or truncated: %w", err)
	}
	if len(out) > limit {
		return nil, fmt.Errorf("%w: it inflates to more than %d MiB", errInflateLimit, maxInflatedSize>>20)
	}
	return out, nil
}

// decodeBase64Body decodes a part body declared with
// Content-Transfer-Encoding: base64, ignoring white space as RFC 2045 asks.
func decodeBase64Body(body []byte) ([]byte, error) {
	clean := make([]byte, 0, len(body))
	for _, c := range body {
		if !isSpace(c) {
			clean = append(clean, c)
		}
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(clean)))
	n, err := base64.StdEncoding.Decode(out, clean)
	if err != nil {
		return nil, err
	}
	return out[:n], nil
}

// Limits on what one payload may decode to, whatever its parts say.
const (
	// maxDecodedTotal caps the bytes that base64 and gzip decoding of the
	// payload and all its parts may produce together: each gzip stream is
	// capped at maxInflatedSize, but a payload can hold many.
	maxDecodedTotal = maxInflatedSize
	// maxDocuments caps the documents one payload splits into.
	maxDocuments = 1000
)
