package awstest

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// ActionDescribeSecurityGroups is the EC2 action that lists security groups.
const ActionDescribeSecurityGroups = "DescribeSecurityGroups"

// SecurityGroup is one security group the EC2 server knows.
type SecurityGroup struct {
	ID, Name, VPCID string
	Ingress, Egress []Permission
}

// Permission is one rule of a security group: a protocol ("tcp", "udp",
// "icmp", or "-1" for all) and port range, from (ingress) or to (egress)
// other groups or CIDR ranges.
type Permission struct {
	Protocol         string
	FromPort, ToPort int
	Groups           []string
	CIDRs            []string
}

// AddSecurityGroup makes a security group known (replacing one with the same ID).
func (s *EC2) AddSecurityGroup(g SecurityGroup) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.groups == nil {
		s.groups = map[string]SecurityGroup{}
	}
	s.groups[g.ID] = g
}

func (s *EC2) describeSecurityGroups(w http.ResponseWriter, form url.Values) {
	ids := indexed(form, "GroupId")
	s.mu.Lock()
	resp := describeSecurityGroupsResponse{RequestID: requestID()}
	var missing []string
	if len(ids) == 0 {
		for id := range s.groups {
			ids = append(ids, id)
		}
		slices.Sort(ids)
	}
	for _, id := range ids {
		g, ok := s.groups[id]
		if !ok {
			missing = append(missing, id)
			continue
		}
		resp.Groups = append(resp.Groups, xmlSecurityGroupOf(g))
	}
	s.mu.Unlock()
	if len(missing) > 0 {
		writeEC2Error(w, Fault{Status: http.StatusBadRequest, Code: "InvalidGroup.NotFound",
			Message: "The security group '" + strings.Join(missing, "', '") + "' does not exist"})
		return
	}
	writeXML(w, resp)
}

func xmlSecurityGroupOf(g SecurityGroup) xmlSecurityGroup {
	x := xmlSecurityGroup{OwnerID: "111122223333", ID: g.ID, Name: g.Name, Description: g.Name, VPCID: g.VPCID}
	for _, p := range g.Ingress {
		x.Ingress = append(x.Ingress, xmlPermissionOf(p))
	}
	for _, p := range g.Egress {
		x.Egress = append(x.Egress, xmlPermissionOf(p))
	}
	return x
}

func xmlPermissionOf(p Permission) xmlPermission {
	x := xmlPermission{Protocol: p.Protocol}
	if p.Protocol != "-1" {
		x.FromPort, x.ToPort = &p.FromPort, &p.ToPort
	}
	for _, g := range p.Groups {
		x.Groups = append(x.Groups, xmlGroupPair{UserID: "111122223333", GroupID: g})
	}
	for _, c := range p.CIDRs {
		x.Ranges = append(x.Ranges, xmlIPRange{CIDR: c})
	}
	return x
}

type describeSecurityGroupsResponse struct {
	XMLName   xml.Name           `xml:"http://ec2.amazonaws.com/doc/2016-11-15/ DescribeSecurityGroupsResponse"`
	RequestID string             `xml:"requestId"`
	Groups    []xmlSecurityGroup `xml:"securityGroupInfo>item"`
}

type xmlSecurityGroup struct {
	OwnerID     string          `xml:"ownerId"`
	ID          string          `xml:"groupId"`
	Name        string          `xml:"groupName"`
	Description string          `xml:"groupDescription"`
	VPCID       string          `xml:"vpcId,omitempty"`
	Ingress     []xmlPermission `xml:"ipPermissions>item"`
	Egress      []xmlPermission `xml:"ipPermissionsEgress>item"`
}

type xmlPermission struct {
	Protocol string         `xml:"ipProtocol"`
	FromPort *int           `xml:"fromPort,omitempty"`
	ToPort   *int           `xml:"toPort,omitempty"`
	Groups   []xmlGroupPair `xml:"groups>item"`
	Ranges   []xmlIPRange   `xml:"ipRanges>item"`
}

type xmlGroupPair struct {
	UserID  string `xml:"userId"`
	GroupID string `xml:"groupId"`
}

type xmlIPRange struct {
	CIDR string `xml:"cidrIp"`
}

type xmlGroupIdentifier struct {
	ID   string `xml:"groupId"`
	Name string `xml:"groupName,omitempty"`
}
