// Command eksctl-userdata prints the user data eksctl's own nodebootstrap
// package writes for the one node group of a ClusterConfig.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"sigs.k8s.io/yaml"

	api "github.com/weaveworks/eksctl/pkg/apis/eksctl.io/v1alpha5"
	"github.com/weaveworks/eksctl/pkg/nodebootstrap"
)

func main() {
	serviceCIDR := flag.String("service-cidr", "", "the cluster's service CIDR (status.kubernetesNetworkConfig)")
	boundary := flag.String("boundary", "", "MIME boundary for AL2023 (eksctl picks a random one)")
	endpoint := flag.String("endpoint", "", "the cluster's API server endpoint (status.endpoint)")
	ca := flag.String("ca", "", "the cluster's CA bundle, base64 (status.certificateAuthorityData)")
	flag.Parse()
	caData, err := base64.StdEncoding.DecodeString(*ca)
	if err != nil {
		fmt.Fprintln(os.Stderr, "eksctl-userdata: -ca:", err)
		os.Exit(2)
	}
	status := &api.ClusterStatus{Endpoint: *endpoint, CertificateAuthorityData: caData}
	if err := run(flag.Arg(0), status, *serviceCIDR, *boundary); err != nil {
		fmt.Fprintln(os.Stderr, "eksctl-userdata:", err)
		os.Exit(1)
	}
}

// run prints the user data eksctl writes for the one node group of the
// ClusterConfig at path.
func run(path string, status *api.ClusterStatus, serviceCIDR, boundary string) error {
	cfg, err := readConfig(path, status, serviceCIDR)
	if err != nil {
		return err
	}
	b, err := bootstrapper(cfg)
	if err != nil {
		return err
	}
	if a, ok := b.(*nodebootstrap.AL2023); ok {
		a.UserDataMimeBoundary = boundary
	}
	ud, err := b.UserData()
	if err != nil {
		return err
	}
	raw, err := decodeUserData(ud)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(raw)
	return err
}

// readConfig reads the ClusterConfig at path strictly, with eksctl's
// defaults and the cluster's status as DescribeCluster would give it.
func readConfig(path string, status *api.ClusterStatus, serviceCIDR string) (*api.ClusterConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cfg := api.NewClusterConfig()
	if err := yaml.UnmarshalStrict(data, cfg); err != nil {
		return nil, err
	}
	api.SetClusterConfigDefaults(cfg)
	cfg.Status = status
	cfg.Status.KubernetesNetworkConfig = &api.KubernetesNetworkConfig{}
	if strings.Contains(serviceCIDR, ":") {
		cfg.Status.KubernetesNetworkConfig.ServiceIPv6CIDR = serviceCIDR
	} else {
		cfg.Status.KubernetesNetworkConfig.ServiceIPv4CIDR = serviceCIDR
	}
	return cfg, nil
}

// bootstrapper defaults and validates the config's one node group as
// eksctl's create command does, and returns its bootstrapper.
func bootstrapper(cfg *api.ClusterConfig) (nodebootstrap.Bootstrapper, error) {
	switch {
	case len(cfg.NodeGroups) == 1:
		ng := cfg.NodeGroups[0]
		if err := api.SetNodeGroupDefaults(ng, cfg.Metadata, false); err != nil {
			return nil, err
		}
		if err := api.ValidateNodeGroup(0, ng, cfg); err != nil {
			return nil, fmt.Errorf("eksctl refuses the node group: %w", err)
		}
		return nodebootstrap.NewBootstrapper(cfg, ng)
	case len(cfg.ManagedNodeGroups) == 1:
		ng := cfg.ManagedNodeGroups[0]
		if err := api.SetManagedNodeGroupDefaults(ng, cfg.Metadata, false); err != nil {
			return nil, err
		}
		if err := api.ValidateManagedNodeGroup(0, ng); err != nil {
			return nil, fmt.Errorf("eksctl refuses the node group: %w", err)
		}
		return nodebootstrap.NewManagedBootstrapper(cfg, ng)
	}
	return nil, fmt.Errorf("want exactly one nodeGroup or managedNodeGroup")
}

// decodeUserData undoes the base64 and, for AL2's cloud-config, the gzip
// eksctl puts on the user data.
func decodeUserData(ud string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(ud)
	if err != nil || len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		return raw, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
