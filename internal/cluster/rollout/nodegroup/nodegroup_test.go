package nodegroup

import (
	"strings"
	"testing"
)

func TestInstanceIDFromProviderID(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "EKS node", in: "aws:///us-west-2a/i-0123456789abcdef0", want: "i-0123456789abcdef0"},
		{name: "no zone", in: "aws:///i-0abc", want: "i-0abc"},
		{name: "other cloud", in: "gce://project/zone/name", want: ""},
		{name: "not an instance", in: "aws:///us-west-2a/fargate-ip-10-0-0-1", want: ""},
		{name: "empty", in: "", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := InstanceIDFromProviderID(tc.in); got != tc.want {
				t.Errorf("InstanceIDFromProviderID(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestIsVersionNumber(t *testing.T) {
	for v, want := range map[string]bool{"1": true, "42": true, "0": false, "01": false, "$Latest": false, "": false, "1a": false} {
		if got := IsVersionNumber(v); got != want {
			t.Errorf("IsVersionNumber(%q) = %t, want %t", v, got, want)
		}
	}
}

func FuzzInstanceIDFromProviderID(f *testing.F) {
	f.Add("aws:///us-west-2a/i-0123456789abcdef0")
	f.Add("aws://i-")
	f.Fuzz(func(t *testing.T, s string) {
		id := InstanceIDFromProviderID(s)
		if id != "" && (!strings.HasPrefix(id, "i-") || !strings.HasSuffix(s, id) || strings.Contains(id, "/")) {
			t.Errorf("InstanceIDFromProviderID(%q) = %q", s, id)
		}
	})
}
