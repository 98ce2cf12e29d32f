package imds

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// userDataMIME is a nodeadm-style document with bytes that must survive the
// round trip unchanged (CRLF, a tab, non-ASCII).
var userDataMIME = []byte("MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\r\n\r\n" +
	"--BOUNDARY\r\nContent-Type: application/node.eks.aws\r\n\r\n" +
	"apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n\tname: café\n" +
	"--BOUNDARY--\r\n")

func TestAgainstAEMM(t *testing.T) {
	awstest.IsolateEnv(t)
	cfg := aemmtest.Config{
		UserData:     userDataMIME,
		InstanceID:   "i-0aaaabbbbccccdddd",
		InstanceType: "c6i.2xlarge",
		Region:       "eu-central-1",
		AZ:           "eu-central-1c",
		LocalIPv4:    "172.31.9.8",
		MAC:          "06:f1:e2:d3:c4:b5",
		Hostname:     "ip-172-31-9-8.eu-central-1.compute.internal",
		IPv6s:        []string{"2a05:d014::8", "2a05:d014::9"},
		VPCCIDRs:     []string{"172.31.0.0/16", "100.64.0.0/16"},
		IAM: &aemmtest.IAMRole{InstanceProfileARN: "arn:aws:iam::111122223333:instance-profile/eks/workers", RoleName: "workers-role",
			AccessKeyID: "ASIAEXAMPLE", SecretAccessKey: "secret", Token: "token", Expiration: time.Now().Add(time.Hour)},
	}
	endpoint := aemmtest.Start(t, cfg)
	// AEMM runs with -I: every metadata request needs a session token, and
	// the client speaks only IMDSv2, so success proves that flow end to end.
	c := New(Options{Endpoint: endpoint, MaxAttempts: 3, BaseDelay: time.Millisecond})
	ctx := t.Context()

	ud, err := c.UserData(ctx)
	if err != nil || !bytes.Equal(ud, userDataMIME) {
		t.Errorf("UserData = %q, %v; want the configured bytes", ud, err)
	}
	id, err := c.IdentityDocument(ctx)
	if want := (InstanceIdentity{ID: cfg.InstanceID, Region: cfg.Region, Type: cfg.InstanceType, AZ: cfg.AZ}); err != nil || id != want {
		t.Errorf("IdentityDocument = %+v, %v; want %+v", id, err, want)
	}
	if mac, err := c.MAC(ctx); err != nil || mac != cfg.MAC {
		t.Errorf("MAC = %q, %v", mac, err)
	}
	if ip, err := c.LocalIPv4(ctx); err != nil || ip != cfg.LocalIPv4 {
		t.Errorf("LocalIPv4 = %q, %v", ip, err)
	}
	if got, err := c.IPv6s(ctx, cfg.MAC); err != nil || !reflect.DeepEqual(got, cfg.IPv6s) {
		t.Errorf("IPv6s = %q, %v", got, err)
	}
	if got, err := c.VPCIPv4CIDRs(ctx, cfg.MAC); err != nil || !reflect.DeepEqual(got, cfg.VPCCIDRs) {
		t.Errorf("VPCIPv4CIDRs = %q, %v", got, err)
	}
	if got, err := c.Interface(ctx, cfg.MAC); err != nil || !reflect.DeepEqual(got, NetworkInterface{LocalIPv4s: []string{cfg.LocalIPv4}}) {
		t.Errorf("Interface = %+v, %v", got, err)
	}

	if got, err := c.InstanceRole(ctx); err != nil || got != (InstanceRole{ProfileARN: cfg.IAM.InstanceProfileARN, RoleName: "workers-role"}) {
		t.Errorf("InstanceRole = %+v, %v", got, err)
	}

	st, err := c.Instance(ctx, Want{IPv6: true, VPCCIDRs: true})
	want := hub.InstanceStatus{ID: cfg.InstanceID, Region: cfg.Region, Type: cfg.InstanceType, AvailabilityZone: cfg.AZ,
		MAC: cfg.MAC, NodeIP: "2a05:d014::8", VPCIPv4CIDRs: cfg.VPCCIDRs}
	if err != nil || !reflect.DeepEqual(st, want) {
		t.Errorf("Instance = %+v, %v\nwant       %+v", st, err, want)
	}
}

func TestAgainstAEMMWithoutOptionalData(t *testing.T) {
	awstest.IsolateEnv(t)
	endpoint := aemmtest.Start(t, aemmtest.Config{}) // no user data, no IPv6
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", endpoint)
	c := New(Options{MaxAttempts: 3, BaseDelay: time.Millisecond})

	if _, err := c.UserData(t.Context()); !errors.Is(err, ErrNotFound) {
		t.Errorf("UserData error = %v, want ErrNotFound", err)
	}
	if _, err := c.Instance(t.Context(), Want{IPv6: true}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Instance(IPv6) error = %v, want ErrNotFound", err)
	}
	st, err := c.Instance(t.Context(), Want{})
	if err != nil || st.NodeIP != aemmtest.DefaultLocalIPv4 || st.ID != aemmtest.DefaultInstanceID {
		t.Errorf("Instance = %+v, %v", st, err)
	}
}
