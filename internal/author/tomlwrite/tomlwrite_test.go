package tomlwrite

import (
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
)

func TestTOMLValue(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{name: "string escapes", in: "a\"b\\c\nd\x01", want: `"a\"b\\c\nd\u0001"`},
		{name: "whole float", in: 1.0, want: "1.0"},
		{name: "fraction", in: 0.9, want: "0.9"},
		{name: "integer", in: int64(-3), want: "-3"},
		{name: "array", in: []any{"a", int64(1), true}, want: `["a", 1, true]`},
		{name: "offset date-time", in: time.Date(1979, 5, 27, 7, 32, 0, 0, time.UTC), want: "1979-05-27T07:32:00Z"},
		{name: "local date", in: toml.LocalDate{Year: 1979, Month: 5, Day: 27}, want: "1979-05-27"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Value(tc.in, false)
			if err != nil || got != tc.want {
				t.Fatalf("Value(%#v) = %s, %v; want %s", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestValueLiteral(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{name: "plain", in: "ami-0abc", want: "'ami-0abc'"},
		{name: "quote falls back to basic", in: "it's", want: `"it's"`},
		{name: "newline falls back to basic", in: "a\nb", want: `"a\nb"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := Value(tc.in, true); err != nil || got != tc.want {
				t.Fatalf("Value(%q, true) = %s, %v; want %s", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestWriteForms(t *testing.T) {
	root := NewTable()
	k8s := root.Table("settings").Table("kubernetes")
	k8s.Set("cluster-name", "c")
	k8s.Set("max-pods", 29)
	k8s.Set("node-labels", map[string]any{"eks.amazonaws.com/nodegroup": "ng", "a": "b"})
	table, err := Write(root)
	if err != nil {
		t.Fatal(err)
	}
	wantTable := "[settings.kubernetes]\ncluster-name = \"c\"\nmax-pods = 29\n\n[settings.kubernetes.node-labels]\na = \"b\"\n\"eks.amazonaws.com/nodegroup\" = \"ng\"\n"
	if table != wantTable {
		t.Errorf("Write:\n%s\nwant:\n%s", table, wantTable)
	}
	dotted, err := WriteDotted(root, true)
	if err != nil {
		t.Fatal(err)
	}
	wantDotted := "settings.kubernetes.cluster-name = 'c'\nsettings.kubernetes.max-pods = 29\nsettings.kubernetes.node-labels.a = 'b'\nsettings.kubernetes.node-labels.'eks.amazonaws.com/nodegroup' = 'ng'\n"
	if dotted != wantDotted {
		t.Errorf("WriteDotted:\n%s\nwant:\n%s", dotted, wantDotted)
	}
	k8s.Delete("max-pods")
	if k8s.Has("max-pods") || len(k8s.Keys()) != 2 {
		t.Errorf("Delete left %v", k8s.Keys())
	}
}
