package convert

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
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
		msg, err := mail.ReadMessage(bytes.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
		if err != nil {
			t.Fatal(err)
		}
		delim := []byte("--" + params["boundary"])
		n := 0
		for _, line := range bytes.FieldsFunc(doc, isLineBreak) {
			if bytes.HasPrefix(line, delim) {
				n++
			}
		}
		if n != len(parts)+1 {
			t.Fatalf("%d delimiter lines, want %d:\n%q", n, len(parts)+1, doc)
		}
		r := multipart.NewReader(msg.Body, params["boundary"])
		for i, want := range []string{a, b} {
			p, err := r.NextPart()
			if err != nil {
				t.Fatalf("part %d: %v", i+1, err)
			}
			got, _ := io.ReadAll(p)
			if p.Header.Get("Content-Transfer-Encoding") == "base64" {
				got, _ = base64.StdEncoding.DecodeString(strings.ReplaceAll(string(got), "\n", ""))
			} else {
				want = strings.TrimSuffix(want, "\n")
			}
			if string(got) != want {
				t.Fatalf("part %d = %q, want %q", i+1, got, want)
			}
		}
	})
}
