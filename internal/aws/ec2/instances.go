package ec2

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeboot/nodeboot/internal/aws/ec2/ec2instance"
)

// ErrInstanceNotFound is wrapped when EC2 knows no instance with the ID.
var ErrInstanceNotFound = errors.New("no such instance")

// ErrMalformedInstance is wrapped when EC2 answers an address that does not
// parse.
var ErrMalformedInstance = errors.New("malformed instance in the EC2 answer")

// maxFilterPages bounds the pages read for a filtered DescribeInstances: a
// private DNS name matches a handful of instances at most, but EC2 may
// answer a filtered query with empty pages and a NextToken.
const maxFilterPages = 10

// InstanceByID asks DescribeInstances for one instance. It wraps
// ErrInstanceNotFound when EC2 does not know the ID.
func (c *Client) InstanceByID(ctx context.Context, id string) (ec2instance.Instance, error) {
	out, err := c.api.DescribeInstances(ctx, &sdkec2.DescribeInstancesInput{InstanceIds: []string{id}})
	if err != nil {
		if errorCode(err) == "InvalidInstanceID.NotFound" {
			return ec2instance.Instance{}, fmt.Errorf("ec2 DescribeInstances %s: %w: %w", id, ErrInstanceNotFound, err)
		}
		return ec2instance.Instance{}, apiError("DescribeInstances "+id, err)
	}
	instances, err := convertReservations(out.Reservations)
	if err != nil {
		return ec2instance.Instance{}, fmt.Errorf("ec2 DescribeInstances %s: %w", id, err)
	}
	for _, in := range instances {
		if in.ID == id {
			return in, nil
		}
	}
	return ec2instance.Instance{}, fmt.Errorf("ec2 DescribeInstances %s: %w", id, ErrInstanceNotFound)
}

// InstancesByPrivateDNSName returns every instance whose private DNS name is
// name, in any state. Private DNS names are unique within a VPC only, and an
// address (so its name) is reused after its instance terminates, so there
// may be several.
func (c *Client) InstancesByPrivateDNSName(ctx context.Context, name string) ([]ec2instance.Instance, error) {
	op := "DescribeInstances private-dns-name=" + name
	return c.describePages(ctx, op, &sdkec2.DescribeInstancesInput{
		Filters:    []types.Filter{{Name: aws.String("private-dns-name"), Values: []string{name}}},
		MaxResults: aws.Int32(100),
	}, maxFilterPages)
}

// MaxFilterValues is how many values InstancesByFilter puts in one
// DescribeInstances call: the limit the Kubernetes AWS cloud provider
// keeps to (filterNodeLimit), below EC2's per-filter maximum.
const MaxFilterValues = 150

// maxBatchPages bounds the pages read for one InstancesByFilter call: at
// most MaxFilterValues instances (several per private DNS name at worst)
// at up to 1000 per page.
const maxBatchPages = 10

// InstancesByFilter returns every instance, in any state, matching one of
// values of the DescribeInstances filter name ("instance-id" or
// "private-dns-name"), in one paginated call. Unlike InstanceIds, a filter
// answers IDs EC2 does not know with no instance rather than failing the
// whole call. It refuses more than MaxFilterValues values.
func (c *Client) InstancesByFilter(ctx context.Context, name string, values []string) ([]ec2instance.Instance, error) {
	op := fmt.Sprintf("DescribeInstances %s (%d values)", name, len(values))
	if len(values) > MaxFilterValues {
		return nil, fmt.Errorf("ec2 %s: more than %d values", op, MaxFilterValues)
	}
	return c.describePages(ctx, op, &sdkec2.DescribeInstancesInput{
		Filters:    []types.Filter{{Name: aws.String(name), Values: values}},
		MaxResults: aws.Int32(1000),
	}, maxBatchPages)
}

// describePages reads every page of a DescribeInstances call, at most
// maxPages of them, naming op in its errors.
func (c *Client) describePages(ctx context.Context, op string, in *sdkec2.DescribeInstancesInput, maxPages int) ([]ec2instance.Instance, error) {
	pages := sdkec2.NewDescribeInstancesPaginator(c.api, in)
	var all []ec2instance.Instance
	for page := 0; pages.HasMorePages(); page++ {
		if page == maxPages {
			return nil, fmt.Errorf("ec2 %s: more than %d pages", op, maxPages)
		}
		out, err := pages.NextPage(ctx)
		if err != nil {
			return nil, apiError(op, err)
		}
		instances, err := convertReservations(out.Reservations)
		if err != nil {
			return nil, fmt.Errorf("ec2 %s: %w", op, err)
		}
		all = append(all, instances...)
	}
	return all, nil
}

func convertReservations(reservations []types.Reservation) ([]ec2instance.Instance, error) {
	var out []ec2instance.Instance
	for _, r := range reservations {
		for _, in := range r.Instances {
			converted, err := convertInstance(in)
			if err != nil {
				return nil, err
			}
			converted.OwnerID = aws.ToString(r.OwnerId)
			out = append(out, converted)
		}
	}
	return out, nil
}

func convertInstance(in types.Instance) (ec2instance.Instance, error) {
	out := ec2instance.Instance{
		ID:             aws.ToString(in.InstanceId),
		PrivateDNSName: aws.ToString(in.PrivateDnsName),
		PublicDNSName:  aws.ToString(in.PublicDnsName),
		VPCID:          aws.ToString(in.VpcId),
	}
	if in.State != nil {
		out.State = string(in.State.Name)
	}
	if in.Placement != nil {
		out.AvailabilityZone = aws.ToString(in.Placement.AvailabilityZone)
	}
	addrs := addressSet{instance: out.ID}
	var private, public []netip.Addr
	addrs.add(&private, in.PrivateIpAddress)
	addrs.add(&public, in.PublicIpAddress)
	addrs.add(&out.IPv6s, in.Ipv6Address)
	addInterfaces(&addrs, &out, &private, in.NetworkInterfaces)
	if len(private) > 0 {
		out.PrivateIP = private[0]
	}
	if len(public) > 0 {
		out.PublicIP = public[0]
	}
	return out, addrs.err
}

// addInterfaces adds the addresses of the instance's network interfaces:
// the primary interface's primary private IPv4 to private and its IPv6s to
// out.IPv6s; every other address of any interface (secondary IPs, their
// public associations, other interfaces' IPv6s) to out.SecondaryIPs. An
// address already added keeps its first place.
func addInterfaces(addrs *addressSet, out *ec2instance.Instance, private *[]netip.Addr, nis []types.InstanceNetworkInterface) {
	primary, others := splitInterfaces(nis)
	if primary != nil {
		addrs.add(private, primary.PrivateIpAddress)
		for _, p := range primary.Ipv6Addresses {
			addrs.add(&out.IPv6s, p.Ipv6Address)
		}
		others = append([]types.InstanceNetworkInterface{*primary}, others...)
	}
	for _, ni := range others {
		for _, p := range ni.PrivateIpAddresses {
			addrs.add(&out.SecondaryIPs, p.PrivateIpAddress)
			if p.Association != nil {
				addrs.add(&out.SecondaryIPs, p.Association.PublicIp)
			}
		}
		for _, p := range ni.Ipv6Addresses {
			addrs.add(&out.SecondaryIPs, p.Ipv6Address)
		}
	}
}

// splitInterfaces returns the instance's primary network interface (device
// index 0 on network card 0; nil when the answer has none in use) and its
// other in-use interfaces. EC2 does not list interfaces by device index,
// and instances with several network cards have a device 0 on each card.
func splitInterfaces(all []types.InstanceNetworkInterface) (*types.InstanceNetworkInterface, []types.InstanceNetworkInterface) {
	var primary *types.InstanceNetworkInterface
	var others []types.InstanceNetworkInterface
	for i, ni := range all {
		switch {
		case ni.Status != types.NetworkInterfaceStatusInUse:
		case primary == nil && isPrimaryInterface(ni):
			primary = &all[i]
		default:
			others = append(others, ni)
		}
	}
	return primary, others
}

// isPrimaryInterface reports whether ni is attached as device 0 of network
// card 0 (an attachment without a card index is on card 0).
func isPrimaryInterface(ni types.InstanceNetworkInterface) bool {
	a := ni.Attachment
	return a != nil && a.DeviceIndex != nil && *a.DeviceIndex == 0 && aws.ToInt32(a.NetworkCardIndex) == 0
}

// addressSet parses addresses into lists without duplicates, keeping the
// first parse error.
type addressSet struct {
	instance string
	seen     map[netip.Addr]bool
	err      error
}

func (s *addressSet) add(list *[]netip.Addr, value *string) {
	v := aws.ToString(value)
	if v == "" || s.err != nil {
		return
	}
	addr, err := netip.ParseAddr(v)
	if err != nil {
		s.err = fmt.Errorf("%w: instance %s has address %q: %w", ErrMalformedInstance, s.instance, v, err)
		return
	}
	addr = addr.Unmap()
	if s.seen == nil {
		s.seen = map[netip.Addr]bool{}
	}
	if !s.seen[addr] {
		s.seen[addr] = true
		*list = append(*list, addr)
	}
}
