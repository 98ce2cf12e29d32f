package main

import (
	"encoding/json"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/doctor"
	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
	"github.com/nodeboot/nodeboot/internal/testing/nodetest"
)

// runDoctorJSON runs `nodeboot doctor -o json` and decodes its report.
func runDoctorJSON(t *testing.T, env []string, root string) (doctor.Report, int) {
	t.Helper()
	res := run(t, env, "doctor", "--root", root, "-o", "json")
	var rep doctor.Report
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatalf("doctor: exit %d, %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	return rep, res.code
}

// assertFirstFailure checks that check is the report's first failure and
// its only one, that it says every phrase in want, and that the checks
// listed in skipped were skipped.
func assertFirstFailure(t *testing.T, rep doctor.Report, code int, check string, want []string, skipped ...string) {
	t.Helper()
	var failed []string
	for _, c := range rep.Checks {
		if c.ID == doctor.CheckDisk && c.Verdict == doctor.Fail && hostDiskBelowEvictionThreshold(t) {
			t.Logf("the host's disk is below the kubelet's default eviction thresholds, and the doctor says so: %s", c.Summary)
			continue
		}
		if c.Verdict == doctor.Fail {
			failed = append(failed, c.ID+": "+c.Summary)
		}
	}
	got, _ := rep.Check(check)
	if code != 1 || len(failed) != 1 || got.Verdict != doctor.Fail || got.Action == "" {
		t.Errorf("exit %d; failures %q; want only %s, with an action (%q)", code, failed, check, got.Action)
	}
	for _, w := range want {
		if !strings.Contains(got.Summary+"\n"+got.Action, w) {
			t.Errorf("%s does not say %q: %s\n%s", check, w, got.Summary, got.Action)
		}
	}
	for _, id := range skipped {
		if c, _ := rep.Check(id); c.Verdict != doctor.Skipped {
			t.Errorf("%s: %s (%s), want skipped", id, c.Verdict, c.Summary)
		}
	}
}

// hostDiskBelowEvictionThreshold reports whether the file system of the
// temporary directory (where the tests' node roots live) has less free
// space or inodes than the kubelet's default hard eviction thresholds
// allow (imagefs.available 15 %, nodefs.inodesFree 5 %): on such a shared
// machine the doctor's disk check fails rightly, whatever the test breaks.
func hostDiskBelowEvictionThreshold(t *testing.T) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(os.TempDir(), &st); err != nil {
		t.Fatal(err)
	}
	return float64(st.Bavail) < 0.15*float64(st.Blocks) || (st.Files > 0 && float64(st.Ffree) < 0.05*float64(st.Files))
}

// TestDoctorDiscoveryFailures: AL2 user data that names only its cluster
// makes init discover the rest with eks:DescribeCluster; when EKS says the
// cluster does not exist, or the role may not ask, init fails, and the
// doctor fails the user data check with the API's code, and invents no
// failure downstream for the node that was never configured.
func TestDoctorDiscoveryFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault *awstest.Fault
		want  []string
	}{
		{name: "no such cluster", want: []string{"ResourceNotFoundException", `No cluster "prod" exists in us-west-2`}},
		{name: "access denied", fault: &awstest.Fault{Status: 403, Code: "AccessDeniedException",
			Message: "User: arn:aws:sts::111122223333:assumed-role/nodes/i-1 is not authorized to perform: eks:DescribeCluster"},
			want: []string{"AccessDeniedException", "may not call eks:DescribeCluster"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			awstest.IsolateEnv(t)
			imdsURL := aemmtest.Start(t, aemmtest.Config{UserData: []byte("#!/bin/bash\nset -ex\n/etc/eks/bootstrap.sh prod\n")})
			ec2 := awstest.NewEC2(t)
			ec2.AddInstance(awstest.Instance{ID: aemmtest.DefaultInstanceID, InstanceType: "m5.large", PrivateDNSName: "ip-10-0-0-5.us-west-2.compute.internal"})
			eks := awstest.NewEKS(t)
			if tc.fault != nil {
				eks.AddCluster(awstest.Cluster{Name: "prod", Endpoint: "https://prod.example.com", CA: []byte("x")})
				eks.FailAlways(awstest.ActionDescribeCluster, *tc.fault)
			}
			root := t.TempDir()
			fakeMachine(t, root)
			env := []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + imdsURL, "AWS_ENDPOINT_URL_EC2=" + ec2.URL, "AWS_ENDPOINT_URL_EKS=" + eks.URL, "PATH=/usr/bin:/bin"}
			if res := run(t, env, "init", "--skip", "run", "--root", root); res.code != 1 {
				t.Fatalf("init: exit %d, want 1 (discovery fails)\n%s", res.code, res.stderr)
			}
			rep, code := runDoctorJSON(t, env, root)
			assertFirstFailure(t, rep, code, doctor.CheckUserData, append(tc.want, "eks:DescribeCluster"),
				doctor.CheckEndpoint, doctor.CheckCredential, doctor.CheckRuntime, doctor.CheckMaxPods)
		})
	}
}

// TestDoctorMetadataFailures: a metadata service that is down, or answers
// slower than init's client waits, fails the instance metadata check
// first; the user data it serves is skipped instead of showing the SDK's
// error chain above the cause.
func TestDoctorMetadataFailures(t *testing.T) {
	t.Run("down", func(t *testing.T) {
		awstest.IsolateEnv(t)
		root := t.TempDir()
		fakeMachine(t, root)
		closed := net.JoinHostPort("127.0.0.1", strconv.Itoa(nodetest.ClosedPort(t)))
		rep, code := runDoctorJSON(t, []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=http://" + closed}, root)
		assertFirstFailure(t, rep, code, doctor.CheckIMDS, []string{"network not up", "connection refused"}, doctor.CheckUserData)
		if c, _ := rep.Check(doctor.CheckUserData); !strings.Contains(c.Summary, "comes from the instance metadata service") {
			t.Errorf("user data: %s", c.Summary)
		}
	})
	t.Run("slower than init allows", func(t *testing.T) {
		awstest.IsolateEnv(t)
		s := awstest.NewIMDS(t)
		s.SetIdentity(aemmtest.DefaultInstanceID, "us-west-2", "m5.large", "us-west-2a")
		s.Set(awstest.PathUserData, "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: lab\n")
		for _, p := range []string{awstest.PathToken, awstest.PathIdentity, awstest.PathUserData} {
			s.SetDelay(p, 700*time.Millisecond)
		}
		root := t.TempDir()
		fakeMachine(t, root)
		noAPI := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(nodetest.ClosedPort(t))) // no AWS API reachable
		rep, code := runDoctorJSON(t, []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + s.URL, "AWS_ENDPOINT_URL=" + noAPI}, root)
		assertFirstFailure(t, rep, code, doctor.CheckIMDS, []string{"too slow for init", "500ms for each answer", "gives up after 60 attempts"}, doctor.CheckUserData)
	})
}
