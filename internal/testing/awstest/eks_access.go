package awstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
)

// Authentication modes of an EKS cluster (accessConfig.authenticationMode).
const (
	AuthModeConfigMap       = "CONFIG_MAP"
	AuthModeAPIAndConfigMap = "API_AND_CONFIG_MAP"
	AuthModeAPI             = "API"
)

// Access entry types for nodes, and the default.
const (
	AccessEntryEC2Linux   = "EC2_LINUX"
	AccessEntryEC2Windows = "EC2_WINDOWS"
	AccessEntryStandard   = "STANDARD"
)

// nodeUsername is the username EKS gives an EC2_LINUX or EC2_WINDOWS entry.
const nodeUsername = "system:node:{{EC2PrivateDNSName}}"

// AccessEntry is an EKS access entry.
type AccessEntry struct {
	PrincipalARN     string
	Type             string
	Username         string
	KubernetesGroups []string
	Created          time.Time
}

// eksRoute is the operation a REST request names.
type eksRoute struct {
	action, cluster, principal string
}

// routeEKS maps the REST paths of the EKS operations the server answers.
// The principal ARN in an access entry's path is URL-escaped by the SDK
// (its '/' as %2F), so the escaped path is split.
func routeEKS(r *http.Request) (eksRoute, bool) {
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/clusters/")
	if !ok {
		return eksRoute{}, false
	}
	parts := strings.Split(rest, "/")
	for i, p := range parts {
		u, err := url.PathUnescape(p)
		if err != nil || u == "" {
			return eksRoute{}, false
		}
		parts[i] = u
	}
	rt := eksRoute{cluster: parts[0]}
	switch {
	case len(parts) == 1 && r.Method == http.MethodGet:
		rt.action = ActionDescribeCluster
	case len(parts) == 2 && parts[1] == "update-config" && r.Method == http.MethodPost:
		rt.action = ActionUpdateClusterConfig
	case len(parts) == 2 && parts[1] == "access-entries" && r.Method == http.MethodGet:
		rt.action = ActionListAccessEntries
	case len(parts) == 2 && parts[1] == "access-entries" && r.Method == http.MethodPost:
		rt.action = ActionCreateAccessEntry
	case len(parts) == 3 && parts[1] == "access-entries" && r.Method == http.MethodGet:
		rt.action, rt.principal = ActionDescribeAccessEntry, parts[2]
	case len(parts) == 3 && parts[1] == "access-entries" && r.Method == http.MethodDelete:
		rt.action, rt.principal = ActionDeleteAccessEntry, parts[2]
	default:
		return eksRoute{}, false
	}
	return rt, true
}

func eksFault(status int, code, format string, args ...any) *Fault {
	return &Fault{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// AccessEntries returns a cluster's access entries, sorted by principal.
func (s *EKS) AccessEntries(cluster string) []AccessEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []AccessEntry
	for _, e := range s.entries[cluster] {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PrincipalARN < out[j].PrincipalARN })
	return out
}

// AddAccessEntry makes an access entry known, as CreateAccessEntry would.
func (s *EKS) AddAccessEntry(cluster string, e AccessEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.entries[cluster] == nil {
		s.entries[cluster] = map[string]AccessEntry{}
	}
	s.entries[cluster][e.PrincipalARN] = e
}

// AuthenticationMode returns a cluster's authentication mode.
func (s *EKS) AuthenticationMode(cluster string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clusters[cluster].AuthenticationMode
}

// serveAccessEntries answers the access-entry operations. Like EKS, they
// need a mode with the API (not CONFIG_MAP).
func (s *EKS) serveAccessEntries(c Cluster, rt eksRoute, r *http.Request) (any, *Fault) {
	if c.AuthenticationMode == AuthModeConfigMap || c.AuthenticationMode == "" {
		return nil, eksFault(http.StatusBadRequest, "InvalidRequestException",
			"The cluster's authentication mode must be set to one of [API, API_AND_CONFIG_MAP] to perform this operation.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	entries := s.entries[c.Name]
	switch rt.action {
	case ActionListAccessEntries:
		arns := []string{}
		for arn := range entries {
			arns = append(arns, arn)
		}
		sort.Strings(arns)
		return map[string]any{"accessEntries": arns}, nil
	case ActionCreateAccessEntry:
		return s.createAccessEntry(c, r)
	}
	e, ok := entries[rt.principal]
	if !ok {
		return nil, eksFault(http.StatusNotFound, "ResourceNotFoundException", "The specified access entry resource could not be found.")
	}
	if rt.action == ActionDeleteAccessEntry {
		delete(entries, rt.principal)
		return map[string]any{}, nil
	}
	return map[string]any{"accessEntry": accessEntryJSON(c, e)}, nil
}

// createAccessEntry checks a CreateAccessEntry the way EKS does: a node
// type takes an IAM role and neither groups nor a username (EKS sets
// them), a principal has one entry; s.mu is held.
func (s *EKS) createAccessEntry(c Cluster, r *http.Request) (any, *Fault) {
	var in struct {
		PrincipalARN     string   `json:"principalArn"`
		Type             string   `json:"type"`
		Username         string   `json:"username"`
		KubernetesGroups []string `json:"kubernetesGroups"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.PrincipalARN == "" {
		return nil, eksFault(http.StatusBadRequest, "InvalidParameterException", "principalArn is required")
	}
	e := AccessEntry{PrincipalARN: in.PrincipalARN, Type: in.Type, Username: in.Username, KubernetesGroups: in.KubernetesGroups, Created: time.Now()}
	switch e.Type {
	case "":
		e.Type = AccessEntryStandard
	case AccessEntryEC2Linux, AccessEntryEC2Windows:
		if len(e.KubernetesGroups) > 0 || e.Username != "" {
			return nil, eksFault(http.StatusBadRequest, "InvalidParameterException",
				"The kubernetesGroups and username parameters can't be specified for an access entry of type %s.", e.Type)
		}
		if !strings.Contains(e.PrincipalARN, ":role/") {
			return nil, eksFault(http.StatusBadRequest, "InvalidParameterException", "The principalArn of a %s access entry must be an IAM role.", e.Type)
		}
		e.Username = nodeUsername
	}
	if !slices.Contains([]string{AccessEntryStandard, AccessEntryEC2Linux, AccessEntryEC2Windows}, e.Type) {
		return nil, eksFault(http.StatusBadRequest, "InvalidParameterException", "The type %s is not supported.", e.Type)
	}
	if _, dup := s.entries[c.Name][e.PrincipalARN]; dup {
		return nil, eksFault(http.StatusConflict, "ResourceInUseException", "The specified access entry resource is already in use on this cluster.")
	}
	if s.entries[c.Name] == nil {
		s.entries[c.Name] = map[string]AccessEntry{}
	}
	s.entries[c.Name][e.PrincipalARN] = e
	return map[string]any{"accessEntry": accessEntryJSON(c, e)}, nil
}

func accessEntryJSON(c Cluster, e AccessEntry) map[string]any {
	groups := e.KubernetesGroups
	if groups == nil {
		groups = []string{}
	}
	ts := float64(e.Created.Unix())
	return map[string]any{
		"clusterName": c.Name, "principalArn": e.PrincipalARN, "type": e.Type, "username": e.Username, "kubernetesGroups": groups,
		"accessEntryArn": "arn:aws:eks:us-west-2:111122223333:access-entry/" + c.Name + "/" + strings.ToLower(e.Type) + "/" + requestID(),
		"createdAt":      ts, "modifiedAt": ts, "tags": map[string]string{},
	}
}

// updateClusterConfig changes the authentication mode. Like EKS it only
// moves toward the API: CONFIG_MAP → API_AND_CONFIG_MAP → API.
func (s *EKS) updateClusterConfig(c Cluster, r *http.Request) (any, *Fault) {
	var in struct {
		AccessConfig *struct {
			AuthenticationMode string `json:"authenticationMode"`
		} `json:"accessConfig"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.AccessConfig == nil {
		return nil, eksFault(http.StatusBadRequest, "InvalidParameterException", "only accessConfig updates are supported")
	}
	order := []string{AuthModeConfigMap, AuthModeAPIAndConfigMap, AuthModeAPI}
	from, to := slices.Index(order, c.AuthenticationMode), slices.Index(order, in.AccessConfig.AuthenticationMode)
	if to < 0 || to <= from {
		return nil, eksFault(http.StatusBadRequest, "InvalidParameterException",
			"Unsupported authentication mode update from %s to %s", c.AuthenticationMode, in.AccessConfig.AuthenticationMode)
	}
	s.mu.Lock()
	c.AuthenticationMode = in.AccessConfig.AuthenticationMode
	s.clusters[c.Name] = c
	s.updates++
	id := fmt.Sprintf("00000000-0000-4000-8000-%012d", s.updates)
	s.mu.Unlock()
	return map[string]any{"update": map[string]any{
		"id": id, "status": "Successful", "type": "AccessConfigUpdate", "createdAt": float64(time.Now().Unix()),
		"params": []map[string]string{{"type": "AuthenticationMode", "value": c.AuthenticationMode}},
	}}, nil
}
