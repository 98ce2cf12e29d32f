package validate

import "testing"

func TestOneLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "plain", in: "invalid max pods expression: result type is bool, want int", want: "invalid max pods expression: result type is bool, want int"},
		{name: "cel excerpt", in: "invalid max pods expression: ERROR: <input>:1:5: Syntax error: x\n | a +\n | ....^\nERROR: <input>:1:1: y\n | a +\n | ^",
			want: "invalid max pods expression: ERROR: <input>:1:5: Syntax error: x; ERROR: <input>:1:1: y"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := oneLine(tc.in); got != tc.want {
				t.Errorf("oneLine() = %q, want %q", got, tc.want)
			}
		})
	}
}
