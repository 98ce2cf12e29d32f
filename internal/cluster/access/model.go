// Package access checks, before a node group launches, whether its nodes
// will authenticate to the cluster and as whom, and plans the smallest change
// that lets them in: the node role's aws-auth mapRoles entry, or an EKS
// access entry, judged with the mapping rules of package awsauth against the
// cluster's authentication mode, plus the Windows and VPC CNI prerequisites
// EKS documents. Check and Plan are pure; Gather and Apply are the effects.
package access

import (
	"github.com/nodeboot/nodeboot/internal/config/awsauth"
)

// Group is one node group whose nodes must join, as resolved from an Auto
// Scaling group, a NodeGroup file or a role ARN.
type Group struct {
	// Name and Source say where the group came from ("Auto Scaling group",
	// "NodeGroup file F", "--role").
	Name   string `json:"name"`
	Source string `json:"source"`
	// RoleARN is the node role as found (possibly with a path);
	// InstanceProfileARN the profile it came through, when any.
	RoleARN            string `json:"roleARN,omitempty"`
	InstanceProfileARN string `json:"instanceProfileARN,omitempty"`
	Windows            bool   `json:"windows,omitempty"`
	// Naming is how its nodes name themselves.
	Naming awsauth.NodeNaming `json:"-"`
	// InstanceTypes and MaxPods: what the group's user data gives each
	// instance type (0 when unknown).
	InstanceTypes []string         `json:"instanceTypes,omitempty"`
	MaxPods       map[string]int32 `json:"maxPods,omitempty"`
	// Err is why the group could not be resolved.
	Err error `json:"-"`
}

// AccessEntry is an EKS access entry, as DescribeAccessEntry tells it.
type AccessEntry struct {
	PrincipalARN string   `json:"principalARN"`
	Type         string   `json:"type"`
	Username     string   `json:"username,omitempty"`
	Groups       []string `json:"groups,omitempty"`
}

// Authentication modes (EKS accessConfig.authenticationMode).
const (
	ModeConfigMap       = "CONFIG_MAP"
	ModeAPIAndConfigMap = "API_AND_CONFIG_MAP"
	ModeAPI             = "API"
)

// Cluster is what the check reads from the cluster and the EKS API.
type Cluster struct {
	Name, Region string
	// Mode is the authentication mode; empty when unknown (ModeErr says
	// why; the check then assumes CONFIG_MAP, the only mode without the EKS
	// API).
	Mode    string
	ModeErr error
	// IPFamily is the cluster's (ipv4, ipv6), from DescribeCluster.
	IPFamily string
	// AWSAuth is the aws-auth ConfigMap's data; AWSAuthFound false when it
	// does not exist.
	AWSAuth      map[string]string
	AWSAuthFound bool
	AWSAuthErr   error
	// Entries are the access entries (when the mode has the API).
	Entries    []AccessEntry
	EntriesErr error
	// CNI is the VPC CNI's configuration.
	CNI CNI
	// LinuxNodes counts the cluster's Linux nodes; NodesErr says why it is
	// unknown.
	LinuxNodes int
	NodesErr   error
}

// CNI is the VPC CNI's configuration: the amazon-vpc-cni ConfigMap and the
// aws-node DaemonSet's container environment.
type CNI struct {
	ConfigMap      map[string]string
	ConfigMapFound bool
	Env            map[string]string
	DaemonSetFound bool
}

// envTrue reports whether an aws-node variable is "true".
func (c CNI) envTrue(key string) bool { return c.Env[key] == "true" }
