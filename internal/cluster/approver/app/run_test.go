package app

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestMainExitCodes(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "help", args: []string{"--help"}, wantCode: ExitOK, wantStdout: "--node-wait duration"},
		{name: "usage error", args: []string{"--bogus"}, wantCode: ExitUsage, wantStderr: "nodeboot-approver: invalid arguments: unknown flag: --bogus"},
		{name: "invalid value", args: []string{"--allowed-cidrs=nope"}, wantCode: ExitUsage, wantStderr: "--allowed-cidrs"},
		{
			name:       "missing kubeconfig",
			args:       []string{"--kubeconfig=/nonexistent/kubeconfig", "--leader-elect=false", "--metrics-bind-address=0", "--health-probe-bind-address=0"},
			wantCode:   ExitError,
			wantStderr: `"err":"load Kubernetes client configuration: stat /nonexistent/kubeconfig: no such file or directory"`,
		},
		{
			name:       "not in a cluster and no kubeconfig",
			args:       []string{"--leader-elect=false"},
			env:        map[string]string{"KUBECONFIG": "", "KUBERNETES_SERVICE_HOST": "", "KUBERNETES_SERVICE_PORT": ""},
			wantCode:   ExitError,
			wantStderr: "load Kubernetes client configuration: unable to load in-cluster configuration",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), tc.args, &stdout, &stderr)
			if code != tc.wantCode {
				t.Fatalf("Main(%q) = %d, want %d; stderr: %s", tc.args, code, tc.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.wantStdout) {
				t.Errorf("stdout = %q, want it to contain %q", stdout.String(), tc.wantStdout)
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tc.wantStderr)
			}
		})
	}
}

func TestNewSchemeRegistersOnlyWhatTheApproverUses(t *testing.T) {
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range []runtime.Object{
		&corev1.Node{}, &corev1.Event{}, &certificatesv1.CertificateSigningRequest{}, &coordinationv1.Lease{}, &eventsv1.Event{},
	} {
		if _, _, err := scheme.ObjectKinds(obj); err != nil {
			t.Errorf("scheme lacks %T: %v", obj, err)
		}
	}
	groups := map[string]bool{}
	for gvk := range scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		groups[gvk.GroupVersion().String()] = true
	}
	want := map[string]bool{"v1": true, "certificates.k8s.io/v1": true, "coordination.k8s.io/v1": true, "events.k8s.io/v1": true}
	for gv := range groups {
		if !want[gv] {
			t.Errorf("scheme registers unexpected group version %q", gv)
		}
	}
}

func TestTrimNodeKeepsWhatTheApproverReads(t *testing.T) {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: "n1", UID: "uid-1", ResourceVersion: "42",
			Labels:      map[string]string{"a": "b"},
			Annotations: map[string]string{"big": strings.Repeat("x", 1000)},
		},
		Spec: corev1.NodeSpec{ProviderID: "aws:///us-east-1a/i-123"},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}},
			Images:    []corev1.ContainerImage{{Names: []string{"img"}}},
		},
	}
	got, err := trimNode(node)
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "uid-1", ResourceVersion: "42"},
		Spec:       corev1.NodeSpec{ProviderID: "aws:///us-east-1a/i-123"},
		Status:     corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("trimNode() = %+v, want %+v", got, want)
	}
	// Tombstones and other objects pass through.
	if got, _ := trimNode("tombstone"); got != "tombstone" {
		t.Fatalf("trimNode(non-node) = %v, want it unchanged", got)
	}
}
