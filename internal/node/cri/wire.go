package cri

import (
	"encoding/binary"
	"errors"
	"math"
)

// The protobuf wire format, as much as the CRI Version and RuntimeConfig
// calls need. It is written here rather than taken from
// google.golang.org/protobuf because that module's internal packages do
// work at package initialisation (they read the executable to seed their
// randomness), which every boot of the agent would pay for; wire_test.go
// checks this encoder and decoder against protowire.

// fieldNumber is a protobuf field number.
type fieldNumber int32

// wireType is a protobuf wire type.
type wireType uint8

// Wire types; groups (3 and 4) are deprecated and refused.
const (
	varintType  wireType = 0
	fixed64Type wireType = 1
	bytesType   wireType = 2
	fixed32Type wireType = 5
)

// errMalformed is returned for bytes that are not a protobuf message.
var errMalformed = errors.New("malformed protobuf message")

// appendStringField appends field num as a length-delimited string.
func appendStringField(b []byte, num fieldNumber, s string) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3|uint64(bytesType))
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// consumeVarint decodes one varint, returning its length (0 when b does
// not start with a valid varint).
func consumeVarint(b []byte) (uint64, int) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0
	}
	return v, n
}

// consumeField splits the first field off b: its number, type, value (the
// payload of a length-delimited field, else the encoded value) and the
// number of bytes it took.
func consumeField(b []byte) (fieldNumber, wireType, []byte, int, error) {
	tag, n := consumeVarint(b)
	if n == 0 || tag>>3 == 0 || tag>>3 > math.MaxInt32 {
		return 0, 0, nil, 0, errMalformed
	}
	num, typ, rest := fieldNumber(tag>>3), wireType(tag&7), b[n:]
	var size int
	switch typ {
	case varintType:
		if _, m := consumeVarint(rest); m > 0 {
			size = m
		} else {
			return 0, 0, nil, 0, errMalformed
		}
	case fixed64Type:
		size = 8
	case fixed32Type:
		size = 4
	case bytesType:
		length, m := consumeVarint(rest)
		if m == 0 || length > uint64(len(rest)-m) {
			return 0, 0, nil, 0, errMalformed
		}
		return num, typ, rest[m : m+int(length)], n + m + int(length), nil
	default:
		return 0, 0, nil, 0, errMalformed
	}
	if size > len(rest) {
		return 0, 0, nil, 0, errMalformed
	}
	return num, typ, rest[:size], n + size, nil
}

// eachField walks the fields of a protobuf message.
func eachField(b []byte, fn func(fieldNumber, wireType, []byte) error) error {
	for len(b) > 0 {
		num, typ, value, n, err := consumeField(b)
		if err != nil {
			return err
		}
		if err := fn(num, typ, value); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// eachString calls fn for every length-delimited field as a string.
func eachString(b []byte, fn func(fieldNumber, string)) error {
	return eachField(b, func(num fieldNumber, typ wireType, v []byte) error {
		if typ == bytesType {
			fn(num, string(v))
		}
		return nil
	})
}
