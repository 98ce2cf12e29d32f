package userdata

import (
	"errors"
	"testing"
)

func TestParseURI(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		wantScheme string
		wantPath   string
		wantErr    error
	}{
		{name: "imds user-data", in: "imds://user-data", wantScheme: SchemeIMDS, wantPath: "user-data"},
		{name: "imds anything", in: "imds://latest/user-data", wantScheme: SchemeIMDS, wantPath: "latest/user-data"},
		{name: "imds upper-case scheme", in: "IMDS://user-data", wantScheme: SchemeIMDS, wantPath: "user-data"},
		{name: "imds opaque", in: "imds:user-data", wantErr: ErrInvalidURI},
		{name: "file", in: "file:///etc/eks/nodeadm.d/10-a.yaml", wantScheme: SchemeFile, wantPath: "/etc/eks/nodeadm.d/10-a.yaml"},
		{name: "file directory with slash", in: "file:///etc/eks/nodeadm.d/", wantScheme: SchemeFile, wantPath: "/etc/eks/nodeadm.d"},
		{name: "file cleaned", in: "file:///etc//eks/./x", wantScheme: SchemeFile, wantPath: "/etc/eks/x"},
		{name: "file percent-encoded", in: "file:///etc/my%20dir", wantScheme: SchemeFile, wantPath: "/etc/my dir"},
		{name: "file root", in: "file:///", wantScheme: SchemeFile, wantPath: "/"},
		{name: "file with host", in: "file://etc/eks/x", wantErr: ErrInvalidURI},
		{name: "file relative", in: "file:etc/x", wantErr: ErrInvalidURI},
		{name: "file dot-dot", in: "file:///etc/../../x", wantErr: ErrInvalidURI},
		{name: "file encoded dot-dot", in: "file:///etc/%2e%2e/x", wantErr: ErrInvalidURI},
		{name: "file query", in: "file:///etc/x?a=b", wantErr: ErrInvalidURI},
		{name: "file empty path", in: "file://", wantErr: ErrInvalidURI},
		{name: "bare path", in: "/etc/eks/nodeadm.d", wantErr: ErrUnsupportedScheme},
		{name: "http", in: "http://169.254.169.254/latest/user-data", wantErr: ErrUnsupportedScheme},
		{name: "s3", in: "s3://bucket/key", wantErr: ErrUnsupportedScheme},
		{name: "empty", in: "", wantErr: ErrUnsupportedScheme},
		{name: "unparsable", in: "imds://user data%", wantErr: ErrInvalidURI},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			scheme, path, err := ParseURI(tc.in)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr != nil) != (err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if scheme != tc.wantScheme || path != tc.wantPath {
				t.Errorf("ParseURI(%q) = %q, %q; want %q, %q", tc.in, scheme, path, tc.wantScheme, tc.wantPath)
			}
		})
	}
}
