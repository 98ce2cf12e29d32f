package agent

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/maxpods/celexpr"
)

// TestCheckWarnsAboutUnappliedSettings: config check names every accepted
// setting this version does not apply, at the line that sets it, and the
// config stays valid.
func TestCheckWarnsAboutUnappliedSettings(t *testing.T) {
	dir := t.TempDir()
	userData := append(readCase(t, "minimal"), "  featureGates:\n    FastImagePull: true\n"...)
	if err := os.WriteFile(filepath.Join(dir, "user-data"), userData, 0o644); err != nil {
		t.Fatal(err)
	}
	a := &Agent{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Expressions: celexpr.Evaluator{}, Root: dir}
	rep, err := a.Check(context.Background(), []string{"file:///user-data"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Valid {
		t.Fatalf("invalid: %v", rep.Problems)
	}
	warnings := rep.Problems.Filter(diag.SeverityWarning)
	if len(warnings) != 1 {
		t.Fatalf("warnings = %v, want one", warnings)
	}
	w := warnings[0]
	if w.Field != "spec.featureGates[FastImagePull]" || w.Position.Line != 10 || !strings.Contains(w.Message, "only partly applied") {
		t.Fatalf("warning = %s (line %d)", w, w.Position.Line)
	}
}

// TestNoUnappliedWarningsWithoutTheSettings: a config that uses none of
// them gets no such warning, and one that turns a gate off neither.
func TestNoUnappliedWarningsWithoutTheSettings(t *testing.T) {
	off := hub.Spec{FeatureGates: map[string]bool{"FastImagePull": false}}
	for _, spec := range []hub.Spec{{}, off} {
		in := Input{Fragments: []Fragment{{Spec: spec}}}
		if w := in.unappliedWarnings(spec); len(w) != 0 {
			t.Fatalf("warnings = %v", w)
		}
	}
}
