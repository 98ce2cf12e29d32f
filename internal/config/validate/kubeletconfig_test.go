package validate

import (
	"encoding/json"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// configOf builds a kubelet.config fragment from JSON texts.
func configOf(pairs ...string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[pairs[i]] = json.RawMessage(pairs[i+1])
	}
	return out
}

func TestSpecKubeletConfigValues(t *testing.T) {
	const p = "spec.kubelet.config"
	tests := []struct {
		name   string
		config map[string]json.RawMessage
		want   []wantError
	}{
		{name: "valid values", config: configOf(
			"cgroupDriver", `"systemd"`, "cpuManagerPolicy", `"static"`, "topologyManagerPolicy", `"single-numa-node"`,
			"memoryManagerPolicy", `"Static"`, "maxPods", `110`, "kubeAPIQPS", `0`, "kubeAPIBurst", `20`,
			"imageGCHighThresholdPercent", `100`, "imageGCLowThresholdPercent", `0`, "tlsMinVersion", `"VersionTLS13"`,
			"tlsCipherSuites", `["TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305","TLS_AES_128_GCM_SHA256","TLS_RSA_WITH_RC4_128_SHA"]`,
			"registerWithTaints", `[{"key":"example.com/gpu","value":"true","effect":"NoSchedule"},{"key":"spot","effect":"PreferNoSchedule"}]`,
			"featureGates", `{"GracefulNodeShutdown":true,"AllAlpha":false}`)},
		{name: "null and empty mean unset", config: configOf("maxPods", `null`, "cgroupDriver", `""`, "tlsMinVersion", `""`, "featureGates", `null`)},
		{name: "cgroup driver", config: configOf("cgroupDriver", `"cgroupfss"`),
			want: []wantError{{p + "[cgroupDriver]", `Invalid value: "cgroupfss": must be one of systemd, cgroupfs; did you mean cgroupfs?`}}},
		{name: "cgroup driver type", config: configOf("cgroupDriver", `true`),
			want: []wantError{{p + "[cgroupDriver]", `Invalid value: true: must be a string`}}},
		{name: "cpu manager policy case", config: configOf("cpuManagerPolicy", `"Static"`),
			want: []wantError{{p + "[cpuManagerPolicy]", `Invalid value: "Static": must be one of none, static; did you mean static?`}}},
		{name: "topology manager policy", config: configOf("topologyManagerPolicy", `"besteffort"`),
			want: []wantError{{p + "[topologyManagerPolicy]", `Invalid value: "besteffort": must be one of none, best-effort, restricted, single-numa-node; did you mean best-effort?`}}},
		{name: "memory manager policy case", config: configOf("memoryManagerPolicy", `"static"`),
			want: []wantError{{p + "[memoryManagerPolicy]", `Invalid value: "static": must be one of None, Static; did you mean Static?`}}},
		{name: "max pods zero", config: configOf("maxPods", `0`),
			want: []wantError{{p + "[maxPods]", `Invalid value: 0: must be greater than 0`}}},
		{name: "max pods negative", config: configOf("maxPods", `-3`),
			want: []wantError{{p + "[maxPods]", `Invalid value: -3: must be greater than 0`}}},
		{name: "max pods string", config: configOf("maxPods", `"58"`),
			want: []wantError{{p + "[maxPods]", `Invalid value: "58": must be a 32-bit integer`}}},
		{name: "max pods overflow", config: configOf("maxPods", `4294967296`),
			want: []wantError{{p + "[maxPods]", `Invalid value: 4.294967296e+09: must be a 32-bit integer`}}},
		{name: "api qps and burst negative", config: configOf("kubeAPIQPS", `-1`, "kubeAPIBurst", `-2`),
			want: []wantError{
				{p + "[kubeAPIBurst]", `Invalid value: -2: must not be negative`},
				{p + "[kubeAPIQPS]", `Invalid value: -1: must not be negative`},
			}},
		{name: "gc percent out of range", config: configOf("imageGCHighThresholdPercent", `101`),
			want: []wantError{{p + "[imageGCHighThresholdPercent]", `Invalid value: 101: must be between 0 and 100, inclusive`}}},
		{name: "gc percent negative", config: configOf("imageGCLowThresholdPercent", `-1`),
			want: []wantError{{p + "[imageGCLowThresholdPercent]", `Invalid value: -1: must be between 0 and 100, inclusive`}}},
		{name: "gc low equals high", config: configOf("imageGCHighThresholdPercent", `80`, "imageGCLowThresholdPercent", `80`),
			want: []wantError{{p + "[imageGCLowThresholdPercent]", `Invalid value: 80: must be less than imageGCHighThresholdPercent (80)`}}},
		{name: "gc low above high", config: configOf("imageGCHighThresholdPercent", `70`, "imageGCLowThresholdPercent", `90`),
			want: []wantError{{p + "[imageGCLowThresholdPercent]", `Invalid value: 90: must be less than imageGCHighThresholdPercent (70)`}}},
		{name: "gc low alone is left to the merge", config: configOf("imageGCLowThresholdPercent", `90`)},
		{name: "tls version", config: configOf("tlsMinVersion", `"VersionTLS1.2"`),
			want: []wantError{{p + "[tlsMinVersion]", `Invalid value: "VersionTLS1.2": must be one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13; did you mean VersionTLS12?`}}},
		{name: "cipher suite typo", config: configOf("tlsCipherSuites", `["TLS_AES_128_GCM_SHA256","TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA265"]`),
			want: []wantError{{p + "[tlsCipherSuites][1]", `Invalid value: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA265": is not a TLS cipher suite the kubelet knows (names as in Go's crypto/tls, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256); did you mean TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256?`}}},
		{name: "cipher suite openssl name", config: configOf("tlsCipherSuites", `["ECDHE-RSA-AES128-GCM-SHA256"]`),
			want: []wantError{{p + "[tlsCipherSuites][0]", `Invalid value: "ECDHE-RSA-AES128-GCM-SHA256": is not a TLS cipher suite the kubelet knows`}}},
		{name: "cipher suites not a list", config: configOf("tlsCipherSuites", `"TLS_AES_128_GCM_SHA256"`),
			want: []wantError{{p + "[tlsCipherSuites]", `Invalid value: "TLS_AES_128_GCM_SHA256": must be a list of cipher suite names`}}},
		{name: "taint effect", config: configOf("registerWithTaints", `[{"key":"a","effect":"NoSchedule"},{"key":"b","effect":"noschedule"}]`),
			want: []wantError{{p + "[registerWithTaints][1].effect", `Invalid value: "noschedule": must be one of NoSchedule, PreferNoSchedule, NoExecute; did you mean NoSchedule?`}}},
		{name: "taint effect missing", config: configOf("registerWithTaints", `[{"key":"a"}]`),
			want: []wantError{{p + "[registerWithTaints][0].effect", `Required value: must be one of NoSchedule, PreferNoSchedule, NoExecute`}}},
		{name: "taint key and value", config: configOf("registerWithTaints", `[{"key":"a b","value":"x/y","effect":"NoExecute"}]`),
			want: []wantError{
				{p + "[registerWithTaints][0].key", `Invalid value: "a b": name part must consist of alphanumeric characters`},
				{p + "[registerWithTaints][0].value", `Invalid value: "x/y": a valid label must be an empty string or consist of alphanumeric characters`},
			}},
		{name: "feature gate names", config: configOf("featureGates", `{"graceful-node-shutdown":true,"InPlacePodVerticalScaling":"true","Good":true}`),
			want: []wantError{
				{p + "[featureGates][InPlacePodVerticalScaling]", `Invalid value: "true": must be true or false`},
				{p + "[featureGates][graceful-node-shutdown]", `Invalid value: "graceful-node-shutdown": is not a feature gate name: gates are CamelCase letters and digits, like GracefulNodeShutdown`},
			}},
		{name: "feature gates not a map", config: configOf("featureGates", `["A"]`),
			want: []wantError{{p + "[featureGates]", `must be a map of feature gate names to true or false`}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, Spec(hub.Spec{Kubelet: hub.Kubelet{Config: tc.config}}), tc.want)
		})
	}
}
