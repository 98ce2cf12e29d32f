package bundle

import (
	"time"

	"github.com/nodeboot/nodeboot/internal/node/redact"
)

// Manifest describes a bundle: every item collected (or looked for), how,
// and the limits the run kept to. It is the archive's manifest.json.
type Manifest struct {
	Tool    string    `json:"tool"`
	Node    string    `json:"node,omitempty"`
	Created time.Time `json:"created"`
	// Duration is how long collecting took.
	Duration string `json:"duration"`
	Root     string `json:"root"`
	// Window is the time window of the logs.
	Window LogWindow `json:"window"`
	// Logs says where the logs came from: the journal, or files.
	Logs   string   `json:"logs"`
	Limits Limits   `json:"limits"`
	Notes  []string `json:"notes,omitempty"`
	Items  []Item   `json:"items"`
	// RedactionsListed and RedactionsTotal count the masked values listed
	// in redactions.json (at most maxListedRedactions) and in all.
	RedactionsListed int `json:"redactionsListed"`
	RedactionsTotal  int `json:"redactionsTotal"`
}

// LogWindow is the log window of a bundle.
type LogWindow struct {
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
}

// Limits are the bounds a run keeps to.
type Limits struct {
	CommandTimeout string `json:"commandTimeout"`
	RunTimeout     string `json:"runTimeout"`
	MaxItemBytes   int    `json:"maxItemBytes"`
	MaxTotalBytes  int    `json:"maxTotalBytes"`
	MinFreeBytes   uint64 `json:"minFreeBytes"`
	// MaxLineBytes is the longest line scanned; a file with a longer one
	// is withheld.
	MaxLineBytes int `json:"maxLineBytes"`
}

// Item is one collected entry.
type Item struct {
	// Name is the path in the archive (empty when nothing was written).
	Name string `json:"name,omitempty"`
	Kind string `json:"kind"`
	// Source is the node path read, when the item is a file.
	Source string `json:"source,omitempty"`
	// Command is the command line run, when the item is a command.
	Command    string  `json:"command,omitempty"`
	ExitCode   *int    `json:"exitCode,omitempty"`
	DurationMS float64 `json:"durationMs"`
	// Size is the number of bytes written to the archive.
	Size int `json:"size"`
	// Truncated is true when the item was cut to a size limit.
	Truncated bool `json:"truncated"`
	// Redactions counts the values masked in it.
	Redactions int `json:"redactions"`
	// Withheld is set when the item was left out because it could not be
	// scanned for secrets within the bounds (binary data, a line over
	// 4 MiB, gzip that does not inflate within the item limit); Error says
	// why. Nothing of it is in the archive.
	Withheld bool `json:"withheld,omitempty"`
	// Error says why the item is missing or incomplete.
	Error string `json:"error,omitempty"`
	// Note adds what a reader needs (window applied, lines dropped).
	Note string `json:"note,omitempty"`
}

// Redaction is one masked value: in which item, where and why; never what.
type Redaction struct {
	Item string `json:"item"`
	redact.Finding
}

// Item kinds.
const (
	KindReport   = "doctor report"
	KindLog      = "log"
	KindConfig   = "configuration"
	KindUserData = "user data"
	KindSystem   = "system facts"
	KindRuntime  = "container runtime"
)
