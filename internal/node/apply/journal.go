package apply

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/nodeboot/nodeboot/internal/inroot"
)

// journal is the file format of JournalPath.
type journal struct {
	Steps []step `json:"steps"`
}

// maxJournalSize bounds what is read back; a journal lists a few dozen steps.
const maxJournalSize = 1 << 20

// writeJournal records steps durably before the first of them is done.
func writeJournal(root *inroot.Root, steps []step) error {
	data, err := json.Marshal(journal{Steps: steps})
	if err != nil {
		return err
	}
	d, err := root.MkdirAll(path.Dir(JournalPath), 0o700)
	if err != nil {
		return fmt.Errorf("write the journal: %w", err)
	}
	defer d.Close()
	removeStale(d)
	if err := d.WriteFile(path.Base(JournalPath), data, 0o600); err != nil {
		return fmt.Errorf("write the journal: %w", err)
	}
	return nil
}

// removeJournal marks the rename set as finished (installed or restored).
func removeJournal(root *inroot.Root) error {
	d, err := root.Dir(path.Dir(JournalPath))
	if err != nil {
		return fmt.Errorf("remove the journal: %w", err)
	}
	defer d.Close()
	if err := d.Remove(path.Base(JournalPath)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the journal: %w", err)
	}
	return d.Sync()
}

// recoverJournal rolls back the rename set of a run that was killed while
// installing it and returns the paths it restored; without a journal it
// does nothing. The current run then installs its own set whole, so a rerun
// after any crash converges.
func recoverJournal(root *inroot.Root) ([]string, error) {
	data, err := root.ReadFile(JournalPath, maxJournalSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("%s: %w", JournalPath, err)
	}
	for _, s := range j.Steps {
		if _, err := inroot.Rel(s.Path); err != nil || !validName(s.Tmp) || !validName(s.Backup) {
			return nil, fmt.Errorf("%s: step %+v is not one nodeboot writes", JournalPath, s)
		}
	}
	if err := restore(root, j.Steps); err != nil {
		return nil, err
	}
	if err := removeJournal(root); err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(j.Steps))
	for _, s := range j.Steps {
		paths = append(paths, s.Path)
	}
	return paths, nil
}

// validName accepts the names a journal may hold: empty, or a temporary
// file's name (no directory part).
func validName(name string) bool {
	return name == "" || (inroot.IsTemp(name) && path.Base(name) == name)
}
