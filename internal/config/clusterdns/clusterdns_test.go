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
		{name: "host bits as AL2 and nodeadm keep them", cidr: "172.20.5.0/16", want: "172.20.5.10"},
		{name: "host bits in the last octet", cidr: "10.100.5.7/16", want: "10.100.5.10"},
		{name: "slash 28: the last octet still becomes 10", cidr: "10.0.0.16/28", want: "10.0.0.10"},
		{name: "slash 29", cidr: "10.0.0.8/29", want: "10.0.0.10"},
		{name: "ipv6 eks", cidr: "fd30:1c53:5f8a::/108", want: "fd30:1c53:5f8a::a"},
		{name: "ipv6 wide", cidr: "fc00::/7", want: "fc00::a"},
		{name: "ipv6 text kept as nodeadm writes it", cidr: "FD00:10:96:0::/108", want: "FD00:10:96:0::a"},
		{name: "ipv6 host bits appended to", cidr: "fd00::5/108", want: "fd00::5a"},
		{name: "ipv6 text that cannot take an a", cidr: "fd00::1234/108", wantErr: ErrInvalidServiceCIDR},
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

func TestInsideCIDR(t *testing.T) {
	for _, tc := range []struct {
		cidr, want string
		ok         bool
	}{
		{"10.100.0.0/16", "10.100.0.10", true},
		{"fd30:1c53:5f8a::/108", "fd30:1c53:5f8a::a", true},
		{"FD30:1C53:5F8A::/108", "fd30:1c53:5f8a::a", true},
		{"172.20.5.0/16", "172.20.0.10", false},
		{"10.0.0.16/28", "10.0.0.26", false},
		{"10.0.0.8/29", "", false},
	} {
		if want, ok := InsideCIDR(tc.cidr); want != tc.want || ok != tc.ok {
			t.Errorf("InsideCIDR(%q) = %q, %v; want %q, %v", tc.cidr, want, ok, tc.want, tc.ok)
		}
	}
}

// FuzzAddress checks that any accepted service CIDR yields an address of
// its family, and that for network addresses of EKS's sizes it is the
// network address plus 10.
func FuzzAddress(f *testing.F) {
	for _, s := range []string{"10.100.0.0/16", "fd30:1c53:5f8a::/108", "10.0.0.8/29", "::/0", "1.2.3.4/32", "x", "172.20.5.0/16", "0::/108", "FD00:10:96::/108"} {
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
		prefix := netip.MustParsePrefix(cidr)
		addr := netip.MustParseAddr(got)
		if addr.Is4() != prefix.Addr().Is4() {
			t.Fatalf("Address(%q) = %s, another family", cidr, addr)
		}
		eksSized := (prefix.Addr().Is4() && prefix.Bits() >= 12 && prefix.Bits() <= 24) || (prefix.Addr().Is6() && prefix.Bits() == 108)
		// The address, not its text: an IPv6 one keeps the CIDR's
		// spelling (0::a, FD00:10:96::a), as nodeadm writes it.
		if want, _ := InsideCIDR(cidr); eksSized && prefix == prefix.Masked() && (want == "" || addr != netip.MustParseAddr(want)) {
			t.Fatalf("Address(%q) = %s, want the network address plus 10, %s", cidr, got, want)
		}
	})
}
