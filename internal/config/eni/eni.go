// Package eni answers how many network interfaces (ENIs) and IPv4 addresses
// per interface an EC2 instance type has, from a table embedded at build
// time (zz_generated_table.go, written by hack/gen-eni-table from the VPC CNI
// limits data). The table is a sorted slice literal: the linker lays it out
// as static data, so the package does no work at init, and Lookup is a
// binary search without allocation.
//
// Types missing from the table (newer than the data) must come from EC2
// DescribeInstanceTypes; the caller does that and fills a Limits itself.
package eni

//go:generate go run ../../../hack/gen-eni-table -in ../../../../shared/data/instance-network-limits.jsonl -out zz_generated_table.go -source-date 2026-08

import (
	"slices"
	"strings"
)

// Hypervisor names used in Limits.Hypervisor (the EC2 API's spelling).
const (
	HypervisorNitro   = "nitro"
	HypervisorXen     = "xen"
	HypervisorUnknown = "unknown"
)

// Limits are an instance type's network interface limits.
type Limits struct {
	// DefaultENIs is the maximum ENIs of the default network card; max pods
	// counts only these.
	DefaultENIs int
	// IPv4PerENI is the number of IPv4 addresses per interface.
	IPv4PerENI int
	// TotalENIs is the maximum ENIs over all network cards.
	TotalENIs int
	// Hypervisor is HypervisorNitro, HypervisorXen or HypervisorUnknown
	// (bare-metal types report unknown).
	Hypervisor string
	// BareMetal is true for bare-metal instance types.
	BareMetal bool
}

// hypervisor is the compact form of Limits.Hypervisor stored in the table.
type hypervisor uint8

// Hypervisor values of the table; the generator writes these identifiers.
const (
	hvUnknown hypervisor = iota
	hvNitro
	hvXen
)

// String returns the EC2 API's name of h.
func (h hypervisor) String() string {
	switch h {
	case hvNitro:
		return HypervisorNitro
	case hvXen:
		return HypervisorXen
	default:
		return HypervisorUnknown
	}
}

// entry is one row of the generated table; field types are as small as the
// data allows (the generator refuses values that do not fit).
type entry struct {
	instanceType string
	defaultENIs  uint8
	ipv4PerENI   uint8
	totalENIs    uint16
	hypervisor   hypervisor
	bareMetal    bool
}

// limits widens e to the exported form.
func (e *entry) limits() Limits {
	return Limits{
		DefaultENIs: int(e.defaultENIs),
		IPv4PerENI:  int(e.ipv4PerENI),
		TotalENIs:   int(e.totalENIs),
		Hypervisor:  e.hypervisor.String(),
		BareMetal:   e.bareMetal,
	}
}

// Lookup returns the limits of instanceType (exact, case-sensitive match,
// e.g. "m5.large") and whether the table knows it.
func Lookup(instanceType string) (Limits, bool) {
	i, found := slices.BinarySearchFunc(table, instanceType, compareEntry)
	if !found {
		return Limits{}, false
	}
	return table[i].limits(), true
}

// compareEntry orders table entries by instance type.
func compareEntry(e entry, instanceType string) int {
	return strings.Compare(e.instanceType, instanceType)
}

// Count returns the number of instance types in the table.
func Count() int {
	return len(table)
}

// Source returns the name of the data file the table was generated from and
// when that data was published (YYYY-MM or YYYY-MM-DD).
func Source() (name, date string) {
	return sourceName, sourceDate
}
