package awstest

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// NetworkInterface is one network interface attached to an Instance.
type NetworkInterface struct {
	// Status is the interface status; empty means "in-use".
	Status string
	// Slot is where the interface is attached; nil means device index =
	// its position in Instance.Interfaces, on network card 0.
	Slot *Slot
	// PrivateIPs are its private IPv4 addresses, the primary first.
	PrivateIPs []string
	// IPv6s are its IPv6 addresses.
	IPv6s []string
	// PublicIPs are the public IPv4 addresses (auto-assigned or Elastic)
	// associated with its private addresses, by private address. The
	// instance's ipAddress is the one of its primary interface's primary
	// address (Instance.PublicIP, which wins over an entry here).
	PublicIPs map[string]string
	// IPv4Prefixes and IPv6Prefixes are delegated prefixes (the VPC CNI's
	// prefix mode): addresses from them are in no address set.
	IPv4Prefixes, IPv6Prefixes []string
}

// Slot is an interface's attachment.deviceIndex and networkCardIndex.
// The instance's primary interface is device 0 on card 0; instances with
// several network cards have a device 0 on each card.
type Slot struct {
	Device, Card int
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
	DNSOptions     xmlDNSNameOptions     `xml:"privateDnsNameOptions"`
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

type xmlDNSNameOptions struct {
	HostnameType string `xml:"hostnameType"`
	ARecord      bool   `xml:"enableResourceNameDnsARecord"`
	AAAARecord   bool   `xml:"enableResourceNameDnsAAAARecord"`
}

type xmlNetworkInterface struct {
	ID             string          `xml:"networkInterfaceId"`
	Status         string          `xml:"status"`
	Attachment     xmlAttachment   `xml:"attachment"`
	Association    *xmlAssociation `xml:"association,omitempty"`
	PrivateIP      string          `xml:"privateIpAddress,omitempty"`
	PrivateDNSName string          `xml:"privateDnsName,omitempty"`
	PrivateIPs     []xmlPrivateIP  `xml:"privateIpAddressesSet>item"`
	IPv6s          []xmlIPv6Member `xml:"ipv6AddressesSet>item"`
	IPv4Prefixes   []xmlIPv4Prefix `xml:"ipv4PrefixSet>item,omitempty"`
	IPv6Prefixes   []xmlIPv6Prefix `xml:"ipv6PrefixSet>item,omitempty"`
	InterfaceType  string          `xml:"interfaceType"`
}

type xmlAttachment struct {
	DeviceIndex int    `xml:"deviceIndex"`
	Status      string `xml:"status"`
	CardIndex   int    `xml:"networkCardIndex"`
}

type xmlAssociation struct {
	PublicIP      string `xml:"publicIp"`
	PublicDNSName string `xml:"publicDnsName,omitempty"`
	IPOwnerID     string `xml:"ipOwnerId"`
}

type xmlPrivateIP struct {
	Address        string          `xml:"privateIpAddress"`
	PrivateDNSName string          `xml:"privateDnsName,omitempty"`
	Primary        bool            `xml:"primary"`
	Association    *xmlAssociation `xml:"association,omitempty"`
}

type xmlIPv6Member struct {
	Address string `xml:"ipv6Address"`
	Primary bool   `xml:"isPrimaryIpv6"`
}

type xmlIPv4Prefix struct {
	Prefix string `xml:"ipv4Prefix"`
}

type xmlIPv6Prefix struct {
	Prefix string `xml:"ipv6Prefix"`
}

// hostnameResourceName is privateDnsNameOptions.hostnameType of instances
// named by instance ID.
const hostnameResourceName = "resource-name"

// xmlInstanceOf renders an instance as DescribeInstances does, with name
// as its private DNS name: the instance's privateIpAddress, ipv6Address
// and ipAddress are those of its primary interface (device 0 on card 0),
// wherever that interface is in the list.
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
		DNSOptions:     dnsNameOptionsOf(in),
	}
	for _, k := range slices.Sorted(maps.Keys(in.Tags)) {
		x.Tags = append(x.Tags, xmlTag{Key: k, Value: in.Tags[k]})
	}
	for _, g := range in.SecurityGroups {
		x.Groups = append(x.Groups, xmlGroupIdentifier{ID: g})
	}
	for i, ni := range in.Interfaces {
		slot := slotOf(ni, i)
		primary := slot == Slot{}
		xi := xmlInterfaceOf(in, ni, i, slot, primary)
		if primary {
			x.PrivateIP = xi.PrivateIP
			if len(ni.IPv6s) > 0 {
				x.IPv6 = ni.IPv6s[0]
			}
		}
		x.Interfaces = append(x.Interfaces, xi)
	}
	return x
}

// dnsNameOptionsOf renders privateDnsNameOptions: ip-name unless the
// instance is named by resource, whose name then answers A (and, with an
// IPv6 address, AAAA) queries.
func dnsNameOptionsOf(in *Instance) xmlDNSNameOptions {
	if in.HostnameType != hostnameResourceName {
		return xmlDNSNameOptions{HostnameType: "ip-name"}
	}
	hasIPv6 := slices.ContainsFunc(in.Interfaces, func(ni NetworkInterface) bool { return len(ni.IPv6s) > 0 })
	return xmlDNSNameOptions{HostnameType: hostnameResourceName, ARecord: true, AAAARecord: hasIPv6}
}

// slotOf is where the i-th interface is attached.
func slotOf(ni NetworkInterface, i int) Slot {
	if ni.Slot != nil {
		return *ni.Slot
	}
	return Slot{Device: i}
}

// xmlInterfaceOf renders the i-th interface, attached at slot; primary
// says it is the instance's primary interface, whose primary address
// carries the instance's public IPv4 and public DNS name.
func xmlInterfaceOf(in *Instance, ni NetworkInterface, i int, slot Slot, primary bool) xmlNetworkInterface {
	xi := xmlNetworkInterface{
		ID:            fmt.Sprintf("eni-%s-%d", in.ID, i),
		Status:        ni.Status,
		Attachment:    xmlAttachment{DeviceIndex: slot.Device, CardIndex: slot.Card, Status: "attached"},
		InterfaceType: "interface",
	}
	if xi.Status == "" {
		xi.Status = "in-use"
	}
	for j, ip := range ni.PrivateIPs {
		p := xmlPrivateIP{Address: ip, PrivateDNSName: ipName(ip, in.PrivateDNSName), Primary: j == 0}
		public := ni.PublicIPs[ip]
		if primary && j == 0 && in.PublicIP != "" {
			public = in.PublicIP
		}
		if public != "" {
			p.Association = &xmlAssociation{PublicIP: public, IPOwnerID: "amazon"}
			if primary && j == 0 {
				p.Association.PublicDNSName = in.PublicDNSName
			}
		}
		if j == 0 {
			xi.Association = p.Association
		}
		xi.PrivateIPs = append(xi.PrivateIPs, p)
	}
	for j, ip := range ni.IPv6s {
		xi.IPv6s = append(xi.IPv6s, xmlIPv6Member{Address: ip, Primary: primary && j == 0 && in.PrimaryIPv6})
	}
	for _, p := range ni.IPv4Prefixes {
		xi.IPv4Prefixes = append(xi.IPv4Prefixes, xmlIPv4Prefix{Prefix: p})
	}
	for _, p := range ni.IPv6Prefixes {
		xi.IPv6Prefixes = append(xi.IPv6Prefixes, xmlIPv6Prefix{Prefix: p})
	}
	if len(ni.PrivateIPs) > 0 {
		xi.PrivateIP = ni.PrivateIPs[0]
		xi.PrivateDNSName = xi.PrivateIPs[0].PrivateDNSName
	}
	return xi
}

// ipName is the IP-based private DNS name of ip, in the domain of the
// instance's private DNS name (ec2.internal in us-east-1,
// <region>.compute.internal elsewhere): EC2 names every private IPv4 so,
// whatever the instance's hostname type.
func ipName(ip, instanceName string) string {
	_, domain, ok := strings.Cut(instanceName, ".")
	if !ok || strings.Contains(ip, ":") {
		return ""
	}
	return "ip-" + strings.ReplaceAll(ip, ".", "-") + "." + domain
}
