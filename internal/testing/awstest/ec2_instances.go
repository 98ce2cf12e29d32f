package awstest

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
)

// NetworkInterface is one network interface attached to an Instance.
type NetworkInterface struct {
	// Status is the interface status; empty means "in-use".
	Status string
	// PrivateIPs are its private IPv4 addresses, the primary first.
	PrivateIPs []string
	// IPv6s are its IPv6 addresses.
	IPv6s []string
}

// instanceStateCodes are the codes EC2 pairs with each instanceState name.
var instanceStateCodes = map[string]int{
	"pending": 0, "running": 16, "shutting-down": 32, "terminated": 48, "stopping": 64, "stopped": 80,
}

// stateOf returns the instance's state name, "running" by default.
func stateOf(in *Instance) string {
	if in.State == "" {
		return "running"
	}
	return in.State
}

// describeFilters are the DescribeInstances filters the server applies,
// by filter name; an instance matches when every filter has a value equal
// to the instance's.
type describeFilters map[string][]string

// instanceFilterNames are the filters the server understands; real EC2
// knows many more, and answers any name it does not know as invalid.
var instanceFilterNames = []string{"instance-id", "private-dns-name", "instance-state-name", "availability-zone", "vpc-id"}

// instanceFilters reads the Filter.N.Name / Filter.N.Value.M parameters.
// A filter it does not know is returned as invalid.
func instanceFilters(form url.Values) (filters describeFilters, invalid string) {
	filters = describeFilters{}
	for i := 1; ; i++ {
		name := form.Get(fmt.Sprintf("Filter.%d.Name", i))
		if name == "" {
			return filters, ""
		}
		if !slices.Contains(instanceFilterNames, name) {
			return nil, name
		}
		filters[name] = append(filters[name], indexed(form, fmt.Sprintf("Filter.%d.Value", i))...)
	}
}

// match reports whether in, showing name as its private DNS name, passes
// every filter.
func (f describeFilters) match(in *Instance, name string) bool {
	values := map[string]string{
		"instance-id":         in.ID,
		"vpc-id":              in.VPCID,
		"private-dns-name":    name,
		"instance-state-name": stateOf(in),
		"availability-zone":   in.AvailabilityZone,
	}
	for filter, want := range f {
		if !slices.Contains(want, values[filter]) {
			return false
		}
	}
	return true
}

type xmlInstance struct {
	ID             string                `xml:"instanceId"`
	ImageID        string                `xml:"imageId,omitempty"`
	Type           string                `xml:"instanceType"`
	State          xmlInstanceState      `xml:"instanceState"`
	PrivateDNSName string                `xml:"privateDnsName"`
	PublicDNSName  string                `xml:"dnsName"`
	VPCID          string                `xml:"vpcId,omitempty"`
	Placement      xmlPlacement          `xml:"placement"`
	PrivateIP      string                `xml:"privateIpAddress,omitempty"`
	PublicIP       string                `xml:"ipAddress,omitempty"`
	IPv6           string                `xml:"ipv6Address,omitempty"`
	Interfaces     []xmlNetworkInterface `xml:"networkInterfaceSet>item"`
	Tags           []xmlTag              `xml:"tagSet>item,omitempty"`
	Groups         []xmlGroupIdentifier  `xml:"groupSet>item,omitempty"`
}

type xmlTag struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

type xmlInstanceState struct {
	Code int    `xml:"code"`
	Name string `xml:"name"`
}

type xmlPlacement struct {
	AvailabilityZone string `xml:"availabilityZone,omitempty"`
}

type xmlNetworkInterface struct {
	ID         string          `xml:"networkInterfaceId"`
	Status     string          `xml:"status"`
	Attachment xmlAttachment   `xml:"attachment"`
	PrivateIP  string          `xml:"privateIpAddress,omitempty"`
	PrivateIPs []xmlPrivateIP  `xml:"privateIpAddressesSet>item"`
	IPv6s      []xmlIPv6Member `xml:"ipv6AddressesSet>item"`
}

type xmlAttachment struct {
	DeviceIndex int    `xml:"deviceIndex"`
	Status      string `xml:"status"`
}

type xmlPrivateIP struct {
	Address string `xml:"privateIpAddress"`
	Primary bool   `xml:"primary"`
}

type xmlIPv6Member struct {
	Address string `xml:"ipv6Address"`
}

// xmlInstanceOf renders an instance as DescribeInstances does, with name
// as its private DNS name.
func xmlInstanceOf(in *Instance, name string) xmlInstance {
	state := stateOf(in)
	x := xmlInstance{
		ID:             in.ID,
		Type:           in.InstanceType,
		State:          xmlInstanceState{Code: instanceStateCodes[state], Name: state},
		PrivateDNSName: name,
		PublicDNSName:  in.PublicDNSName,
		VPCID:          in.VPCID,
		Placement:      xmlPlacement{AvailabilityZone: in.AvailabilityZone},
		PublicIP:       in.PublicIP,
		ImageID:        in.ImageID,
	}
	for _, k := range slices.Sorted(maps.Keys(in.Tags)) {
		x.Tags = append(x.Tags, xmlTag{Key: k, Value: in.Tags[k]})
	}
	for _, g := range in.SecurityGroups {
		x.Groups = append(x.Groups, xmlGroupIdentifier{ID: g})
	}
	for i, ni := range in.Interfaces {
		xi := xmlNetworkInterface{
			ID:         fmt.Sprintf("eni-%s-%d", in.ID, i),
			Status:     ni.Status,
			Attachment: xmlAttachment{DeviceIndex: i, Status: "attached"},
		}
		if xi.Status == "" {
			xi.Status = "in-use"
		}
		for j, ip := range ni.PrivateIPs {
			xi.PrivateIPs = append(xi.PrivateIPs, xmlPrivateIP{Address: ip, Primary: j == 0})
		}
		for _, ip := range ni.IPv6s {
			xi.IPv6s = append(xi.IPv6s, xmlIPv6Member{Address: ip})
		}
		if len(ni.PrivateIPs) > 0 {
			xi.PrivateIP = ni.PrivateIPs[0]
		}
		if i == 0 {
			x.PrivateIP = xi.PrivateIP
			if len(ni.IPv6s) > 0 {
				x.IPv6 = ni.IPv6s[0]
			}
		}
		x.Interfaces = append(x.Interfaces, xi)
	}
	return x
}
