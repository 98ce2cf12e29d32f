package awstest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// EKS actions the EKS server answers.
const (
	ActionDescribeCluster     = "DescribeCluster"
	ActionUpdateClusterConfig = "UpdateClusterConfig"
	ActionListAccessEntries   = "ListAccessEntries"
	ActionDescribeAccessEntry = "DescribeAccessEntry"
	ActionCreateAccessEntry   = "CreateAccessEntry"
	ActionDeleteAccessEntry   = "DeleteAccessEntry"
)

// Cluster is one EKS cluster the EKS server knows.
type Cluster struct {
	Name            string
	Endpoint        string
	CA              []byte
	ServiceIPv4CIDR string
	ServiceIPv6CIDR string
	IPFamily        string
	ID              string
	OutpostARN      string
	// Status defaults to ACTIVE.
	Status  string
	Version string
	// AuthenticationMode is accessConfig.authenticationMode (CONFIG_MAP,
	// API_AND_CONFIG_MAP, API); empty leaves accessConfig out, as for a
	// cluster older than access entries.
	AuthenticationMode string
	// ClusterSecurityGroupID and SecurityGroupIDs are resourcesVpcConfig's
	// clusterSecurityGroupId and (additional) securityGroupIds.
	ClusterSecurityGroupID string
	SecurityGroupIDs       []string
	// VPCID is resourcesVpcConfig.vpcId.
	VPCID string
	// AccountID is the account in the cluster's ARN; empty means
	// DefaultAccountID.
	AccountID string
}

// DefaultAccountID is the account of clusters that name none.
const DefaultAccountID = "111122223333"

// EKS is a local EKS REST-JSON server for DescribeCluster (GET /clusters/<name>).
type EKS struct {
	Behavior
	// URL is the endpoint, for AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_EKS.
	URL string

	mu       sync.Mutex
	clusters map[string]Cluster
	// entries are each cluster's access entries by principal ARN.
	entries map[string]map[string]AccessEntry
	updates int
}

// NewEKS starts an EKS server that lives until the test ends.
func NewEKS(t testing.TB) *EKS {
	s := &EKS{clusters: map[string]Cluster{}, entries: map[string]map[string]AccessEntry{}}
	s.URL = startLoopback(t, http.HandlerFunc(s.serve)).URL
	return s
}

// AddCluster makes a cluster known (replacing one with the same name).
func (s *EKS) AddCluster(c Cluster) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clusters[c.Name] = c
}

func (s *EKS) serve(w http.ResponseWriter, r *http.Request) {
	rt, ok := routeEKS(r)
	if !ok {
		writeEKSError(w, Fault{Status: http.StatusNotFound, Code: "UnknownOperationException", Message: r.Method + " " + r.URL.Path})
		return
	}
	if fault, failed := s.begin(r.Context(), rt.action); failed {
		writeEKSError(w, fault)
		return
	}
	w = s.body(r, rt.action, w)
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		writeEKSError(w, Fault{Status: http.StatusForbidden, Code: "UnrecognizedClientException", Message: "request is not signed"})
		return
	}
	s.mu.Lock()
	c, known := s.clusters[rt.cluster]
	s.mu.Unlock()
	if !known {
		writeEKSError(w, Fault{Status: http.StatusNotFound, Code: "ResourceNotFoundException", Message: "No cluster found for name: " + rt.cluster + "."})
		return
	}
	var body any
	var fault *Fault
	switch rt.action {
	case ActionDescribeCluster:
		body = map[string]any{"cluster": clusterJSON(c)}
	case ActionUpdateClusterConfig:
		body, fault = s.updateClusterConfig(c, r)
	default:
		body, fault = s.serveAccessEntries(c, rt, r)
	}
	if fault != nil {
		writeEKSError(w, *fault)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

// clusterJSON renders the cluster the way the EKS API does (absent values
// are omitted, as the service does for nulls).
func clusterJSON(c Cluster) map[string]any {
	status := c.Status
	if status == "" {
		status = "ACTIVE"
	}
	account := c.AccountID
	if account == "" {
		account = DefaultAccountID
	}
	out := map[string]any{
		"name":   c.Name,
		"arn":    "arn:aws:eks:us-west-2:" + account + ":cluster/" + c.Name,
		"status": status,
	}
	setIf(out, "endpoint", c.Endpoint)
	setIf(out, "version", c.Version)
	setIf(out, "id", c.ID)
	if len(c.CA) > 0 {
		out["certificateAuthority"] = map[string]any{"data": base64.StdEncoding.EncodeToString(c.CA)}
	}
	network := map[string]any{}
	setIf(network, "serviceIpv4Cidr", c.ServiceIPv4CIDR)
	setIf(network, "serviceIpv6Cidr", c.ServiceIPv6CIDR)
	setIf(network, "ipFamily", c.IPFamily)
	if len(network) > 0 {
		out["kubernetesNetworkConfig"] = network
	}
	if c.AuthenticationMode != "" {
		out["accessConfig"] = map[string]any{"authenticationMode": c.AuthenticationMode, "bootstrapClusterCreatorAdminPermissions": true}
	}
	if c.ClusterSecurityGroupID != "" || len(c.SecurityGroupIDs) > 0 || c.VPCID != "" {
		vpc := map[string]any{"securityGroupIds": append([]string{}, c.SecurityGroupIDs...)}
		setIf(vpc, "clusterSecurityGroupId", c.ClusterSecurityGroupID)
		setIf(vpc, "vpcId", c.VPCID)
		out["resourcesVpcConfig"] = vpc
	}
	if c.OutpostARN != "" {
		out["outpostConfig"] = map[string]any{"outpostArns": []string{c.OutpostARN}, "controlPlaneInstanceType": "m5.large"}
	}
	return out
}

func setIf(m map[string]any, key, v string) {
	if v != "" {
		m[key] = v
	}
}

func writeEKSError(w http.ResponseWriter, f Fault) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-amzn-ErrorType", f.Code+":http://internal.amazon.com/coral/com.amazon.eks/")
	w.Header().Set("x-amzn-RequestId", requestID())
	w.WriteHeader(f.Status)
	json.NewEncoder(w).Encode(map[string]string{"message": f.Message})
}
