package cri

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// FuzzEachString checks the answer decoder on runtime bytes: it never
// panics, and a message made of length-delimited fields around any
// trailing bytes yields those fields, in order, before any parse error.
func FuzzEachString(f *testing.F) {
	f.Add("containerd", "1.7.27", []byte{})
	f.Add("", "v1", []byte{0x08, 0x01})
	f.Add("cri-o", "", []byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, name, version string, tail []byte) {
		msg := protowire.AppendTag(nil, 2, protowire.BytesType)
		msg = protowire.AppendString(msg, name)
		msg = protowire.AppendTag(msg, 3, protowire.BytesType)
		msg = protowire.AppendString(msg, version)
		msg = append(msg, tail...)
		var got []string
		_ = eachString(msg, func(_ fieldNumber, s string) { got = append(got, s) })
		if len(got) < 2 || !slices.Equal(got[:2], []string{name, version}) {
			t.Fatalf("fields %q, want %q first", got, []string{name, version})
		}
		_ = eachString(tail, func(fieldNumber, string) {}) // any bytes: no panic
	})
}
