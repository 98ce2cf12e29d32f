package ec2

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// ErrUnknownInstanceType is wrapped when EC2 does not know the instance type.
var ErrUnknownInstanceType = errors.New("unknown instance type")

// Limits are the figures of an instance type that max-pods needs.
type Limits struct {
	// DefaultENIs is the maximum number of network interfaces of the default
	// network card (multi-card types count that card only).
	DefaultENIs int
	IPv4PerENI  int
	VCPUs       int
	// Hypervisor is "nitro", "xen" or "" (bare metal).
	Hypervisor string
	// NVIDIAGPUs and NeuronDevices count the type's accelerators (gpuInfo
	// made by NVIDIA, neuronInfo).
	NVIDIAGPUs, NeuronDevices int
}

// NetworkLimits converts l to the hub status form, with Source "ec2".
func (l Limits) NetworkLimits() hub.NetworkLimits {
	return hub.NetworkLimits{DefaultENIs: l.DefaultENIs, IPv4PerENI: l.IPv4PerENI, Hypervisor: l.Hypervisor, Source: "ec2"}
}

// InstanceTypeLimits asks DescribeInstanceTypes for one instance type.
func (c *Client) InstanceTypeLimits(ctx context.Context, instanceType string) (Limits, error) {
	out, err := c.api.DescribeInstanceTypes(ctx, &sdkec2.DescribeInstanceTypesInput{
		InstanceTypes: []types.InstanceType{types.InstanceType(instanceType)},
	})
	if err != nil {
		if errorCode(err) == "InvalidInstanceType" {
			return Limits{}, fmt.Errorf("ec2 DescribeInstanceTypes %s: %w: %w", instanceType, ErrUnknownInstanceType, err)
		}
		return Limits{}, apiError("DescribeInstanceTypes "+instanceType, err)
	}
	for _, it := range out.InstanceTypes {
		if string(it.InstanceType) == instanceType {
			return limitsOf(it), nil
		}
	}
	return Limits{}, fmt.Errorf("ec2 DescribeInstanceTypes %s: %w", instanceType, ErrUnknownInstanceType)
}

func limitsOf(it types.InstanceTypeInfo) Limits {
	l := Limits{Hypervisor: string(it.Hypervisor)}
	if it.VCpuInfo != nil {
		l.VCPUs = int(deref(it.VCpuInfo.DefaultVCpus))
	}
	if g := it.GpuInfo; g != nil {
		for _, d := range g.Gpus {
			if strings.EqualFold(deref(d.Manufacturer), "NVIDIA") {
				l.NVIDIAGPUs += int(deref(d.Count))
			}
		}
	}
	if n := it.NeuronInfo; n != nil {
		for _, d := range n.NeuronDevices {
			l.NeuronDevices += int(deref(d.Count))
		}
	}
	if n := it.NetworkInfo; n != nil {
		l.IPv4PerENI = int(deref(n.Ipv4AddressesPerInterface))
		l.DefaultENIs = int(deref(n.MaximumNetworkInterfaces))
		card := deref(n.DefaultNetworkCardIndex)
		for _, nc := range n.NetworkCards {
			if deref(nc.NetworkCardIndex) == card && nc.MaximumNetworkInterfaces != nil {
				l.DefaultENIs = int(*nc.MaximumNetworkInterfaces)
			}
		}
	}
	return l
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
