// Package source reads the agent's config sources on the node: EC2 user
// data through IMDS (imds://user-data) and files or drop-in directories
// under --root (file:///path). It hands their bytes to the pure core
// (userdata.Split), which never touches the host.
package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/inroot"
)

// ErrNoUserData is what a UserDataFetcher returns (wrapped) when the
// instance has no user data; Reader treats it as zero documents.
var ErrNoUserData = errors.New("no user data")

// Errors of sources that cannot be read safely.
var (
	// ErrTooLarge: a source exceeds MaxSourceSize.
	ErrTooLarge = inroot.ErrTooLarge
	// ErrNotRegular: a file source is a named pipe, a device or a socket,
	// which could block the read forever or never end.
	ErrNotRegular = inroot.ErrNotRegular
)

// MaxSourceSize caps each source: the user data, a file, and a drop-in
// directory's files together. EC2 user data is at most 16 KiB (before
// base64), so 1 MiB leaves 64 times that; the size is checked before
// anything is read, so a huge file costs no memory.
const MaxSourceSize = 1 << 20

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
// fs.ErrNotExist, so a mistyped file name is not silently ignored. Paths are
// resolved inside Root, symbolic links included. A source over
// MaxSourceSize (ErrTooLarge) or a file that is not a regular file
// (ErrNotRegular: a named pipe would block forever) is refused before it
// is read. Content problems are returned in the diag.List; I/O failures and
// bad URIs (wrapping ErrUnsupportedScheme or ErrInvalidURI) as error.
func (r Reader) Read(ctx context.Context, uri string) ([]userdata.Document, diag.List, error) {
	scheme, p, err := userdata.ParseURI(uri)
	if err != nil {
		return nil, nil, err
	}
	if scheme == userdata.SchemeIMDS {
		return r.readIMDS(ctx, uri)
	}
	return r.readFileSource(ctx, uri, p)
}

func (r Reader) readIMDS(ctx context.Context, uri string) ([]userdata.Document, diag.List, error) {
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
	if len(data) > MaxSourceSize {
		return nil, nil, fmt.Errorf("read %s: %w: larger than %s", uri, ErrTooLarge, inroot.Size(MaxSourceSize))
	}
	docs, probs := userdata.Split(diag.Source{URI: uri}, data)
	return docs, probs, nil
}

// readFileSource reads p (absolute, cleaned, without "..") inside the root:
// symbolic links are followed as the node would see them with the root as
// "/", never out of it.
func (r Reader) readFileSource(ctx context.Context, uri, p string) ([]userdata.Document, diag.List, error) {
	root, err := inroot.Open(r.Root)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", uri, err)
	}
	defer root.Close()
	info, err := root.Stat(p)
	if errors.Is(err, fs.ErrNotExist) && namesDirectory(uri) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", uri, err)
	}
	if !info.IsDir() {
		data, err := root.ReadFile(p, MaxSourceSize)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", uri, err)
		}
		docs, probs := userdata.Split(diag.Source{URI: uri}, data)
		return docs, probs, nil
	}
	return r.readDropIns(ctx, root, uri, path.Clean(p))
}

// readDropIns reads the drop-in directory p: its *.yaml, *.yml and *.json
// regular files in lexical order, at most MaxSourceSize in all.
func (r Reader) readDropIns(ctx context.Context, root *inroot.Root, uri, p string) ([]userdata.Document, diag.List, error) {
	dir, err := root.Dir(p)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", uri, err)
	}
	defer dir.Close()
	entries, err := dir.ReadDir()
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", uri, err)
	}
	var docs []userdata.Document
	var probs diag.List
	budget := int64(MaxSourceSize)
	for _, name := range configFileNames(entries) {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		data, err := dir.ReadFile(name, budget)
		if errors.Is(err, ErrTooLarge) {
			return nil, nil, fmt.Errorf("read %s: drop-in files total more than %s: %w", uri, inroot.Size(MaxSourceSize), err)
		}
		fileURI := "file://" + path.Join(p, name)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", fileURI, err)
		}
		budget -= int64(len(data))
		d, pr := userdata.Split(diag.Source{URI: fileURI}, data)
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
