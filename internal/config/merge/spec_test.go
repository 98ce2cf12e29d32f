package merge

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

func boolPointer(value bool) *bool { return &value }

func TestSpecsRules(t *testing.T) {
	tests := []struct {
		name  string
		specs []hub.Spec
		want  hub.Spec
	}{
		{
			name: "no specs gives the zero spec",
			want: hub.Spec{},
		},
		{
			name: "later non-empty scalar wins",
			specs: []hub.Spec{
				{Cluster: hub.Cluster{Name: "first", CIDR: "10.100.0.0/16"}},
				{Cluster: hub.Cluster{Name: "second"}},
			},
			want: hub.Spec{Cluster: hub.Cluster{Name: "second", CIDR: "10.100.0.0/16"}},
		},
		{
			name: "empty scalar never clears",
			specs: []hub.Spec{
				{Cluster: hub.Cluster{APIServerEndpoint: "https://example"}, Kubelet: hub.Kubelet{MaxPodsExpression: "max_pods"}},
				{Cluster: hub.Cluster{APIServerEndpoint: ""}, Kubelet: hub.Kubelet{MaxPodsExpression: ""}},
			},
			want: hub.Spec{Cluster: hub.Cluster{APIServerEndpoint: "https://example"}, Kubelet: hub.Kubelet{MaxPodsExpression: "max_pods"}},
		},
		{
			name: "certificate authority bytes follow the scalar rule",
			specs: []hub.Spec{
				{Cluster: hub.Cluster{CertificateAuthority: []byte("ca-1")}},
				{Cluster: hub.Cluster{CertificateAuthority: nil}},
				{Cluster: hub.Cluster{CertificateAuthority: []byte("ca-2")}},
				{Cluster: hub.Cluster{CertificateAuthority: []byte{}}},
			},
			want: hub.Spec{Cluster: hub.Cluster{CertificateAuthority: []byte("ca-2")}},
		},
		{
			name: "non-nil false pointer overrides true",
			specs: []hub.Spec{
				{Cluster: hub.Cluster{EnableOutpost: boolPointer(true)}, MaxPods: hub.MaxPodsPolicy{Cap: boolPointer(true), Set: boolPointer(true)}},
				{Cluster: hub.Cluster{EnableOutpost: boolPointer(false)}, MaxPods: hub.MaxPodsPolicy{Cap: boolPointer(false)}},
			},
			want: hub.Spec{Cluster: hub.Cluster{EnableOutpost: boolPointer(false)}, MaxPods: hub.MaxPodsPolicy{Cap: boolPointer(false), Set: boolPointer(true)}},
		},
		{
			name: "nil pointer keeps the earlier value",
			specs: []hub.Spec{
				{MaxPods: hub.MaxPodsPolicy{PrefixDelegation: boolPointer(true), CustomNetworking: boolPointer(false)}},
				{},
			},
			want: hub.Spec{MaxPods: hub.MaxPodsPolicy{PrefixDelegation: boolPointer(true), CustomNetworking: boolPointer(false)}},
		},
		{
			name: "kubelet flags are appended in order",
			specs: []hub.Spec{
				{Kubelet: hub.Kubelet{Flags: []string{"--node-labels=a=1", "--v=2"}}},
				{},
				{Kubelet: hub.Kubelet{Flags: []string{"--node-labels=b=2"}}},
			},
			want: hub.Spec{Kubelet: hub.Kubelet{Flags: []string{"--node-labels=a=1", "--v=2", "--node-labels=b=2"}}},
		},
		{
			name: "kubelet config deep-merges objects and replaces lists",
			specs: []hub.Spec{
				{Kubelet: hub.Kubelet{Config: map[string]json.RawMessage{
					"maxPods":      json.RawMessage(`58`),
					"clusterDNS":   json.RawMessage(`["10.100.0.10"]`),
					"featureGates": json.RawMessage(`{"A":true,"B":true}`),
				}}},
				{Kubelet: hub.Kubelet{Config: map[string]json.RawMessage{
					"clusterDNS":   json.RawMessage(`["169.254.20.10"]`),
					"featureGates": json.RawMessage(`{"B":false,"C":true}`),
				}}},
			},
			want: hub.Spec{Kubelet: hub.Kubelet{Config: map[string]json.RawMessage{
				"maxPods":      json.RawMessage(`58`),
				"clusterDNS":   json.RawMessage(`["169.254.20.10"]`),
				"featureGates": json.RawMessage(`{"A":true,"B":false,"C":true}`),
			}}},
		},
		{
			name: "base runtime spec replaces rlimits and merges process",
			specs: []hub.Spec{
				{Containerd: hub.Containerd{BaseRuntimeSpec: map[string]json.RawMessage{
					"process": json.RawMessage(`{"cwd":"/","rlimits":[{"type":"RLIMIT_NOFILE","soft":1,"hard":2}]}`),
				}}},
				{Containerd: hub.Containerd{BaseRuntimeSpec: map[string]json.RawMessage{
					"process": json.RawMessage(`{"rlimits":[{"type":"RLIMIT_NPROC","soft":3,"hard":4}]}`),
				}}},
			},
			want: hub.Spec{Containerd: hub.Containerd{BaseRuntimeSpec: map[string]json.RawMessage{
				"process": json.RawMessage(`{"cwd":"/","rlimits":[{"hard":4,"soft":3,"type":"RLIMIT_NPROC"}]}`),
			}}},
		},
		{
			name: "containerd TOML deep-merged and kept as text",
			specs: []hub.Spec{
				{Containerd: hub.Containerd{Config: "[plugins.\"io.containerd.grpc.v1.cri\"]\nrestrict_oom_score_adj = true\n"}},
				{Containerd: hub.Containerd{Config: "[plugins.\"io.containerd.grpc.v1.cri\".cni]\nbin_dir = \"/usr/lib/cni\"\n"}},
			},
			want: hub.Spec{Containerd: hub.Containerd{Config: "[plugins]\n" +
				"[plugins.'io.containerd.grpc.v1.cri']\n" +
				"restrict_oom_score_adj = true\n\n" +
				"[plugins.'io.containerd.grpc.v1.cri'.cni]\n" +
				"bin_dir = '/usr/lib/cni'\n"}},
		},
		{
			name: "single containerd TOML kept verbatim",
			specs: []hub.Spec{
				{Containerd: hub.Containerd{Config: "# keep me\n[grpc]\naddress = \"/x\"\n"}},
				{},
			},
			want: hub.Spec{Containerd: hub.Containerd{Config: "# keep me\n[grpc]\naddress = \"/x\"\n"}},
		},
		{
			name: "feature gates merged per gate, later false wins",
			specs: []hub.Spec{
				{FeatureGates: map[string]bool{"FastImagePull": true, "InstanceIdNodeName": true}},
				{FeatureGates: map[string]bool{"FastImagePull": false}},
			},
			want: hub.Spec{FeatureGates: map[string]bool{"FastImagePull": false, "InstanceIdNodeName": true}},
		},
		{
			name: "environment merged per service and per variable",
			specs: []hub.Spec{
				{Instance: hub.Instance{Environment: map[string]map[string]string{
					"default": {"HTTP_PROXY": "http://a", "NO_PROXY": "localhost"},
					"kubelet": {"A": "1"},
				}}},
				{Instance: hub.Instance{Environment: map[string]map[string]string{
					"default":    {"HTTP_PROXY": "http://b", "EMPTY": ""},
					"containerd": {"B": "2"},
				}}},
			},
			want: hub.Spec{Instance: hub.Instance{Environment: map[string]map[string]string{
				"default":    {"HTTP_PROXY": "http://b", "NO_PROXY": "localhost", "EMPTY": ""},
				"kubelet":    {"A": "1"},
				"containerd": {"B": "2"},
			}}},
		},
		{
			name: "other slices replaced only by a non-empty later slice",
			specs: []hub.Spec{
				{Instance: hub.Instance{
					Network:      hub.Network{Nameservers: []string{"1.1.1.1", "8.8.8.8"}, Domains: []string{"a.example"}},
					LocalStorage: hub.LocalStorage{Strategy: "RAID0", DisabledMounts: []string{"Containerd"}},
				}},
				{Instance: hub.Instance{
					Network:      hub.Network{Nameservers: []string{"9.9.9.9"}, Domains: []string{}},
					LocalStorage: hub.LocalStorage{MountPath: "/mnt/x"},
				}},
			},
			want: hub.Spec{Instance: hub.Instance{
				Network:      hub.Network{Nameservers: []string{"9.9.9.9"}, Domains: []string{"a.example"}},
				LocalStorage: hub.LocalStorage{Strategy: "RAID0", MountPath: "/mnt/x", DisabledMounts: []string{"Containerd"}},
			}},
		},
		{
			name: "identity extension follows scalar, slice and map rules",
			specs: []hub.Spec{
				{Identity: hub.Identity{
					Mode: hub.IdentityBootstrapToken,
					Exec: hub.ExecCredential{Command: "aws", Args: []string{"eks", "get-token"}, Env: map[string]string{"A": "1"}},
					BootstrapToken: hub.BootstrapToken{
						Token: "abcdef.0123456789abcdef", CACertHashes: []string{"sha256:aa"}, UnsafeSkipCAVerification: true,
					},
				}},
				{Identity: hub.Identity{
					Exec:           hub.ExecCredential{Args: []string{"token"}, Env: map[string]string{"B": "2"}},
					BootstrapToken: hub.BootstrapToken{UnsafeSkipCAVerification: false, CACertHashes: []string{"sha256:bb"}},
				}},
			},
			want: hub.Spec{Identity: hub.Identity{
				Mode: hub.IdentityBootstrapToken,
				Exec: hub.ExecCredential{Command: "aws", Args: []string{"token"}, Env: map[string]string{"A": "1", "B": "2"}},
				BootstrapToken: hub.BootstrapToken{
					Token: "abcdef.0123456789abcdef", CACertHashes: []string{"sha256:bb"}, UnsafeSkipCAVerification: true,
				},
			}},
		},
		{
			name: "maxPods integer follows the scalar rule",
			specs: []hub.Spec{
				{MaxPods: hub.MaxPodsPolicy{MaxENIs: 3}},
				{MaxPods: hub.MaxPodsPolicy{MaxENIs: 0}},
			},
			want: hub.Spec{MaxPods: hub.MaxPodsPolicy{MaxENIs: 3}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Specs(tc.specs...)
			if err != nil {
				t.Fatalf("Specs: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Specs mismatch\n got: %s\nwant: %s", mustJSON(t, got), mustJSON(t, tc.want))
			}
		})
	}
}

func TestSpecsErrors(t *testing.T) {
	tests := []struct {
		name    string
		specs   []hub.Spec
		wantErr error
		wantMsg string
	}{
		{
			name: "bad TOML in the second spec",
			specs: []hub.Spec{
				{Containerd: hub.Containerd{Config: "[grpc]\n"}},
				{Containerd: hub.Containerd{Config: "[grpc\n"}},
			},
			wantErr: ErrInvalidTOML,
			wantMsg: "merge spec 1: containerd.config: overlay document: invalid TOML: line 1, column 6",
		},
		{
			name: "bad TOML in a lone spec",
			specs: []hub.Spec{
				{Containerd: hub.Containerd{Config: "a = \n"}},
			},
			wantErr: ErrInvalidTOML,
			wantMsg: "merge spec 0: containerd.config: overlay document: invalid TOML",
		},
		{
			name: "bad kubelet config JSON",
			specs: []hub.Spec{
				{Kubelet: hub.Kubelet{Config: map[string]json.RawMessage{"maxPods": json.RawMessage(`{`)}}},
			},
			wantErr: ErrInvalidJSON,
			wantMsg: `merge spec 0: kubelet.config: overlay object: invalid JSON: key "maxPods"`,
		},
		{
			name: "bad base runtime spec JSON",
			specs: []hub.Spec{
				{},
				{Containerd: hub.Containerd{BaseRuntimeSpec: map[string]json.RawMessage{"process": json.RawMessage(`{"a":}`)}}},
			},
			wantErr: ErrInvalidJSON,
			wantMsg: `merge spec 1: containerd.baseRuntimeSpec: overlay object: invalid JSON: key "process"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Specs(tc.specs...)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want one wrapping %v", err, tc.wantErr)
			}
			if !strings.HasPrefix(err.Error(), tc.wantMsg) {
				t.Errorf("error %q, want prefix %q", err, tc.wantMsg)
			}
		})
	}
}

// TestSpecsCarriesEveryField fills every field of hub.Spec by reflection, so
// a field added to the hub without a merge rule makes this test fail.
func TestSpecsCarriesEveryField(t *testing.T) {
	full := filledSpec(t)
	tests := []struct {
		name  string
		specs []hub.Spec
	}{
		{name: "full spec alone", specs: []hub.Spec{full}},
		{name: "empty then full", specs: []hub.Spec{{}, full}},
		{name: "full then empty", specs: []hub.Spec{full, {}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Specs(tc.specs...)
			if err != nil {
				t.Fatalf("Specs: %v", err)
			}
			if !reflect.DeepEqual(got, full) {
				t.Errorf("a field was lost\n got: %s\nwant: %s", mustJSON(t, got), mustJSON(t, full))
			}
		})
	}
}

func TestSpecsSharesNothingWithInputs(t *testing.T) {
	input := filledSpec(t)
	got, err := Specs(input)
	if err != nil {
		t.Fatalf("Specs: %v", err)
	}
	before := mustJSON(t, got)
	scribble(reflect.ValueOf(&input).Elem())
	if after := mustJSON(t, got); after != before {
		t.Errorf("mutating the input changed the result\nbefore: %s\n after: %s", before, after)
	}
}

func TestSpecsDeterministic(t *testing.T) {
	specs := []hub.Spec{filledSpec(t), {
		Kubelet: hub.Kubelet{Config: map[string]json.RawMessage{
			"a": json.RawMessage(`{"z":1,"y":{"x":[1,2]},"w":"<&>"}`),
			"b": json.RawMessage(`{"k":1}`),
		}},
		Containerd: hub.Containerd{Config: "[z]\na = 1\n[y]\nb = 2\n[x]\nc = 3\n"},
	}}
	first, err := Specs(specs...)
	if err != nil {
		t.Fatalf("Specs: %v", err)
	}
	want := mustJSON(t, first)
	for i := range 50 {
		again, err := Specs(specs...)
		if err != nil {
			t.Fatalf("Specs run %d: %v", i, err)
		}
		if got := mustJSON(t, again); got != want {
			t.Fatalf("run %d differs\n got: %s\nwant: %s", i, got, want)
		}
	}
}

func mustJSON(t *testing.T, value any) string {
	t.Helper()
	out, err := json.Marshal(value)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(out)
}

// filledSpec sets every leaf of a hub.Spec to a non-zero value, then makes
// the TOML and JSON fields syntactically valid.
func filledSpec(t *testing.T) hub.Spec {
	t.Helper()
	var spec hub.Spec
	fill(reflect.ValueOf(&spec).Elem(), "v")
	spec.Containerd.Config = "[grpc]\naddress = '/run/x.sock'\n"
	spec.Containerd.BaseRuntimeSpec = map[string]json.RawMessage{"process": json.RawMessage(`{"cwd":"/"}`)}
	spec.Kubelet.Config = map[string]json.RawMessage{"maxPods": json.RawMessage(`58`)}
	return spec
}

func fill(value reflect.Value, seed string) {
	switch value.Kind() {
	case reflect.Struct:
		for i := range value.NumField() {
			fill(value.Field(i), seed+value.Type().Field(i).Name)
		}
	case reflect.String:
		value.SetString(seed)
	case reflect.Bool:
		value.SetBool(true)
	case reflect.Int, reflect.Int64:
		value.SetInt(int64(len(seed)))
	case reflect.Pointer:
		value.Set(reflect.New(value.Type().Elem()))
		fill(value.Elem(), seed)
	case reflect.Slice:
		value.Set(reflect.MakeSlice(value.Type(), 2, 2))
		for i := range 2 {
			fill(value.Index(i), seed+string(rune('0'+i)))
		}
	case reflect.Map:
		value.Set(reflect.MakeMap(value.Type()))
		element := reflect.New(value.Type().Elem()).Elem()
		fill(element, seed+"elem")
		value.SetMapIndex(reflect.ValueOf(seed+"key"), element)
	case reflect.Uint8:
		value.SetUint(7)
	default:
		panic("fill: unhandled kind " + value.Kind().String())
	}
}

// scribble overwrites every reachable leaf in place (through maps, slices
// and pointers) without replacing the containers themselves.
func scribble(value reflect.Value) {
	switch value.Kind() {
	case reflect.Struct:
		for i := range value.NumField() {
			scribble(value.Field(i))
		}
	case reflect.String:
		value.SetString("scribbled")
	case reflect.Bool:
		value.SetBool(!value.Bool())
	case reflect.Int, reflect.Int64:
		value.SetInt(-1)
	case reflect.Uint8:
		value.SetUint(0)
	case reflect.Pointer:
		if !value.IsNil() {
			scribble(value.Elem())
		}
	case reflect.Slice:
		for i := range value.Len() {
			scribble(value.Index(i))
		}
	case reflect.Map:
		for _, key := range value.MapKeys() {
			element := reflect.New(value.Type().Elem()).Elem()
			element.Set(value.MapIndex(key))
			if element.Kind() == reflect.Map || element.Kind() == reflect.Slice {
				scribble(element)
				continue
			}
			scribble(element)
			value.SetMapIndex(key, element)
		}
	}
}
