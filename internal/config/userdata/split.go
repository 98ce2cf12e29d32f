package userdata

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// Split turns one raw payload (user data or a file) into documents.
//
// It first undoes transport encodings of the whole payload: base64 when
// the payload is entirely base64 and decodes to gzip or text (see
// sniffBase64), then gzip by its magic bytes. A payload whose first
// non-blank line is a MIME-Version or Content-Type header is split as MIME:
// each part is decoded (Content-Transfer-Encoding, then base64 sniffing and
// gzip) and classified by media type; every malformation is reported as a
// MIME problem naming the line, never passed on as one big document. Any
// other payload is one document classified by how it starts.
//
// Source.Line of every document and Position.Line of every problem count
// lines of the payload after whole-payload base64/gzip decoding; when that
// decoding happened, every Source carries it in Decoded. A MIME part whose
// body was itself decoded (Content-Transfer-Encoding, sniffed base64, gzip)
// becomes a document with Source.Line 1 and Source.Decoded naming the part's
// encoding: decoders then count lines in the part's decoded text, as no line
// of the raw payload corresponds to them. Documents' Data may share memory
// with data. An empty or white-space-only payload gives no documents and no
// problems.
//
// Decoding is bounded: base64 and gzip decoding of the payload and all its
// parts together may produce at most 16 MiB, a payload splits into at most
// 1,000 documents, and at most diag.MaxProblems problems are reported.
func Split(src diag.Source, data []byte) ([]Document, diag.List) {
	docs, probs := split(src, data)
	return docs, diag.Limit(probs, src)
}

func split(src diag.Source, data []byte) ([]Document, diag.List) {
	if isBlank(data) {
		return nil, nil
	}
	payload, undone, err := undoTransport(data, true, maxDecodedTotal)
	if err != nil {
		var probs diag.List
		probs.Errorf(src, "", diag.Position{}, "user data: %s", errorText(err))
		return nil, probs
	}
	decodedLeft := maxDecodedTotal
	if undone != "" {
		decodedLeft -= len(payload)
	}
	src.Decoded = undone
	payload = bytes.TrimPrefix(payload, utf8BOM)
	if isBlank(payload) {
		return nil, nil
	}
	lines := splitLines(payload)
	if first, ok := mimeStart(payload, lines); ok {
		return splitMIME(src, payload, lines, first, decodedLeft)
	}
	format := sniffFormat(payload)
	src.Format = string(format)
	src.Line = 1
	return []Document{{Source: src, Format: format, Data: payload}}, nil
}

// errorText renders a transport error for users.
func errorText(err error) string {
	if errors.Is(err, errInflateLimit) {
		return fmt.Sprintf("gzip stream inflates to more than %d MiB", maxInflatedSize>>20)
	}
	return err.Error()
}
