package main

import (
	"debug/elf"
	"path/filepath"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/gobuild"
)

// TestOnlyCalledSDKOperationsAreLinked builds the controller and reads its
// symbols: an EC2 or Auto Scaling operation it never calls must not be in
// it. It is there when an SDK client is held in an interface or a struct
// field (see internal/aws/autoscaling.sdkEC2): that costs about 23 MB of
// binary and, through the pages the running controller maps, resident
// memory.
func TestOnlyCalledSDKOperationsAreLinked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the controller")
	}
	bin := filepath.Join(t.TempDir(), "nodeboot-rollout")
	if err := gobuild.Build(t.Context(), ".", bin, ".", ""); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	called := map[string]bool{
		"github.com/aws/aws-sdk-go-v2/service/ec2.(*Client).CreateLaunchTemplateVersion":                 false,
		"github.com/aws/aws-sdk-go-v2/service/autoscaling.(*Client).TerminateInstanceInAutoScalingGroup": false,
	}
	for _, s := range syms {
		switch s.Name {
		case "github.com/aws/aws-sdk-go-v2/service/ec2.(*Client).RunInstances",
			"github.com/aws/aws-sdk-go-v2/service/autoscaling.(*Client).CreateAutoScalingGroup":
			t.Errorf("%s is linked: an SDK client is held in an interface or a struct field somewhere", s.Name)
		}
		if _, ok := called[s.Name]; ok {
			called[s.Name] = true
		}
	}
	for name, seen := range called {
		if !seen {
			t.Errorf("%s is not in the binary: this test no longer checks anything", name)
		}
	}
}
