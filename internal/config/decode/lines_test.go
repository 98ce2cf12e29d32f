package decode

import "testing"

// TestLineIndexPlacesParserPositions checks that the parser's line and
// column land on the line and column an editor shows, for every line
// break the parser knows.
func TestLineIndexPlacesParserPositions(t *testing.T) {
	tests := []struct {
		name             string
		data             string
		line, column     int // the parser's
		wantLine, wantCo int
	}{
		{"LF", "a\nbc\nd", 3, 1, 3, 1},
		{"CRLF", "a\r\nbc\r\nd", 3, 1, 3, 1},
		{"lone CR", "ab\rc\nd", 2, 1, 1, 4},
		{"two lone CRs", "\r\rx", 3, 1, 1, 3},
		{"NEL counts as one character", "é\u0085x", 2, 1, 1, 3},
		{"LS", "a\u2028b\nc", 2, 1, 1, 3},
		{"PS", "a\u2029b\nc", 3, 1, 2, 1},
		{"after the end", "\r\r[", 4, 0, 2, 0},
		{"line zero unchanged", "a\rb", 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, column := indexLines([]byte(tt.data)).position(tt.line, tt.column)
			if line != tt.wantLine || column != tt.wantCo {
				t.Errorf("position(%d, %d) = %d:%d, want %d:%d", tt.line, tt.column, line, column, tt.wantLine, tt.wantCo)
			}
		})
	}
}

// TestLineIndexText checks that a parser line's text excludes its break.
func TestLineIndexText(t *testing.T) {
	data := []byte("a\r\nb\rc\u2028d")
	x := indexLines(data)
	for i, want := range []string{"a", "b", "c", "d"} {
		if got := string(x.text(data, i+1)); got != want {
			t.Errorf("text(%d) = %q, want %q", i+1, got, want)
		}
	}
	if got := x.text(data, 5); got != nil {
		t.Errorf("text past the end = %q, want nil", got)
	}
}

// TestProblemsAfterLoneLineBreaksStayOnTheEditorsLine decodes documents
// whose lines the YAML parser splits where editors do not, and checks
// that problems point where an editor shows them.
func TestProblemsAfterLoneLineBreaksStayOnTheEditorsLine(t *testing.T) {
	tests := []struct {
		name string
		data string
		want want
	}{
		{"unknown field after a lone CR", eks + "  cluster:\r    nmae: c\n", want{"spec.cluster.nmae", 8, 16, "unknown field"}},
		{"unknown field after LS", eks + "  cluster:\u2028    nmae: c\n", want{"spec.cluster.nmae", 8, 16, "unknown field"}},
		{"syntax error after lone CRs", "a: 1\r\rb: [", want{"", 6, 0, "YAML syntax error"}},
		{"root not a mapping after lone CRs", "\r\r1", want{"", 5, 3, "must be a mapping"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems := decodeString(tt.data)
			assertProblems(t, problems, []want{tt.want})
		})
	}
}
