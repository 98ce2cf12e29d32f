package cri

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestWireAgreesWithProtowire: what appendStringField writes is what
// protowire writes, and eachField reads protowire's encoding of every wire
// type back field by field.
func TestWireAgreesWithProtowire(t *testing.T) {
	want := protowire.AppendString(protowire.AppendTag(nil, 300, protowire.BytesType), "containerd")
	if got := appendStringField(nil, 300, "containerd"); !bytes.Equal(got, want) {
		t.Fatalf("appendStringField = %x, protowire %x", got, want)
	}
	msg := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 150)
	msg = protowire.AppendFixed64(protowire.AppendTag(msg, 2, protowire.Fixed64Type), 7)
	msg = protowire.AppendFixed32(protowire.AppendTag(msg, 3, protowire.Fixed32Type), 9)
	msg = protowire.AppendString(protowire.AppendTag(msg, 4, protowire.BytesType), "v1")
	type field struct {
		num fieldNumber
		typ wireType
		val string
	}
	var got []field
	if err := eachField(msg, func(n fieldNumber, typ wireType, v []byte) error {
		got = append(got, field{n, typ, string(v)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want2 := []field{
		{1, varintType, string(protowire.AppendVarint(nil, 150))},
		{2, fixed64Type, string(protowire.AppendFixed64(nil, 7))},
		{3, fixed32Type, string(protowire.AppendFixed32(nil, 9))},
		{4, bytesType, "v1"},
	}
	if len(got) != len(want2) {
		t.Fatalf("fields %v, want %v", got, want2)
	}
	for i := range got {
		if got[i] != want2[i] {
			t.Errorf("field %d = %+v, want %+v", i, got[i], want2[i])
		}
	}
}

// TestWireRefusesMalformed: truncated values, a group and field number 0
// are errors, not panics or silent successes.
func TestWireRefusesMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  []byte
	}{
		{"truncated length", protowire.AppendTag(nil, 1, protowire.BytesType)},
		{"length past the end", append(protowire.AppendTag(nil, 1, protowire.BytesType), 5, 'a')},
		{"truncated fixed64", append(protowire.AppendTag(nil, 1, protowire.Fixed64Type), 1, 2)},
		{"group", protowire.AppendTag(nil, 1, protowire.StartGroupType)},
		{"field zero", []byte{0x02, 0x00}},
		{"unterminated varint", []byte{0x08, 0xff}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := eachField(tc.msg, func(fieldNumber, wireType, []byte) error { return nil }); err == nil {
				t.Fatalf("eachField(%x) = nil, want an error", tc.msg)
			}
		})
	}
}
