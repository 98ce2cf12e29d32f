package clusterdns

import (
	"errors"
	"net/netip"
	"testing"
)

func TestAddress(t *testing.T) {
	tests := []struct {
		name    string
		cidr    string
		vpc     []string
		want    string
		wantErr error
	}{
		{name: "eks default 10.100/16", cidr: "10.100.0.0/16", want: "10.100.0.10"},
		{name: "eks default 172.20/16", cidr: "172.20.0.0/16", want: "172.20.0.10"},
		{name: "kubeadm 10.96/12", cidr: "10.96.0.0/12", want: "10.96.0.10"},
		{name: "slash 24", cidr: "192.168.7.0/24", want: "192.168.7.10"},
		{name: "host bits are masked", cidr: "10.100.5.7/16", want: "10.100.0.10"},
		{name: "slash 28 stays inside", cidr: "10.0.0.16/28", want: "10.0.0.26"},
		{name: "slash 29 too small", cidr: "10.0.0.8/29", wantErr: ErrServiceCIDRTooSmall},
		{name: "ipv6 eks", cidr: "fd30:1c53:5f8a::/108", want: "fd30:1c53:5f8a::a"},
		{name: "ipv6 wide", cidr: "fc00::/7", want: "fc00::a"},
		{name: "ipv6 slash 125 too small", cidr: "fd00::/125", wantErr: ErrServiceCIDRTooSmall},
		{name: "not a cidr", cidr: "10.100.0.0", wantErr: ErrInvalidServiceCIDR},
		{name: "garbage", cidr: "ten/8", wantErr: ErrInvalidServiceCIDR},
		{name: "cidr wins over vpc", cidr: "10.100.0.0/16", vpc: []string{"10.0.0.0/16"}, want: "10.100.0.10"},
		{name: "vpc in 10/8", vpc: []string{"10.0.0.0/16"}, want: "172.20.0.10"},
		{name: "vpc any in 10/8", vpc: []string{"192.168.0.0/16", "10.42.0.0/16"}, want: "172.20.0.10"},
		{name: "vpc outside 10/8", vpc: []string{"172.31.0.0/16"}, want: "10.100.0.10"},
		{name: "vpc 100.64 is not 10", vpc: []string{"100.64.0.0/16"}, want: "10.100.0.10"},
		{name: "vpc invalid", vpc: []string{"172.31.0.0"}, wantErr: ErrInvalidServiceCIDR},
		{name: "nothing known", wantErr: ErrNoClusterDNSSource},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Address(tc.cidr, tc.vpc)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Address(%q, %q) error = %v, want %v", tc.cidr, tc.vpc, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("Address(%q, %q) = %q, want %q", tc.cidr, tc.vpc, got, tc.want)
			}
		})
	}
}

// FuzzAddress checks that any accepted service CIDR yields an address
// inside it, 10 above the network address.
func FuzzAddress(f *testing.F) {
	for _, s := range []string{"10.100.0.0/16", "fd30:1c53:5f8a::/108", "10.0.0.8/29", "::/0", "1.2.3.4/32", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cidr string) {
		got, err := Address(cidr, nil)
		if cidr == "" {
			if !errors.Is(err, ErrNoClusterDNSSource) {
				t.Fatalf("empty CIDR: err = %v", err)
			}
			return
		}
		if err != nil {
			return
		}
		prefix := netip.MustParsePrefix(cidr).Masked()
		addr := netip.MustParseAddr(got)
		if !prefix.Contains(addr) {
			t.Fatalf("Address(%q) = %s, outside %s", cidr, addr, prefix)
		}
		if addr == prefix.Addr() {
			t.Fatalf("Address(%q) = network address", cidr)
		}
	})
}
