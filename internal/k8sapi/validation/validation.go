// Package validation checks Kubernetes names and label values as
// k8s.io/apimachinery/pkg/util/validation does (label keys and values by
// k8s.io/apimachinery/pkg/api/validate/content, which that package's
// IsQualifiedName and IsValidLabelValue are), with the same messages, but
// with byte loops instead of regular expressions compiled at package
// initialisation (and without that package's klog and net dependencies).
// The tests fuzz each function against its upstream counterpart.
package validation

import (
	"strconv"
	"strings"
)

// Length limits.
const (
	qualifiedNameMaxLength    = 63
	LabelValueMaxLength       = 63
	DNS1123SubdomainMaxLength = 253
)

// The syntax as upstream spells it in its messages.
const (
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueFmt       = "(" + qualifiedNameFmt + ")?"
	labelValueErrMsg    = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1123SubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
)

// IsQualifiedName checks a label or annotation key: a name of at most 63
// bytes with an optional DNS subdomain prefix and '/'. It returns what is
// wrong, or nothing, as content.IsLabelKey words it (lengths in bytes).
func IsQualifiedName(value string) []string {
	var errs []string
	parts := strings.Split(value, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		prefix := parts[0]
		name = parts[1]
		if prefix == "" {
			errs = append(errs, "prefix part "+EmptyError())
		} else {
			for _, msg := range dns1123SubdomainErrors(prefix, maxBytesError) {
				errs = append(errs, "prefix part "+msg)
			}
		}
	default:
		return append(errs, "a valid label key "+RegexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if name == "" {
		errs = append(errs, "name part "+EmptyError())
	} else if len(name) > qualifiedNameMaxLength {
		errs = append(errs, "name part "+maxBytesError(qualifiedNameMaxLength))
	}
	if !isQualifiedNamePart(name) {
		errs = append(errs, "name part "+RegexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// IsValidLabelValue checks a label value: empty, or at most 63 letters,
// digits, '-', '_' and '.' starting and ending with a letter or digit
// (content.IsLabelValue's words: lengths in bytes).
func IsValidLabelValue(value string) []string {
	var errs []string
	if len(value) > LabelValueMaxLength {
		errs = append(errs, maxBytesError(LabelValueMaxLength))
	}
	if value != "" && !isQualifiedNamePart(value) {
		errs = append(errs, RegexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// IsDNS1123Subdomain checks a lowercase RFC 1123 subdomain of at most 253
// characters (util/validation's words).
func IsDNS1123Subdomain(value string) []string {
	return dns1123SubdomainErrors(value, MaxLenError)
}

// dns1123SubdomainErrors checks a subdomain, saying a length is too long
// with tooLong: util/validation counts characters, content (the label key's
// prefix) bytes.
func dns1123SubdomainErrors(value string, tooLong func(int) string) []string {
	var errs []string
	if len(value) > DNS1123SubdomainMaxLength {
		errs = append(errs, tooLong(DNS1123SubdomainMaxLength))
	}
	if !isDNS1123Subdomain(value) {
		errs = append(errs, RegexError(dns1123SubdomainMsg, dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

// MaxLenError says a value is longer than length, as util/validation does.
func MaxLenError(length int) string {
	return "must be no more than " + strconv.Itoa(length) + " characters"
}

// maxBytesError says a value is longer than length, as content does (since
// apimachinery v0.37 for label keys and values).
func maxBytesError(length int) string {
	return "must be no more than " + strconv.Itoa(length) + " bytes"
}

// RegexError explains a syntax failure with the syntax and examples.
func RegexError(msg, syntax string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + syntax + "')"
	}
	var b strings.Builder
	b.WriteString(msg + " (e.g. ")
	for i, e := range examples {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteString("'" + e + "', ")
	}
	b.WriteString("regex used for validation is '" + syntax + "')")
	return b.String()
}

// EmptyError says a value must not be empty.
func EmptyError() string { return "must be non-empty" }

// isQualifiedNamePart: letters and digits at both ends, '-', '_' and '.'
// allowed between.
func isQualifiedNamePart(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isDNS1123Subdomain: dot-separated labels of lower-case letters, digits
// and '-', each starting and ending with a letter or digit.
func isDNS1123Subdomain(s string) bool {
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || !isLowerAlnum(label[0]) || !isLowerAlnum(label[len(label)-1]) {
			return false
		}
		for i := range len(label) {
			if c := label[i]; !isLowerAlnum(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || 'A' <= c && c <= 'Z' }
