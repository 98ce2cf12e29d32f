package policy

import (
	"bytes"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
)

// Errors returned by ParseRequest, testable with errors.Is.
var (
	// ErrNoPEMBlock: the input holds no PEM block.
	ErrNoPEMBlock = errors.New("no PEM block")
	// ErrWrongPEMType: the PEM block is not a CERTIFICATE REQUEST.
	ErrWrongPEMType = errors.New("PEM block is not a CERTIFICATE REQUEST")
	// ErrTrailingData: something other than white space follows the block.
	ErrTrailingData = errors.New("data after the CERTIFICATE REQUEST block")
	// ErrLeadingData: something other than white space, another block (one
	// that does not decode, which encoding/pem skips) among them, precedes
	// the block.
	ErrLeadingData = errors.New("data before the CERTIFICATE REQUEST block")
	// ErrPEMHeaders: the block has headers (Proc-Type, ...), which no
	// kubelet writes.
	ErrPEMHeaders = errors.New("PEM headers in the CERTIFICATE REQUEST block")
	// ErrBadPKCS10: the block does not hold a valid PKCS#10 request.
	ErrBadPKCS10 = errors.New("invalid PKCS#10 request")
	// ErrBadSANExtension: the subjectAltName extension cannot be decoded.
	ErrBadSANExtension = errors.New("invalid subjectAltName extension")
)

const pemTypeCSR = "CERTIFICATE REQUEST"

// ParseRequest decodes spec.request: exactly one PEM "CERTIFICATE REQUEST"
// block without headers, with nothing but white space around it, holding a
// PKCS#10 request. It does not check the signature.
func ParseRequest(data []byte) (*x509.CertificateRequest, error) {
	block, rest := pem.Decode(data)
	if block == nil {
		return nil, ErrNoPEMBlock
	}
	if block.Type != pemTypeCSR {
		return nil, fmt.Errorf("%w: got %q", ErrWrongPEMType, block.Type)
	}
	if err := checkFraming(data, rest, block); err != nil {
		return nil, err
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPKCS10, err)
	}
	return req, nil
}

// pemBegin starts every PEM block; encoding/pem skips a block that does
// not decode and returns the next, so a second one means the block
// returned was not the first.
var pemBegin = []byte("-----BEGIN")

// checkFraming checks that block, which pem.Decode found in data leaving
// rest, is all data holds but white space.
func checkFraming(data, rest []byte, block *pem.Block) error {
	switch {
	case len(bytes.TrimSpace(rest)) > 0:
		return ErrTrailingData
	case !bytes.HasPrefix(bytes.TrimSpace(data), pemBegin) || bytes.Count(data, pemBegin) > 1:
		return ErrLeadingData
	case len(block.Headers) > 0:
		return ErrPEMHeaders
	}
	return nil
}

// GeneralName tags (RFC 5280 section 4.2.1.6) that crypto/x509 decodes.
const (
	sanTagEmail = 1
	sanTagDNS   = 2
	sanTagURI   = 6
	sanTagIP    = 7
)

var oidSubjectAltName = asn1.ObjectIdentifier{2, 5, 29, 17}

// unsupportedSANTags returns the tags of subjectAltName entries that
// crypto/x509 silently drops (otherName, directoryName, registeredID, ...),
// so that a request cannot hide a name from the checks. An email, DNS, URI
// or IP entry in constructed form, which crypto/x509 drops too (it is not
// DER), is an error.
func unsupportedSANTags(exts []pkix.Extension) ([]int, error) {
	var tags []int
	for _, ext := range exts {
		if !ext.Id.Equal(oidSubjectAltName) {
			continue
		}
		extTags, err := sanTags(ext.Value)
		if err != nil {
			return nil, err
		}
		for _, t := range extTags {
			if t.class != asn1.ClassContextSpecific || !knownSANTag(t.tag) {
				tags = append(tags, t.tag)
			}
		}
	}
	return tags, nil
}

type sanTag struct{ class, tag int }

func sanTags(der []byte) ([]sanTag, error) {
	var seq asn1.RawValue
	rest, err := asn1.Unmarshal(der, &seq)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadSANExtension, err)
	}
	if len(rest) > 0 || seq.Class != asn1.ClassUniversal || seq.Tag != asn1.TagSequence || !seq.IsCompound {
		return nil, fmt.Errorf("%w: not a single SEQUENCE", ErrBadSANExtension)
	}
	var tags []sanTag
	for names := seq.Bytes; len(names) > 0; {
		var name asn1.RawValue
		names, err = asn1.Unmarshal(names, &name)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadSANExtension, err)
		}
		if name.Class == asn1.ClassContextSpecific && knownSANTag(name.Tag) && name.IsCompound {
			// crypto/x509 skips it, so it would hide a name from the checks.
			return nil, fmt.Errorf("%w: GeneralName [%d] in constructed form", ErrBadSANExtension, name.Tag)
		}
		tags = append(tags, sanTag{class: name.Class, tag: name.Tag})
	}
	return tags, nil
}

func knownSANTag(tag int) bool {
	switch tag {
	case sanTagEmail, sanTagDNS, sanTagURI, sanTagIP:
		return true
	}
	return false
}
