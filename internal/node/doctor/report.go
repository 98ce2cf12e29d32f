package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/redact"
)

// Verdict is a check's outcome.
type Verdict string

// Verdicts.
const (
	OK      Verdict = "ok"
	Warn    Verdict = "warn"
	Fail    Verdict = "fail"
	Skipped Verdict = "skipped"
)

// Check identifiers.
const (
	CheckIMDS         = "instance-metadata"
	CheckUserData     = "user-data"
	CheckClock        = "clock"
	CheckDisk         = "disk"
	CheckEndpoint     = "api-endpoint"
	CheckCredential   = "credential"
	CheckIdentity     = "identity"
	CheckRegistered   = "registration"
	CheckServingCert  = "serving-certificate"
	CheckVersions     = "versions"
	CheckRuntime      = "runtime"
	CheckMaxPods      = "max-pods"
	CheckKubeletPort  = "kubelet-port"
	CheckAccelerators = "accelerators"
)

// CheckOrder is the order the checks are reported in: causes before what
// they break (the metadata service before the user data it serves, the
// disk before the runtime that writes to it).
var CheckOrder = []string{CheckIMDS, CheckUserData, CheckClock, CheckDisk, CheckEndpoint, CheckCredential, CheckIdentity,
	CheckRegistered, CheckServingCert, CheckVersions, CheckRuntime, CheckMaxPods, CheckKubeletPort, CheckAccelerators}

// title names a check for people.
func title(id string) string {
	switch id {
	case CheckUserData:
		return "user data"
	case CheckIMDS:
		return "instance metadata"
	case CheckEndpoint:
		return "API endpoint"
	case CheckRegistered:
		return "registration"
	case CheckServingCert:
		return "serving certificate"
	case CheckMaxPods:
		return "max pods"
	case CheckKubeletPort:
		return "kubelet port"
	}
	return id // clock, disk, credential, identity, versions, runtime, accelerators
}

// Result is one check's outcome.
type Result struct {
	ID      string  `json:"id"`
	Title   string  `json:"title"`
	Verdict Verdict `json:"verdict"`
	// Summary is one line saying what was found.
	Summary string `json:"summary"`
	// Evidence are the facts the verdict rests on.
	Evidence []string `json:"evidence,omitempty"`
	// Action is one sentence saying what to do (empty when ok).
	Action string `json:"action,omitempty"`
}

// Report is a whole doctor run.
type Report struct {
	// Node is the name the kubelet registers (or will register) under.
	Node     string    `json:"node"`
	Started  time.Time `json:"started"`
	Duration Duration  `json:"duration"`
	Checks   []Result  `json:"checks"`
	Failed   int       `json:"failed"`
	Warnings int       `json:"warnings"`
}

// Duration marshals as a Go duration string.
type Duration time.Duration

// MarshalJSON writes "1.234s".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).Round(time.Millisecond).String())
}

// UnmarshalJSON reads "1.234s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// Healthy reports whether no check failed.
func (r Report) Healthy() bool { return r.Failed == 0 }

// Check returns the result of one check.
func (r Report) Check(id string) (Result, bool) {
	for _, c := range r.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return Result{}, false
}

// Text renders the report for people, with secrets redacted.
func (r Report) Text() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "nodeboot doctor: node %s: %s (%s)\n", orUnknown(r.Node), r.tally(), time.Duration(r.Duration).Round(time.Millisecond))
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "%-5s %-20s %s\n", label(c.Verdict), c.Title, c.Summary)
		for _, e := range c.Evidence {
			for _, line := range strings.Split(e, "\n") {
				fmt.Fprintf(&b, "%26s %s\n", "", line)
			}
		}
		if c.Action != "" && c.Verdict != OK {
			fmt.Fprintf(&b, "%26s what to do: %s\n", "", c.Action)
		}
	}
	out, _ := redact.Bytes([]byte(b.String()))
	return out
}

// JSON renders the report as indented JSON, with secrets redacted.
func (r Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	out, _ := redact.Bytes(append(b, '\n'))
	return out, nil
}

// WriteText writes Text to w.
func (r Report) WriteText(w io.Writer) error {
	_, err := w.Write(r.Text())
	return err
}

func (r Report) tally() string {
	switch {
	case r.Failed == 0 && r.Warnings == 0:
		return fmt.Sprintf("all %d checks ok", len(r.Checks))
	default:
		return fmt.Sprintf("%d failed, %d warning(s) of %d checks", r.Failed, r.Warnings, len(r.Checks))
	}
}

func label(v Verdict) string {
	switch v {
	case Fail:
		return "FAIL"
	case Warn:
		return "WARN"
	case Skipped:
		return "skip"
	}
	return "ok"
}

func orUnknown(s string) string {
	if s == "" {
		return "(name unknown)"
	}
	return s
}
