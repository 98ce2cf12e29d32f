package apply

import (
	"errors"
	"fmt"
	"io/fs"
	"path"

	"golang.org/x/sys/unix"

	"github.com/nodeboot/nodeboot/internal/inroot"
)

// commit installs the prepared steps: journal, renames and removals, then
// the journal is dropped. A failing step puts everything back.
func (t *txn) commit(beforeStep func(int, string) error) error {
	if err := writeJournal(t.root, t.steps); err != nil {
		t.discard()
		return err
	}
	for i, s := range t.steps {
		var err error
		if beforeStep != nil {
			err = beforeStep(i, s.Path)
		}
		if errors.Is(err, errSimulatedCrash) {
			return err
		}
		if err == nil {
			err = t.do(s)
		}
		if err != nil {
			return t.abort(s, err)
		}
		failpoint(i + 1)
	}
	for _, d := range t.dirs {
		_ = d.Sync()
	}
	// Once the journal is gone the new set stands; the links that kept the
	// previous files are only garbage from here on.
	if err := removeJournal(t.root); err != nil {
		return err
	}
	for _, s := range t.steps {
		if s.Backup != "" {
			_ = t.dirs[path.Dir(s.Path)].Remove(s.Backup)
		}
	}
	return nil
}

// do performs one step.
func (t *txn) do(s step) error {
	d, base := t.dirs[path.Dir(s.Path)], path.Base(s.Path)
	if s.Op == opRemove {
		if err := d.Remove(base); err != nil {
			return fmt.Errorf("remove %s: %w", s.Path, explain(err))
		}
		return nil
	}
	if err := d.Rename(s.Tmp, base); err != nil {
		return fmt.Errorf("install %s: %w", s.Path, explain(err))
	}
	return nil
}

// abort puts the previous files back after step s failed with err.
func (t *txn) abort(s step, err error) error {
	if rerr := restore(t.root, t.steps); rerr != nil {
		return errors.Join(err, fmt.Errorf("could not put every previous file back (the next run retries, from %s): %w", JournalPath, rerr))
	}
	if rerr := removeJournal(t.root); rerr != nil {
		return errors.Join(err, rerr)
	}
	return fmt.Errorf("%w; the previous files are back in place", err)
}

// explain adds what EBUSY means for a file.
func explain(err error) error {
	if errors.Is(err, unix.EBUSY) {
		return fmt.Errorf("%w (is it a mount point?)", err)
	}
	return err
}

// restore undoes steps whatever subset of them was done, and removes their
// temporary files; it is safe to run again after being interrupted. A rename
// is atomic, so each step is either done or not:
//
//   - write with a kept file: renaming the link back restores the previous
//     file (if the step was not done, both names are the same file and the
//     rename does nothing; the link is then removed);
//   - write of a new file: if the staged file is still there the step was
//     not done, else the installed file is removed;
//   - remove: the link is renamed back unless the file is still there.
func restore(root *inroot.Root, steps []step) error {
	var errs []error
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		d, err := root.Dir(path.Dir(s.Path))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, restoreStep(d, s))
		d.Close()
	}
	return errors.Join(errs...)
}

func restoreStep(d *inroot.Dir, s step) error {
	base := path.Base(s.Path)
	has := func(name string) bool {
		if name == "" {
			return false
		}
		_, err := d.Lstat(name)
		return err == nil
	}
	var err error
	switch {
	case s.Backup != "" && has(s.Backup) && (s.Op == opWrite || !has(base)):
		err = d.Rename(s.Backup, base)
	case s.Op == opWrite && s.Backup == "" && !has(s.Tmp):
		err = ignoreMissing(d.Remove(base))
	}
	for _, name := range []string{s.Tmp, s.Backup} {
		if err == nil && name != "" {
			err = ignoreMissing(d.Remove(name))
		}
	}
	return err
}

func ignoreMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
