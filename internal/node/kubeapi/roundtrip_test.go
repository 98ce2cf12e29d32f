package kubeapi

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/yaml"
)

// These tests keep the minimal types honest: an upstream object filled in
// every field the node side reads goes through our type and back without
// losing or renaming anything. (Upstream types are test-only imports.)

var stamp = metav1.NewTime(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))

// roundTrip decodes upstream's JSON into ours, encodes ours, decodes that
// into a fresh upstream value and compares it with the original.
func roundTrip[U, O any](t *testing.T, upstream U) O {
	t.Helper()
	data, err := json.Marshal(upstream)
	if err != nil {
		t.Fatal(err)
	}
	var ours O
	if err := json.Unmarshal(data, &ours); err != nil {
		t.Fatalf("decode upstream JSON into %T: %v", ours, err)
	}
	back, err := json.Marshal(ours)
	if err != nil {
		t.Fatal(err)
	}
	var again U
	if err := json.Unmarshal(back, &again); err != nil {
		t.Fatalf("decode our JSON into %T: %v", again, err)
	}
	// Compare as upstream encodes them (metav1.Time decodes into the local
	// zone, so the structs differ in location only).
	againJSON, err := json.Marshal(again)
	if err != nil {
		t.Fatal(err)
	}
	if string(againJSON) != string(data) {
		t.Errorf("round trip through %T changed the object:\nupstream: %s\nours:     %s", ours, data, back)
	}
	// encoding/json matches keys case-insensitively, so the round trip
	// alone would not catch a misspelt tag: our keys must be upstream's.
	if got, want := jsonTree(t, back), pruneZero(jsonTree(t, data)); !reflect.DeepEqual(got, want) {
		t.Errorf("%T encodes other keys than upstream:\nupstream: %v\nours:     %v", ours, want, got)
	}
	return ours
}

func jsonTree(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// pruneZero drops the empty strings, zero numbers and empty objects
// upstream writes for fields we do not mirror.
func pruneZero(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if e = pruneZero(e); e != nil {
				out[k] = e
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = pruneZero(e)
		}
		return out
	case string:
		if v == "" {
			return nil
		}
	case float64:
		if v == 0 {
			return nil
		}
	}
	return v
}

func TestNodeRoundTrip(t *testing.T) {
	node := roundTrip[corev1.Node, Node](t, corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-0-5.us-west-2.compute.internal", UID: "u-1", CreationTimestamp: stamp},
		Spec:       corev1.NodeSpec{ProviderID: "aws:///us-west-2a/i-0123"},
		Status: corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady",
				Message: "container runtime network not ready", LastHeartbeatTime: stamp, LastTransitionTime: stamp}},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.5"}, {Type: corev1.NodeHostName, Address: "ip-10-0-0-5"}},
			NodeInfo:  corev1.NodeSystemInfo{KubeletVersion: "v1.34.4", ContainerRuntimeVersion: "containerd://1.6.20"},
		},
	})
	if c, ok := node.Ready(); !ok || c.Reason != "KubeletNotReady" {
		t.Errorf("Ready() = %+v, %v", c, ok)
	}
}

func TestCSRRoundTrip(t *testing.T) {
	exp := int32(3600)
	csr := roundTrip[certificatesv1.CertificateSigningRequest, CertificateSigningRequest](t, certificatesv1.CertificateSigningRequest{
		TypeMeta:   metav1.TypeMeta{APIVersion: "certificates.k8s.io/v1", Kind: "CertificateSigningRequest"},
		ObjectMeta: metav1.ObjectMeta{Name: "csr-abcde", UID: "u-2", CreationTimestamp: stamp},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request: []byte("-----BEGIN CERTIFICATE REQUEST-----\n"), SignerName: KubeletServingSigner, ExpirationSeconds: &exp,
			Usages:   []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth},
			Username: "system:node:ip-10-0-0-5", Groups: []string{NodesGroup, "system:authenticated"},
		},
		Status: certificatesv1.CertificateSigningRequestStatus{
			Conditions: []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue,
				Reason: "SANNotOwned", Message: "IP 10.0.0.9 is not the node's", LastUpdateTime: stamp, LastTransitionTime: stamp}},
			Certificate: []byte("-----BEGIN CERTIFICATE-----\n"),
		},
	})
	if c, ok := csr.Condition("Denied"); !ok || c.Reason != "SANNotOwned" {
		t.Errorf("Condition(Denied) = %+v, %v", c, ok)
	}
	roundTrip[certificatesv1.CertificateSigningRequestList, CertificateSigningRequestList](t, certificatesv1.CertificateSigningRequestList{
		TypeMeta: metav1.TypeMeta{APIVersion: "certificates.k8s.io/v1", Kind: "CertificateSigningRequestList"},
		Items:    []certificatesv1.CertificateSigningRequest{{ObjectMeta: metav1.ObjectMeta{Name: "csr-1"}}},
	})
}

func TestSelfSubjectReviewRoundTrip(t *testing.T) {
	roundTrip[authenticationv1.SelfSubjectReview, SelfSubjectReview](t, authenticationv1.SelfSubjectReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "SelfSubjectReview"},
		Status: authenticationv1.SelfSubjectReviewStatus{UserInfo: authenticationv1.UserInfo{
			Username: "system:node:ip-10-0-0-5", UID: "u-3", Groups: []string{NodesGroup, "system:authenticated"},
			Extra: map[string]authenticationv1.ExtraValue{"arn": {"arn:aws:sts::1:assumed-role/n/i-1"}},
		}},
	})
}

func TestVersionAndStatusRoundTrip(t *testing.T) {
	v := version.Info{Major: "1", Minor: "34", GitVersion: "v1.34.4", GitCommit: "abc", Platform: "linux/amd64"}
	data, _ := json.Marshal(v)
	var ours VersionInfo
	if err := json.Unmarshal(data, &ours); err != nil || ours.GitVersion != v.GitVersion || ours.Minor != v.Minor || ours.Major != v.Major {
		t.Errorf("version %+v from %s: %v", ours, data, err)
	}
	roundTrip[metav1.Status, Status](t, metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status: metav1.StatusFailure, Message: "Unauthorized", Reason: metav1.StatusReasonUnauthorized, Code: 401})
}

// TestKubeconfigRoundTrip checks the kubeconfig fields against clientcmd's
// v1 types, through YAML as the files are written.
func TestKubeconfigRoundTrip(t *testing.T) {
	upstream := clientcmdv1.Config{
		Clusters: []clientcmdv1.NamedCluster{{Name: "kubernetes", Cluster: clientcmdv1.Cluster{
			Server: "https://10.0.0.1:6443", TLSServerName: "kubernetes", CertificateAuthority: "/etc/kubernetes/pki/ca.crt",
			CertificateAuthorityData: []byte("ca"), ProxyURL: "http://proxy:3128"}}},
		AuthInfos: []clientcmdv1.NamedAuthInfo{{Name: "kubelet", AuthInfo: clientcmdv1.AuthInfo{
			ClientCertificate: "/c.pem", ClientCertificateData: []byte("c"), ClientKey: "/k.pem", ClientKeyData: []byte("k"),
			Token: "t", TokenFile: "/t",
			Exec: &clientcmdv1.ExecConfig{Command: "aws", Args: []string{"eks", "get-token"}, Env: []clientcmdv1.ExecEnvVar{{Name: "A", Value: "b"}},
				APIVersion: "client.authentication.k8s.io/v1beta1", ProvideClusterInfo: true, InteractiveMode: clientcmdv1.NeverExecInteractiveMode},
		}}},
		Contexts:       []clientcmdv1.NamedContext{{Name: "kubelet", Context: clientcmdv1.Context{Cluster: "kubernetes", AuthInfo: "kubelet"}}},
		CurrentContext: "kubelet",
	}
	data, err := yaml.Marshal(upstream)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := ParseKubeconfig(data)
	if err != nil {
		t.Fatal(err)
	}
	back, err := yaml.Marshal(ours)
	if err != nil {
		t.Fatal(err)
	}
	var again clientcmdv1.Config
	if err := yaml.Unmarshal(back, &again); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, upstream) {
		t.Errorf("kubeconfig round trip changed it:\nupstream:\n%s\nours:\n%s", data, back)
	}
	upJSON, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	ourJSON, err := yaml.YAMLToJSON(back)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonTree(t, ourJSON), pruneZero(jsonTree(t, upJSON)); !reflect.DeepEqual(got, want) {
		t.Errorf("kubeconfig keys differ from clientcmd's:\nupstream: %v\nours:     %v", want, got)
	}
}
