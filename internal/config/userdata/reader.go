package userdata

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// ErrNoUserData is what a UserDataFetcher returns (wrapped) when the
// instance has no user data; Reader treats it as zero documents.
var ErrNoUserData = errors.New("no user data")

// UserDataFetcher fetches raw EC2 user data (IMDS /latest/user-data).
type UserDataFetcher interface {
	UserData(ctx context.Context) ([]byte, error)
}

// Reader reads config sources into documents.
type Reader struct {
	// Root is the directory file:// paths are taken under ("" means "/").
	Root string
	// IMDS fetches user data for imds:// sources.
	IMDS UserDataFetcher
}

// Read reads the config source uri (imds://user-data or file:///path) and
// splits it into documents. A file is split as one payload (it may be
// MIME); a directory contributes its regular *.yaml, *.yml and *.json
// entries (case-insensitive, not recursive) in lexical order, each with its
// own file:// URI. Missing user data, an empty directory and a missing
// directory named with a trailing slash (file:///etc/eks/nodeadm.d/) give
// zero documents; a missing path without the slash is an error wrapping
// fs.ErrNotExist, so a mistyped file name is not silently ignored. Content problems are returned in the diag.List; I/O failures
// and bad URIs (wrapping ErrUnsupportedScheme or ErrInvalidURI) as error.
func (r Reader) Read(ctx context.Context, uri string) ([]Document, diag.List, error) {
	scheme, p, err := ParseURI(uri)
	if err != nil {
		return nil, nil, err
	}
	if scheme == SchemeIMDS {
		return r.readIMDS(ctx, uri)
	}
	return r.readFileSource(ctx, uri, p)
}

func (r Reader) readIMDS(ctx context.Context, uri string) ([]Document, diag.List, error) {
	if r.IMDS == nil {
		return nil, nil, fmt.Errorf("read %s: no IMDS client configured", uri)
	}
	data, err := r.IMDS.UserData(ctx)
	if errors.Is(err, ErrNoUserData) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", uri, err)
	}
	docs, probs := Split(diag.Source{URI: uri}, data)
	return docs, probs, nil
}

// readFileSource reads p (absolute, cleaned, without "..") under the root.
func (r Reader) readFileSource(ctx context.Context, uri, p string) ([]Document, diag.List, error) {
	full := r.hostPath(p)
	info, err := os.Stat(full)
	if errors.Is(err, fs.ErrNotExist) && namesDirectory(uri) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", uri, err)
	}
	if !info.IsDir() {
		return r.readOneFile(uri, full)
	}
	entries, err := os.ReadDir(full)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", uri, err)
	}
	var docs []Document
	var probs diag.List
	for _, name := range configFileNames(entries) {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		d, pr, err := r.readOneFile("file://"+path.Join(p, name), filepath.Join(full, name))
		if err != nil {
			return nil, nil, err
		}
		docs = append(docs, d...)
		probs = append(probs, pr...)
	}
	return docs, probs, nil
}

// namesDirectory reports whether a file URI ends with "/", i.e. names a
// drop-in directory, which may be missing, rather than one file, which
// must exist.
func namesDirectory(uri string) bool {
	return strings.HasSuffix(uri, "/")
}

// hostPath places the URI path p under the root. p has no ".." segments
// (ParseURI refuses them), so the result cannot leave the root lexically.
func (r Reader) hostPath(p string) string {
	root := r.Root
	if root == "" {
		root = "/"
	}
	return filepath.Join(root, filepath.FromSlash(p))
}

func (r Reader) readOneFile(uri, full string) ([]Document, diag.List, error) {
	data, err := os.ReadFile(full)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", uri, err)
	}
	docs, probs := Split(diag.Source{URI: uri}, data)
	return docs, probs, nil
}

// configFileNames returns the regular entries named *.yaml, *.yml or *.json
// (case-insensitive), sorted.
func configFileNames(entries []os.DirEntry) []string {
	var names []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		lower := strings.ToLower(e.Name())
		if strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml") || strings.HasSuffix(lower, ".json") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}
