package v1

import (
	"bytes"
	"encoding/json"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	upstream "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/randfill"
)

// TestFieldsMatchUpstream fills every field with random values, encodes the
// result and decodes it strictly into the upstream type: each field must
// exist upstream under the same JSON name, and the upstream encoding of what
// it decoded must be byte-identical.
func TestFieldsMatchUpstream(t *testing.T) {
	for seed := range int64(50) {
		var c Config
		randfill.NewWithSeed(seed).NilChance(0.2).NumElements(0, 3).Fill(&c)
		lean, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(lean))
		dec.DisallowUnknownFields()
		var u upstream.Config
		if err := dec.Decode(&u); err != nil {
			t.Fatalf("seed %d: upstream rejects %s: %v", seed, lean, err)
		}
		back, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(lean, back) {
			t.Fatalf("seed %d: encodings differ\nlean:     %s\nupstream: %s", seed, lean, back)
		}
	}
}

// TestLoadAgreesWithClientGo reads kubeconfig documents with Load and with
// client-go's clientcmd.Load: both accept or both reject each, and read the
// same clusters, users and contexts.
func TestLoadAgreesWithClientGo(t *testing.T) {
	tests := []struct{ name, doc string }{
		{"cluster-info as kubeadm publishes it", `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=
    server: https://10.0.0.10:6443
  name: ""
contexts: null
current-context: ""
kind: Config
preferences: {}
users: null
`},
		{"json", `{"apiVersion":"v1","kind":"Config","clusters":[{"name":"a","cluster":{"server":"https://a","certificate-authority-data":"Y2E="}}],"users":[{"name":"u","user":{"token":"t"}}],"contexts":[{"name":"c","context":{"cluster":"a","user":"u","namespace":"ns"}}],"current-context":"c"}`},
		{"no apiVersion or kind", "clusters:\n- name: a\n  cluster:\n    server: https://a\n"},
		{"unknown fields ignored", "apiVersion: v1\nkind: Config\nsurprise: 1\nclusters:\n- name: a\n  cluster:\n    server: https://a\n    extra: x\n"},
		{"exec user", "apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: aws\n      args: [eks, get-token]\n      env: [{name: A, value: b}]\n      interactiveMode: Never\n"},
		{"empty", ""},
		{"wrong apiVersion", "apiVersion: v2\nkind: Config\n"},
		{"wrong kind", "apiVersion: v1\nkind: Pod\n"},
		{"malformed yaml", "clusters: [\n"},
		{"ca data not base64", "clusters:\n- name: a\n  cluster:\n    certificate-authority-data: '%%%'\n"},
		{"clusters not a list", "clusters: {a: 1}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lean, leanErr := Load([]byte(tc.doc))
			up, upErr := clientcmd.Load([]byte(tc.doc))
			if (leanErr == nil) != (upErr == nil) {
				t.Fatalf("Load error %v, client-go error %v", leanErr, upErr)
			}
			if leanErr != nil {
				return
			}
			if len(lean.Clusters) != len(up.Clusters) || len(lean.AuthInfos) != len(up.AuthInfos) ||
				len(lean.Contexts) != len(up.Contexts) || lean.CurrentContext != up.CurrentContext {
				t.Fatalf("read %+v, client-go read %+v", lean, up)
			}
			for _, c := range lean.Clusters {
				u := up.Clusters[c.Name]
				if u == nil || u.Server != c.Cluster.Server || !bytes.Equal(u.CertificateAuthorityData, c.Cluster.CertificateAuthorityData) {
					t.Errorf("cluster %q: %+v, client-go %+v", c.Name, c.Cluster, u)
				}
			}
			for _, a := range lean.AuthInfos {
				u := up.AuthInfos[a.Name]
				if u == nil || u.Token != a.AuthInfo.Token || (u.Exec == nil) != (a.AuthInfo.Exec == nil) ||
					u.Exec != nil && (u.Exec.Command != a.AuthInfo.Exec.Command || len(u.Exec.Env) != len(a.AuthInfo.Exec.Env)) {
					t.Errorf("user %q: %+v, client-go %+v", a.Name, a.AuthInfo, u)
				}
			}
			for _, c := range lean.Contexts {
				u := up.Contexts[c.Name]
				if u == nil || u.Cluster != c.Context.Cluster || u.AuthInfo != c.Context.AuthInfo || u.Namespace != c.Context.Namespace {
					t.Errorf("context %q: %+v, client-go %+v", c.Name, c.Context, u)
				}
			}
		})
	}
}
