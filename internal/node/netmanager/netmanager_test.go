package netmanager

import (
	"path/filepath"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// TestNetworkFileGolden pins the rendered .network files.
func TestNetworkFileGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		link Link
	}{
		{"primary", Link{MAC: "0e:49:61:0f:c3:11", Primary: true, IPv4: "10.0.0.5"}},
		{"secondary-at-boot", Link{MAC: "0e:49:61:0f:c3:22", DeviceNumber: 1, IPv4: "10.0.1.17"}},
		{"secondary-ipv6-only", Link{MAC: "0e:49:61:0f:c3:33", DeviceNumber: 2}},
		{"second-network-card", Link{MAC: "0e:49:61:0f:c3:44", NetworkCard: 1, DeviceNumber: 1, IPv4: "10.0.2.9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			golden.CompareFile(t, filepath.Join("testdata", tc.name+".network"), NetworkFile(tc.link))
		})
	}
}

func TestMetricAndTable(t *testing.T) {
	for _, tc := range []struct {
		link          Link
		metric, table int
	}{
		{Link{}, 512, 10000},
		{Link{DeviceNumber: 3}, 515, 10003},
		{Link{NetworkCard: 2, DeviceNumber: 1}, 713, 10201},
	} {
		if m, tb := tc.link.Metric(), tc.link.Table(); m != tc.metric || tb != tc.table {
			t.Errorf("%+v: metric %d table %d, want %d %d", tc.link, m, tb, tc.metric, tc.table)
		}
	}
}

func TestDecide(t *testing.T) {
	const mac = "0e:49:61:0f:c3:22"
	tests := []struct {
		name       string
		remembered *Decision
		runStarted bool
		want       Decision
		fresh      bool
	}{
		{name: "present at boot: networkd", want: Decision{MAC: mac, Manager: ManagerNetworkd}, fresh: true},
		{name: "attached after the run phase started: the CNI", runStarted: true, want: Decision{MAC: mac, Manager: ManagerCNI}, fresh: true},
		{name: "remembered for this ENI wins after the reboot", runStarted: true,
			remembered: &Decision{MAC: "0E:49:61:0F:C3:22", Manager: ManagerNetworkd}, want: Decision{MAC: "0E:49:61:0F:C3:22", Manager: ManagerNetworkd}},
		{name: "remembered CNI stays CNI on the next boot",
			remembered: &Decision{MAC: mac, Manager: ManagerCNI}, want: Decision{MAC: mac, Manager: ManagerCNI}},
		{name: "the name now belongs to another ENI: decided anew", runStarted: true,
			remembered: &Decision{MAC: "0e:00:00:00:00:01", Manager: ManagerNetworkd}, want: Decision{MAC: mac, Manager: ManagerCNI}, fresh: true},
		{name: "nodeadm's plain entry applies to any MAC", runStarted: true,
			remembered: &Decision{Manager: ManagerNetworkd}, want: Decision{Manager: ManagerNetworkd}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, fresh := Decide(tc.remembered, mac, tc.runStarted)
			if got != tc.want || fresh != tc.fresh {
				t.Fatalf("Decide = %+v, %v; want %+v, %v", got, fresh, tc.want, tc.fresh)
			}
		})
	}
}

func TestParseDecision(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Decision
		ok   bool
	}{
		{`{"mac":"0e:49:61:0f:c3:11","manager":"io.systemd.Network"}` + "\n", Decision{MAC: "0e:49:61:0f:c3:11", Manager: ManagerNetworkd}, true},
		{"io.systemd.Network\n", Decision{Manager: ManagerNetworkd}, true},
		{"cni", Decision{Manager: ManagerCNI}, true},
		{`{"manager":"NetworkManager"}`, Decision{}, false},
		{"", Decision{}, false},
	} {
		if got, ok := ParseDecision([]byte(tc.in)); got != tc.want || ok != tc.ok {
			t.Errorf("ParseDecision(%q) = %+v, %v", tc.in, got, ok)
		}
	}
	d := Decision{MAC: "0e:49:61:0f:c3:11", Manager: ManagerCNI}
	if back, ok := ParseDecision(d.Encode()); !ok || back != d {
		t.Errorf("round trip: %+v, %v", back, ok)
	}
}

func TestReady(t *testing.T) {
	links := func(states ...string) []LinkState {
		var out []LinkState
		for i := 0; i+1 < len(states); i += 2 {
			out = append(out, LinkState{Name: states[i], AdministrativeState: states[i+1]})
		}
		return out
	}
	tests := []struct {
		name    string
		links   []LinkState
		managed []string
		ready   bool
		waiting string
	}{
		{"primary configured, the rest unmanaged", links("lo", "unmanaged", "eth0", "configured", "eth1", "unmanaged"), []string{"eth0"}, true, ""},
		{"primary still configuring", links("lo", "unmanaged", "eth0", "configuring"), []string{"eth0"}, false, "eth0 to be configured (configuring)"},
		{"a CNI interface grabbed by networkd", links("lo", "unmanaged", "eth0", "configured", "eth1", "configured"), []string{"eth0"}, false, "eth1 to be unmanaged (configured)"},
		{"remembered networkd interface not configured", links("eth0", "configured", "eth1", "pending"), []string{"eth0", "eth1"}, false, "eth1 to be configured (pending)"},
		{"primary not listed yet", links("lo", "unmanaged"), []string{"eth0"}, false, "eth0 (not listed yet)"},
		{"both managed and configured", links("lo", "unmanaged", "eth0", "configured", "eth1", "configured"), []string{"eth0", "eth1"}, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ready, waiting := Ready(tc.links, tc.managed)
			if ready != tc.ready || waiting != tc.waiting {
				t.Fatalf("Ready = %v, %q; want %v, %q", ready, waiting, tc.ready, tc.waiting)
			}
		})
	}
}

func TestParseNetworkctl(t *testing.T) {
	out := []byte(`{"Interfaces":[{"Index":1,"Name":"lo","Type":"loopback","OperationalState":"carrier","AdministrativeState":"unmanaged"},` +
		`{"Index":2,"Name":"ens5","AdministrativeState":"configured"}]}`)
	links, err := ParseNetworkctl(out)
	if err != nil || len(links) != 2 || links[1] != (LinkState{Name: "ens5", AdministrativeState: "configured"}) {
		t.Fatalf("links = %+v, %v", links, err)
	}
	if _, err := ParseNetworkctl([]byte("Failed to connect to bus")); err == nil {
		t.Fatal("non-JSON output accepted")
	}
}

// FuzzParseNetworkctl: networkctl output is parsed on every boot.
func FuzzParseNetworkctl(f *testing.F) {
	f.Add([]byte(`{"Interfaces":[{"Name":"lo","AdministrativeState":"unmanaged"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if links, err := ParseNetworkctl(data); err == nil {
			Ready(links, []string{"eth0"})
		}
	})
}
