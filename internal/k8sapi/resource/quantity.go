// Package resource is the Kubernetes quantity syntax ("100Mi", "500m",
// "1e3") as far as the node agent needs it: whether a string is a quantity
// the API machinery accepts, and its sign. It accepts and rejects exactly
// what k8s.io/apimachinery/pkg/api/resource.ParseQuantity does (the tests
// fuzz one against the other) without linking that package, its protobuf and
// CBOR codecs and their package initialisation.
//
// A Quantity keeps the text it was parsed from and encodes it unchanged; it
// does not compute or canonicalise the amount ("1024Ki" stays "1024Ki", where
// the API machinery writes "1Mi").
package resource

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
)

// Errors of ParseQuantity, with the API machinery's wording.
var (
	ErrFormatWrong = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	ErrNumeric     = errors.New("unable to parse numeric part of quantity")
	ErrSuffix      = errors.New("unable to parse quantity's suffix")
)

// Quantity is a parsed quantity. The zero value is 0.
type Quantity struct {
	text string
	sign int8
}

// ParseQuantity parses s, which must be a quantity without surrounding space.
func ParseQuantity(s string) (Quantity, error) {
	if s == "" {
		return Quantity{}, ErrFormatWrong
	}
	n, err := split(s)
	if err != nil {
		return Quantity{}, err
	}
	exponent, binary, ok := suffixExponent(n.suffix)
	if !ok {
		return Quantity{}, ErrSuffix
	}
	if !n.hasDigit && !exactPath(n, exponent, binary) {
		// The API machinery reads such a number with an arbitrary-precision
		// decimal parser, which wants at least one digit.
		return Quantity{}, ErrNumeric
	}
	q := Quantity{text: s}
	if n.nonZero {
		q.sign = 1
		if n.negative {
			q.sign = -1
		}
	}
	return q, nil
}

// MustParse is ParseQuantity for constants of the program; it panics on an
// error.
func MustParse(s string) Quantity {
	q, err := ParseQuantity(s)
	if err != nil {
		panic("resource.MustParse(" + strconv.Quote(s) + "): " + err.Error())
	}
	return q
}

// Sign is -1, 0 or 1.
func (q *Quantity) Sign() int { return int(q.sign) }

// String is the text the quantity was parsed from ("0" for the zero value).
func (q *Quantity) String() string {
	if q.text == "" {
		return "0"
	}
	return q.text
}

// MarshalJSON writes the quantity as a JSON string.
func (q Quantity) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, q.String()), nil
}

// UnmarshalJSON reads a quantity written as a JSON string or number; null
// is the zero quantity. Like the API machinery it takes the text between the
// quotes as is, trimmed of space.
func (q *Quantity) UnmarshalJSON(data []byte) error {
	if bytes.Equal(data, []byte("null")) {
		*q = Quantity{}
		return nil
	}
	if l := len(data); l >= 2 && data[0] == '"' && data[l-1] == '"' {
		data = data[1 : l-1]
	}
	parsed, err := ParseQuantity(strings.TrimSpace(string(data)))
	if err != nil {
		return err
	}
	*q = parsed
	return nil
}

// QuantityValue is a Quantity used as a command-line flag value upstream;
// it encodes like Quantity.
type QuantityValue struct {
	Quantity
}

// number is a quantity split into its parts.
type number struct {
	negative bool
	// numDigits and fracDigits count the digits before and after the point,
	// leading zeros of the integer part not counted.
	numDigits, fracDigits int
	hasDigit, nonZero     bool
	suffix                string
}

// split reads [sign] digits [. digits] suffix, the suffix being letters of
// "eEinumkKMGTP", then an optional sign and digits.
func split(s string) (number, error) {
	var n number
	i := 0
	if s[0] == '-' || s[0] == '+' {
		n.negative = s[0] == '-'
		i++
	}
	for i < len(s) && s[i] == '0' {
		n.hasDigit = true
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	n.numDigits = i - start
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		n.fracDigits = i - start
		n.nonZero = strings.Trim(s[start:i], "0") != ""
	}
	n.hasDigit = n.hasDigit || n.numDigits > 0 || n.fracDigits > 0
	n.nonZero = n.nonZero || n.numDigits > 0 // leading zeros were skipped
	suffixStart := i
	for i < len(s) && strings.IndexByte("eEinumkKMGTP", s[i]) >= 0 {
		i++
	}
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i < len(s) {
		return number{}, ErrFormatWrong
	}
	n.suffix = s[suffixStart:]
	return n, nil
}

// suffixExponent returns the power of ten (or of two when binary) a suffix
// stands for; ok is false for an unknown suffix.
func suffixExponent(suffix string) (exponent int32, binary, ok bool) {
	switch suffix {
	case "n":
		return -9, false, true
	case "u":
		return -6, false, true
	case "m":
		return -3, false, true
	case "":
		return 0, false, true
	case "k":
		return 3, false, true
	case "M":
		return 6, false, true
	case "G":
		return 9, false, true
	case "T":
		return 12, false, true
	case "P":
		return 15, false, true
	case "E":
		return 18, false, true
	case "Ki":
		return 10, true, true
	case "Mi":
		return 20, true, true
	case "Gi":
		return 30, true, true
	case "Ti":
		return 40, true, true
	case "Pi":
		return 50, true, true
	case "Ei":
		return 60, true, true
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		e, err := strconv.ParseInt(suffix[1:], 10, 64)
		if err != nil {
			return 0, false, false
		}
		return int32(e), false, true // the API machinery truncates it so
	}
	return 0, false, false
}

// exactPath reports whether the API machinery evaluates the number with
// 64-bit integers (which accept a number without digits, as 0) rather than
// with arbitrary precision. It mirrors the conditions of its fast path for a
// number whose digits (none) are all zero.
func exactPath(n number, exponent int32, binary bool) bool {
	const maxInt64Factors, nano = 18, -9
	digits := max(n.numDigits, 1) + n.fracDigits // a missing integer part counts as "0"
	if binary {
		if exponent < 0 || n.fracDigits > 0 {
			return false
		}
		return 15-int32(max(n.numDigits, 1))-int32(float32(exponent)*3/10)-1 >= 0
	}
	return maxInt64Factors-int32(digits) >= 0 && exponent-int32(n.fracDigits) >= nano
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
