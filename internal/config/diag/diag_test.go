package diag

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestSourceString(t *testing.T) {
	tests := []struct {
		name string
		src  Source
		want string
	}{
		{name: "file", src: Source{URI: "file:///x.yaml", Line: 1}, want: "file:///x.yaml"},
		{name: "part", src: Source{URI: "imds://user-data", Part: 2, ContentType: "application/node.eks.aws"}, want: "imds://user-data part 2 (application/node.eks.aws)"},
		{name: "part without content type", src: Source{URI: "imds://user-data", Part: 2}, want: "imds://user-data part 2"},
		{name: "decoded part", src: Source{URI: "imds://user-data", Part: 2, ContentType: "application/node.eks.aws", Decoded: "base64"}, want: "imds://user-data part 2 (application/node.eks.aws, base64-decoded)"},
		{name: "decoded part without content type", src: Source{URI: "imds://user-data", Part: 3, Decoded: "quoted-printable"}, want: "imds://user-data part 3 (quoted-printable-decoded)"},
		{name: "decoded payload", src: Source{URI: "imds://user-data", Decoded: "gzip+base64"}, want: "imds://user-data (gzip+base64-decoded)"},
		{name: "content type without part is not shown", src: Source{URI: "imds://user-data", ContentType: "text/x-shellscript"}, want: "imds://user-data"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.src.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		name string
		p    Problem
		want string
	}{
		{
			name: "plain part",
			p:    Problem{Severity: SeverityError, Source: Source{URI: "imds://user-data", Part: 2, ContentType: "application/node.eks.aws"}, Field: "spec.cluster.cidr", Position: Position{Line: 7, Column: 5}, Message: "bad"},
			want: "error: imds://user-data part 2 (application/node.eks.aws) line 7:5: spec.cluster.cidr: bad",
		},
		{
			name: "decoded part",
			p:    Problem{Severity: SeverityError, Source: Source{URI: "imds://user-data", Part: 2, ContentType: "application/node.eks.aws", Decoded: "base64"}, Field: "spec.cluster.cidr", Position: Position{Line: 5, Column: 7}, Message: "bad"},
			want: "error: imds://user-data part 2 (application/node.eks.aws, base64-decoded) line 5:7: spec.cluster.cidr: bad",
		},
		{
			name: "decoded payload without position",
			p:    Problem{Severity: SeverityWarning, Source: Source{URI: "file:///x", Decoded: "gzip"}, Message: "odd"},
			want: "warning: file:///x (gzip-decoded): odd",
		},
		{
			name: "no source",
			p:    Problem{Severity: SeverityError, Message: "broken"},
			want: "error: broken",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSourceJSON(t *testing.T) {
	tests := []struct {
		name string
		src  Source
		want string
	}{
		{name: "plain", src: Source{URI: "file:///x", Line: 3}, want: `{"uri":"file:///x","line":3}`},
		{name: "decoded", src: Source{URI: "imds://user-data", Part: 1, Line: 1, Decoded: "base64"}, want: `{"uri":"imds://user-data","part":1,"line":1,"decoded":"base64"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("json = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestLimit checks that long problem lists are cut to MaxProblems plus a
// summary that keeps the list's error status.
func TestLimit(t *testing.T) {
	src := Source{URI: "imds://user-data"}
	many := func(n int, sev Severity) List {
		var l List
		for i := range n {
			l = append(l, Problem{Severity: sev, Source: src, Position: Position{Line: i + 1}, Message: "m"})
		}
		return l
	}
	if got := Limit(many(MaxProblems, SeverityError), src); len(got) != MaxProblems {
		t.Errorf("a list at the limit was cut to %d", len(got))
	}
	warnings := append(many(MaxProblems, SeverityWarning), many(3, SeverityError)...)
	got := Limit(warnings, src)
	if len(got) != MaxProblems+1 || !got.HasErrors() {
		t.Fatalf("cut list: %d problems, errors %v", len(got), got.HasErrors())
	}
	if last := got[MaxProblems]; last.Message != "3 more problems in this document are not shown (3 of them errors); fix the ones above and check again" {
		t.Errorf("summary = %q", last.Message)
	}
	if got := Limit(many(MaxProblems+5, SeverityWarning), src); got.HasErrors() {
		t.Errorf("warnings only became an error")
	}
}

// TestRelax checks that only StrictOnly errors become warnings.
func TestRelax(t *testing.T) {
	l := List{
		{Severity: SeverityError, Message: "unknown field", StrictOnly: true},
		{Severity: SeverityError, Message: "bad"},
		{Severity: SeverityWarning, Message: "odd"},
	}
	got := Relax(l)
	if got.HasErrors() != true || got[0].Severity != SeverityWarning || got[1].Severity != SeverityError ||
		got[0].Message != "unknown field (nodeadm ignores it, and so does this boot; config check and init --strict refuse it)" {
		t.Errorf("Relax = %+v", got)
	}
	if l[0].Severity != SeverityError {
		t.Error("Relax modified its input")
	}
	if Relax(l[:1]).HasErrors() {
		t.Error("a StrictOnly error is still an error")
	}
}

// TestHidesValue checks which paths' values are never shown.
func TestHidesValue(t *testing.T) {
	for path, want := range map[string]bool{
		"spec.identity.bootstrapToken.token": true,
		"spec.identity.bootstrapToken":       true, // a string here may be the token
		"spec.identity":                      true,
		"spec":                               true,
		"":                                   true,
		"spec.identity.bootstrapToken.caCertHashes[0]":           false,
		"spec.identity.exec.env[AWS_SECRET_ACCESS_KEY]":          true,
		"spec.identity.exec.command":                             false,
		"spec.instance.environment[default][HTTPS_PROXY]":        true,
		"spec.instance.environment[default]":                     true,
		"spec.instance.localStorage.strategy":                    false,
		"spec.containerd.config":                                 true,
		"spec.containerd.baseRuntimeSpec[process]":               false,
		"spec.kubelet.config[staticPodURLHeader][Authorization]": true,
		"spec.kubelet.config[maxPods]":                           false,
		"spec.kubelet.config[evictionHard][memory.available]":    false,
		"spec.kubelet.flags[0]":                                  false,
		"spec.cluster.name":                                      false,
	} {
		if got := HidesValue(path); got != want {
			t.Errorf("HidesValue(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestFieldErrorBody checks that secret values are left out and long ones
// cut.
func TestFieldErrorBody(t *testing.T) {
	token := field.Invalid(field.NewPath("spec", "identity", "bootstrapToken", "token"), "k7x2mp.q9w8e7r6t5y4u3i2", "bad")
	if got := FieldErrorBody(token); got != "Invalid value: bad" {
		t.Errorf("token: %q", got)
	}
	long := field.Invalid(field.NewPath("spec", "cluster", "cidr"), strings.Repeat("x", 100), "bad")
	if got := FieldErrorBody(long); got != `Invalid value: "`+strings.Repeat("x", 60)+`…": bad` {
		t.Errorf("long: %q", got)
	}
	short := field.Invalid(field.NewPath("spec", "cluster", "cidr"), "10.0/16", "bad")
	if got := FieldErrorBody(short); got != short.ErrorBody() {
		t.Errorf("short: %q", got)
	}
}
