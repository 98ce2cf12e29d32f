package awstest

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
)

// EC2Namespace is the XML namespace of EC2 Query API responses.
const EC2Namespace = "http://ec2.amazonaws.com/doc/2016-11-15/"

// EC2 actions the server answers.
const (
	ActionDescribeInstances              = "DescribeInstances"
	ActionDescribeInstanceTypes          = "DescribeInstanceTypes"
	ActionCreateLaunchTemplateVersion    = "CreateLaunchTemplateVersion"
	ActionDescribeLaunchTemplateVersions = "DescribeLaunchTemplateVersions"
)

// Instance is one EC2 instance the EC2 server knows.
type Instance struct {
	ID             string
	InstanceType   string
	PrivateDNSName string
	// EmptyNameCalls is how many DescribeInstances calls for this instance
	// answer with an empty privateDnsName before the name appears; -1 means
	// the name never appears.
	EmptyNameCalls int
	// AvailabilityZone is placement.availabilityZone.
	AvailabilityZone string
	// State is instanceState.name; empty means "running".
	State string
	// Interfaces are the attached network interfaces, in the order
	// networkInterfaceSet lists them (EC2 does not sort them by device
	// index); the instance's privateIpAddress and ipv6Address are the first
	// addresses of its primary interface (device 0 on card 0: the first
	// interface unless Slots say otherwise).
	Interfaces []NetworkInterface
	// PublicIP and PublicDNSName are ipAddress and dnsName, also rendered
	// as the association of the primary interface's primary address.
	PublicIP, PublicDNSName string
	// HostnameType is privateDnsNameOptions.hostnameType: "ip-name" when
	// empty, or "resource-name", for which PrivateDNSName is then the
	// resource name (i-….ec2.internal, i-….<region>.compute.internal).
	HostnameType string
	// PrimaryIPv6 marks the primary interface's first IPv6 address
	// isPrimaryIpv6 (RunInstances EnablePrimaryIpv6).
	PrimaryIPv6 bool
	// ImageID and Tags are imageId and tagSet.
	ImageID string
	Tags    map[string]string
	// SecurityGroups are the IDs in groupSet (the primary interface's).
	SecurityGroups []string
	// VPCID is vpcId; OwnerID is the ownerId of the instance's
	// reservation.
	VPCID, OwnerID string
}

// InstanceType is one EC2 instance type the EC2 server knows.
type InstanceType struct {
	Name       string
	Hypervisor string
	VCPUs      int
	// MaxENIs is networkInfo.maximumNetworkInterfaces (all cards).
	MaxENIs    int
	IPv4PerENI int
	// DefaultCard is networkInfo.defaultNetworkCardIndex.
	DefaultCard int
	// CardENIs lists maximumNetworkInterfaces per network card index; empty
	// means one card with MaxENIs.
	CardENIs []int
	// NVIDIAGPUs and NeuronDevices are gpuInfo's and neuronInfo's counts.
	NVIDIAGPUs, NeuronDevices int
}

// EC2 is a local EC2 Query-protocol server for DescribeInstances and
// DescribeInstanceTypes.
type EC2 struct {
	Behavior
	// URL is the endpoint, for AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_EC2.
	URL string

	mu        sync.Mutex
	instances map[string]*Instance
	nameCalls map[string]int
	types     map[string]InstanceType
	requests  []url.Values
	templates map[string]*launchTemplate
	tokens    map[string]tokenUse // CreateLaunchTemplateVersion ClientToken → result
	groups    map[string]SecurityGroup
}

// NewEC2 starts an EC2 server that lives until the test ends.
func NewEC2(t testing.TB) *EC2 {
	s := &EC2{
		instances: map[string]*Instance{},
		nameCalls: map[string]int{},
		types:     map[string]InstanceType{},
		templates: map[string]*launchTemplate{},
		tokens:    map[string]tokenUse{},
	}
	s.URL = startLoopback(t, http.HandlerFunc(s.serve)).URL
	return s
}

// AddInstance makes an instance known (replacing one with the same ID).
func (s *EC2) AddInstance(in Instance) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.instances[in.ID] = &in
}

// AddInstanceType makes an instance type known.
func (s *EC2) AddInstanceType(it InstanceType) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.types[it.Name] = it
}

// Requests returns the decoded form of every request received, in order.
func (s *EC2) Requests() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]url.Values(nil), s.requests...)
}

func (s *EC2) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeEC2Error(w, Fault{Status: http.StatusBadRequest, Code: "InvalidAction", Message: "EC2 Query requests are POSTs"})
		return
	}
	if err := r.ParseForm(); err != nil {
		writeEC2Error(w, Fault{Status: http.StatusBadRequest, Code: "MalformedQueryString", Message: err.Error()})
		return
	}
	form := r.PostForm
	s.mu.Lock()
	s.requests = append(s.requests, form)
	s.mu.Unlock()
	action := form.Get("Action")
	if fault, ok := s.begin(r.Context(), action); ok {
		writeEC2Error(w, fault)
		return
	}
	w = s.body(r, action, w)
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		writeEC2Error(w, Fault{Status: http.StatusUnauthorized, Code: "AuthFailure", Message: "request is not signed"})
		return
	}
	if v := form.Get("Version"); v != "2016-11-15" {
		writeEC2Error(w, Fault{Status: http.StatusBadRequest, Code: "InvalidParameterValue", Message: "unsupported Version " + v})
		return
	}
	switch action {
	case ActionDescribeInstances:
		s.describeInstances(w, form)
	case ActionDescribeInstanceTypes:
		s.describeInstanceTypes(w, indexed(form, "InstanceType"))
	case ActionCreateLaunchTemplateVersion:
		s.createLaunchTemplateVersion(w, form)
	case ActionDescribeLaunchTemplateVersions:
		s.describeLaunchTemplateVersions(w, form)
	case ActionDescribeSecurityGroups:
		s.describeSecurityGroups(w, form)
	default:
		writeEC2Error(w, Fault{Status: http.StatusBadRequest, Code: "InvalidAction", Message: "The action " + action + " is not valid for this web service."})
	}
}

// indexed returns the values of a Query list parameter (Name.1, Name.2, …) in
// index order.
func indexed(form url.Values, name string) []string {
	var out []string
	for i := 1; ; i++ {
		v, ok := form[fmt.Sprintf("%s.%d", name, i)]
		if !ok {
			return out
		}
		out = append(out, v...)
	}
}

func (s *EC2) describeInstances(w http.ResponseWriter, form url.Values) {
	ids := indexed(form, "InstanceId")
	filters, invalid := instanceFilters(form)
	if invalid != "" {
		writeEC2Error(w, Fault{Status: http.StatusBadRequest, Code: "InvalidParameterValue", Message: "The filter '" + invalid + "' is invalid"})
		return
	}
	s.mu.Lock()
	resp := describeInstancesResponse{RequestID: requestID()}
	var missing []string
	if len(ids) == 0 {
		for id := range s.instances {
			ids = append(ids, id)
		}
		sort.Strings(ids)
	}
	for _, id := range ids {
		in, ok := s.instances[id]
		if !ok {
			missing = append(missing, id)
			continue
		}
		if !filters.match(in, s.nextName(in)) {
			continue
		}
		resp.Reservations = append(resp.Reservations, xmlReservation{
			ID:        "r-" + strings.TrimPrefix(id, "i-"),
			OwnerID:   in.OwnerID,
			Instances: []xmlInstance{xmlInstanceOf(in, s.visibleName(in))},
		})
	}
	s.mu.Unlock()
	if len(missing) > 0 {
		writeEC2Error(w, Fault{Status: http.StatusBadRequest, Code: "InvalidInstanceID.NotFound",
			Message: fmt.Sprintf("The instance IDs '%s' do not exist", strings.Join(missing, ", "))})
		return
	}
	writeXML(w, resp)
}

// visibleName applies EmptyNameCalls and counts the call; s.mu is held.
func (s *EC2) visibleName(in *Instance) string {
	name := s.nextName(in)
	s.nameCalls[in.ID]++
	return name
}

// nextName is the name the next call shows, without counting it; s.mu is
// held.
func (s *EC2) nextName(in *Instance) string {
	if in.EmptyNameCalls < 0 || s.nameCalls[in.ID] < in.EmptyNameCalls {
		return ""
	}
	return in.PrivateDNSName
}

func (s *EC2) describeInstanceTypes(w http.ResponseWriter, names []string) {
	s.mu.Lock()
	resp := describeInstanceTypesResponse{RequestID: requestID()}
	var invalid []string
	for _, n := range names {
		it, ok := s.types[n]
		if !ok {
			invalid = append(invalid, n)
			continue
		}
		resp.Types = append(resp.Types, xmlInstanceTypeOf(it))
	}
	s.mu.Unlock()
	if len(invalid) > 0 {
		writeEC2Error(w, Fault{Status: http.StatusBadRequest, Code: "InvalidInstanceType",
			Message: fmt.Sprintf("The following supplied instance types do not exist: [%s]", strings.Join(invalid, ", "))})
		return
	}
	writeXML(w, resp)
}

func xmlInstanceTypeOf(it InstanceType) xmlInstanceType {
	cards := it.CardENIs
	if len(cards) == 0 {
		cards = []int{it.MaxENIs}
	}
	x := xmlInstanceType{
		Name:       it.Name,
		Hypervisor: it.Hypervisor,
		VCPU:       xmlVCPU{Default: it.VCPUs},
		Network: xmlNetwork{
			MaxENIs:     it.MaxENIs,
			IPv4PerENI:  it.IPv4PerENI,
			DefaultCard: it.DefaultCard,
			MaxCards:    len(cards),
		},
	}
	for i, n := range cards {
		x.Network.Cards = append(x.Network.Cards, xmlCard{Index: i, MaxENIs: n})
	}
	if it.NVIDIAGPUs > 0 {
		x.GPU = &xmlGPUInfo{GPUs: []xmlAccelerator{{Name: "T4", Manufacturer: "NVIDIA", Count: it.NVIDIAGPUs}}}
	}
	if it.NeuronDevices > 0 {
		x.Neuron = &xmlNeuronInfo{Devices: []xmlAccelerator{{Name: "Inferentia2", Count: it.NeuronDevices}}}
	}
	return x
}

type xmlGPUInfo struct {
	GPUs []xmlAccelerator `xml:"gpus>item"`
}

type xmlNeuronInfo struct {
	Devices []xmlAccelerator `xml:"neuronDevices>item"`
}

type xmlAccelerator struct {
	Name         string `xml:"name"`
	Manufacturer string `xml:"manufacturer,omitempty"`
	Count        int    `xml:"count"`
}

type describeInstancesResponse struct {
	XMLName      xml.Name         `xml:"http://ec2.amazonaws.com/doc/2016-11-15/ DescribeInstancesResponse"`
	RequestID    string           `xml:"requestId"`
	Reservations []xmlReservation `xml:"reservationSet>item"`
}

type xmlReservation struct {
	ID        string        `xml:"reservationId"`
	OwnerID   string        `xml:"ownerId,omitempty"`
	Instances []xmlInstance `xml:"instancesSet>item"`
}

// setInstanceState changes a known instance's state.
func (s *EC2) setInstanceState(id, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in, ok := s.instances[id]; ok {
		in.State = state
	}
}

type describeInstanceTypesResponse struct {
	XMLName   xml.Name          `xml:"http://ec2.amazonaws.com/doc/2016-11-15/ DescribeInstanceTypesResponse"`
	RequestID string            `xml:"requestId"`
	Types     []xmlInstanceType `xml:"instanceTypeSet>item"`
}

type xmlInstanceType struct {
	Name       string         `xml:"instanceType"`
	Hypervisor string         `xml:"hypervisor,omitempty"`
	VCPU       xmlVCPU        `xml:"vCpuInfo"`
	Network    xmlNetwork     `xml:"networkInfo"`
	GPU        *xmlGPUInfo    `xml:"gpuInfo,omitempty"`
	Neuron     *xmlNeuronInfo `xml:"neuronInfo,omitempty"`
}

type xmlVCPU struct {
	Default int `xml:"defaultVCpus"`
}

type xmlNetwork struct {
	MaxENIs     int       `xml:"maximumNetworkInterfaces"`
	IPv4PerENI  int       `xml:"ipv4AddressesPerInterface"`
	DefaultCard int       `xml:"defaultNetworkCardIndex"`
	MaxCards    int       `xml:"maximumNetworkCards"`
	Cards       []xmlCard `xml:"networkCards>item"`
}

type xmlCard struct {
	Index   int `xml:"networkCardIndex"`
	MaxENIs int `xml:"maximumNetworkInterfaces"`
}

type ec2ErrorResponse struct {
	XMLName   xml.Name      `xml:"Response"`
	Errors    []ec2ErrorXML `xml:"Errors>Error"`
	RequestID string        `xml:"RequestID"`
}

type ec2ErrorXML struct {
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

func writeEC2Error(w http.ResponseWriter, f Fault) {
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.WriteHeader(f.Status)
	body, _ := xml.Marshal(ec2ErrorResponse{Errors: []ec2ErrorXML{{Code: f.Code, Message: f.Message}}, RequestID: requestID()})
	w.Write(append([]byte(xml.Header), body...))
}

func writeXML(w http.ResponseWriter, v any) {
	body, err := xml.Marshal(v)
	if err != nil {
		writeEC2Error(w, Fault{Status: http.StatusInternalServerError, Code: "InternalError", Message: err.Error()})
		return
	}
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.Write(append([]byte(xml.Header), body...))
}

// requestID returns a fixed-format request ID; uniqueness does not matter here.
func requestID() string { return "00000000-0000-4000-8000-000000000000" }

// Handler serves the EC2 API (for a TLS front such as Hosts).
func (s *EC2) Handler() http.Handler { return http.HandlerFunc(s.serve) }
