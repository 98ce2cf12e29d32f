package convert

import (
	"bytes"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/mimetest"
)

// FuzzMIME writes two parts with arbitrary bodies and checks the document:
// exactly one delimiter line per part and the closing one, counting lines
// as Python's email package (cloud-init) splits them; and Go's
// mime/multipart (nodeadm) reads back both bodies byte for byte (but the
// final newline of a body written as is, which the delimiter line takes).
func FuzzMIME(f *testing.F) {
	for _, s := range [][2]string{
		{"#!/bin/sh\necho a\n", "kind: NodeConfig\n"},
		{"--//\n", "--==nodeboot-1==\n"},
		{"echo a\r--//\recho b", "x\r\n--//--\r\n"},
		{"caf\xc3\xa9\n", "\xff\x00"},
		{"", "--//"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		parts := []MIMEPart{{ContentType: ContentTypeShell, Body: []byte(a)}, {ContentType: ContentTypeNodeConfig, Body: []byte(b)}}
		doc, err := MIME(parts...)
		if err != nil {
			t.Fatal(err)
		}
		boundary, got := mimetest.Parts(t, doc)
		delim := []byte("--" + boundary)
		n := 0
		for _, line := range bytes.FieldsFunc(doc, isLineBreak) {
			if bytes.HasPrefix(line, delim) {
				n++
			}
		}
		if n != len(parts)+1 || len(got) != len(parts) {
			t.Fatalf("%d delimiter lines and %d parts, want %d and %d:\n%q", n, len(got), len(parts)+1, len(parts), doc)
		}
		for i, want := range []string{a, b} {
			if string(got[i].Body) != want {
				t.Fatalf("part %d = %q, want %q", i+1, got[i].Body, want)
			}
		}
	})
}
