package apply

import (
	"errors"
	"fmt"

	"github.com/nodeboot/nodeboot/internal/inroot"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// ErrOutsideRoot is returned for a path that would escape the root.
var ErrOutsideRoot = inroot.ErrOutsideRoot

// JournalPath is the node path of the journal that lists the steps of a
// rename set while it is being installed.
const JournalPath = "/var/lib/nodeboot/apply-journal.json"

// Writer applies rendered files under Root ("/" on a real node).
type Writer struct {
	Root string

	// beforeStep, when set (tests), runs before commit step i (the renames
	// of the changed files in order, then the removals) and may fail it.
	beforeStep func(i int, nodePath string) error
}

// Result says what Apply changed.
type Result struct {
	Written   []string // paths (as on the node) whose content or mode changed
	Unchanged []string // paths already up to date
	Removed   []string // paths removed because they are no longer rendered
	// Restored are the paths an interrupted earlier run had changed and
	// that were put back before this run's own changes.
	Restored []string
}

// Changed reports whether anything on disk changed.
func (r Result) Changed() bool { return len(r.Written)+len(r.Removed) > 0 }

// Apply writes files and removes the paths in absent that exist, all or
// nothing. Callers that may run concurrently must hold the root's lock
// (inroot.Root.Lock) around it.
//
//  1. A journal left by an interrupted run is rolled back first, and
//     temporary files earlier runs left behind are removed.
//  2. Every target is checked and every file staged next to its target and
//     synced; each existing file gets a hard link that keeps its content.
//     A failure here (a directory or a mount point where a file must go)
//     changes nothing.
//  3. The journal of the steps is written, the staged files are renamed
//     into place and the absent files removed. A failure in any step puts
//     the previous files back from their links; a crash leaves the journal
//     for the next run to do the same.
func (w Writer) Apply(files []render.File, absent []string) (Result, error) {
	root, err := inroot.Open(w.Root)
	if err != nil {
		return Result{}, err
	}
	defer root.Close()
	restored, err := recoverJournal(root)
	if err != nil {
		return Result{}, fmt.Errorf("restore the files of an interrupted run: %w", err)
	}
	t := &txn{root: root, dirs: map[string]*inroot.Dir{}}
	defer t.close()
	res, err := t.prepare(files, absent)
	res.Restored = restored
	if err != nil {
		t.discard()
		return Result{Restored: restored}, err
	}
	if len(t.steps) == 0 {
		return res, nil
	}
	if err := t.commit(w.beforeStep); err != nil {
		return Result{Restored: restored}, err
	}
	return res, nil
}

// Recover rolls back the rename set of a run that was killed while
// installing it, if any, and returns the paths it put back; the root then
// holds the previous set, whole. Apply does it too; the agent calls it as
// soon as it holds the lock, so that a run that fails before writing
// anything (an invalid configuration, an unreachable API) still leaves no
// mix behind. Temporary files are removed by the next Apply.
func Recover(rootPath string) ([]string, error) {
	root, err := inroot.Open(rootPath)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	restored, err := recoverJournal(root)
	if err != nil {
		return nil, fmt.Errorf("restore the files of an interrupted run: %w", err)
	}
	return restored, nil
}

// errSimulatedCrash, returned by a test's beforeStep, stops Apply where it
// is, as a kill would: no rollback, the journal stays.
var errSimulatedCrash = errors.New("simulated crash")
