package cli

import (
	"errors"
	"slices"
	"testing"
)

func TestAbsoluteSources(t *testing.T) {
	getwd := func() (string, error) { return "/test-case", nil }
	for _, tc := range []struct {
		name, root, in, want string
		usage                bool
	}{
		{name: "nodeadm's relative form", root: "/", in: "file://config.yaml", want: "file:///test-case/config.yaml"},
		{name: "relative with a directory", root: "/", in: "file://scenarios/a/config.yaml", want: "file:///test-case/scenarios/a/config.yaml"},
		{name: "absolute unchanged", root: "/", in: "file:///etc/eks/nodeadm.d", want: "file:///etc/eks/nodeadm.d"},
		{name: "imds unchanged", root: "/", in: "imds://user-data", want: "imds://user-data"},
		{name: "working directory inside the root", root: "/test-case", in: "file://config.yaml", want: "file:///config.yaml"},
		{name: "working directory outside the root", root: "/srv/node", in: "file://config.yaml", usage: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := absoluteSources([]string{tc.in}, tc.root, getwd)
			if tc.usage {
				if !errors.Is(err, ErrUsage) {
					t.Fatalf("got %v, %v; want a usage error", got, err)
				}
				return
			}
			if err != nil || !slices.Equal(got, []string{tc.want}) {
				t.Fatalf("got %v, %v; want %s", got, err, tc.want)
			}
		})
	}
}
