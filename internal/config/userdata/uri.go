package userdata

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
)

// Errors of config-source URIs.
var (
	// ErrUnsupportedScheme is returned (wrapped) for a config source that
	// is neither imds://… nor file:///….
	ErrUnsupportedScheme = errors.New("unsupported config source scheme")
	// ErrInvalidURI is returned (wrapped) for a malformed imds:// or
	// file:// config source.
	ErrInvalidURI = errors.New("invalid config source URI")
)

// URI schemes of config sources, as ParseURI returns them.
const (
	SchemeIMDS = "imds"
	SchemeFile = "file"
)

// ParseURI validates a config-source URI and returns its scheme (SchemeIMDS
// or SchemeFile) and path. Any imds://… URI means EC2 user data; its path is
// what follows "imds://" (normally "user-data"). A file URI must be
// file:///absolute/path without host, query, fragment or ".." segments; its
// path is returned cleaned. Errors wrap ErrUnsupportedScheme or
// ErrInvalidURI, so the CLI can report them as usage errors.
func ParseURI(s string) (scheme, path string, err error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", "", fmt.Errorf("%w %q: %w", ErrInvalidURI, s, err)
	}
	switch strings.ToLower(u.Scheme) {
	case SchemeIMDS:
		if u.Opaque != "" {
			return "", "", fmt.Errorf("%w %q: want imds://user-data", ErrInvalidURI, s)
		}
		return SchemeIMDS, u.Host + u.Path, nil
	case SchemeFile:
		p, err := filePath(u)
		if err != nil {
			return "", "", fmt.Errorf("%w %q: %s", ErrInvalidURI, s, err)
		}
		return SchemeFile, p, nil
	case "":
		return "", "", fmt.Errorf("%w: %q has no scheme; use imds://user-data or file:///absolute/path", ErrUnsupportedScheme, s)
	}
	return "", "", fmt.Errorf("%w %q in %q; use imds://user-data or file:///absolute/path", ErrUnsupportedScheme, u.Scheme, s)
}

// filePath checks a file URI and returns its cleaned absolute path.
func filePath(u *url.URL) (string, error) {
	switch {
	case u.Opaque != "":
		return "", errors.New("want file:///absolute/path")
	case u.Host != "":
		return "", fmt.Errorf("host %q is not allowed; want file:///absolute/path (three slashes)", u.Host)
	case u.RawQuery != "" || u.Fragment != "":
		return "", errors.New("query and fragment are not allowed")
	case !strings.HasPrefix(u.Path, "/"):
		return "", errors.New("path must be absolute")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == ".." {
			return "", errors.New(`".." is not allowed in the path`)
		}
	}
	return path.Clean(u.Path), nil
}
