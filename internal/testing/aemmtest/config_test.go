package aemmtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

func TestConfigJSONGolden(t *testing.T) {
	got, err := ConfigJSON(Config{
		UserData: []byte("MIME-Version: 1.0\n"), InstanceID: "i-0abc", InstanceType: "c5.xlarge", Region: "eu-west-1",
		AZ: "eu-west-1b", LocalIPv4: "192.168.1.7", MAC: "02:aa:bb:cc:dd:ee", Hostname: "ip-192-168-1-7.eu-west-1.compute.internal",
		IPv6s: []string{"2001:db8::7"}, VPCCIDRs: []string{"192.168.0.0/16", "100.64.0.0/16"},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden.CompareFile(t, filepath.Join("testdata", "aemm-config.golden.json"), got)
}

// aemmConfig is the subset of the AEMM config the assertions read.
type aemmConfig struct {
	Metadata struct {
		Paths  map[string]string `json:"paths"`
		Values map[string]string `json:"values"`
	} `json:"metadata"`
	Dynamic struct {
		Values struct {
			Identity map[string]any `json:"instance-identity-document"`
		} `json:"values"`
	} `json:"dynamic"`
	Userdata struct {
		Paths  map[string]string `json:"paths"`
		Values map[string]string `json:"values"`
	} `json:"userdata"`
}

func TestConfigJSON(t *testing.T) {
	tests := []struct {
		name  string
		in    Config
		check func(t *testing.T, c aemmConfig)
	}{
		{
			name: "defaults fill empty fields consistently",
			in:   Config{},
			check: func(t *testing.T, c aemmConfig) {
				id := c.Dynamic.Values.Identity
				if id["instanceId"] != DefaultInstanceID || id["region"] != DefaultRegion || id["instanceType"] != DefaultInstanceType || id["availabilityZone"] != DefaultAZ {
					t.Errorf("identity document = %v", id)
				}
				if c.Metadata.Values["instance-id"] != DefaultInstanceID || c.Metadata.Values["placement-region"] != DefaultRegion {
					t.Errorf("metadata values = %v", c.Metadata.Values)
				}
			},
		},
		{
			name: "mac paths follow the MAC",
			in:   Config{MAC: "02:11:22:33:44:55", IPv6s: []string{"2001:db8::1", "2001:db8::2"}, VPCCIDRs: []string{"10.0.0.0/16"}},
			check: func(t *testing.T, c aemmConfig) {
				for key, path := range c.Metadata.Paths {
					if !strings.Contains(path, "/macs/02:11:22:33:44:55/") {
						t.Errorf("path %s = %q does not use the MAC", key, path)
					}
				}
				if got := c.Metadata.Values["mac-ipv6-associations"]; got != "2001:db8::1\n2001:db8::2" {
					t.Errorf("ipv6s value = %q", got)
				}
				if got := c.Metadata.Paths["mac-vpc-ipv4-cidr-blocks"]; got != "/latest/meta-data/network/interfaces/macs/02:11:22:33:44:55/vpc-ipv4-cidr-blocks" {
					t.Errorf("vpc cidr path = %q", got)
				}
			},
		},
		{
			name: "absent values are not served",
			in:   Config{},
			check: func(t *testing.T, c aemmConfig) {
				if p, ok := c.Userdata.Paths["userdata"]; !ok || p != "" {
					t.Errorf("userdata path = %q, %v; want an empty path (404)", p, ok)
				}
				if c.Metadata.Paths["mac-ipv6-associations"] != "" || c.Metadata.Paths["mac-vpc-ipv4-cidr-blocks"] != "" {
					t.Errorf("paths = %v; want ipv6s and vpc cidr paths disabled", c.Metadata.Paths)
				}
			},
		},
		{
			name: "user data is base64 in the config",
			in:   Config{UserData: []byte{0x1f, 0x8b, 0x00, 'x'}},
			check: func(t *testing.T, c aemmConfig) {
				raw, err := base64.StdEncoding.DecodeString(c.Userdata.Values["userdata"])
				if err != nil || !bytes.Equal(raw, []byte{0x1f, 0x8b, 0x00, 'x'}) {
					t.Errorf("userdata = %q (%v)", raw, err)
				}
				if _, ok := c.Userdata.Paths["userdata"]; ok {
					t.Errorf("userdata path overridden although user data is set")
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := ConfigJSON(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var c aemmConfig
			if err := json.Unmarshal(data, &c); err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

func TestBinaryFromEnvironment(t *testing.T) {
	t.Setenv(EnvBinary, filepath.Join(t.TempDir(), "missing"))
	if _, err := Binary(); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Binary = %v, want ErrBinaryMissing naming the path", err)
	}
}
