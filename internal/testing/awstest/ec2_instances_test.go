package awstest

import (
	"net/url"
	"strings"
	"testing"
)

func TestEC2DescribeInstancesAddressesAndFilters(t *testing.T) {
	s := NewEC2(t)
	s.AddInstance(Instance{
		ID: "i-1", InstanceType: "m5.large", PrivateDNSName: "ip-10-0-0-1.ec2.internal", AvailabilityZone: "us-west-2a",
		Interfaces: []NetworkInterface{
			{PrivateIPs: []string{"10.0.0.1", "10.0.0.11"}, IPv6s: []string{"2600:1f14::1"}},
			{Status: "attaching", PrivateIPs: []string{"10.0.1.5"}},
		},
		PublicIP: "54.1.2.3", PublicDNSName: "ec2-54-1-2-3.us-west-2.compute.amazonaws.com",
	})
	s.AddInstance(Instance{ID: "i-2", PrivateDNSName: "ip-10-0-0-2.ec2.internal", State: "terminated"})
	s.AddInstance(Instance{
		ID: "i-3", PrivateDNSName: "i-3.us-west-2.compute.internal", HostnameType: "resource-name", PrimaryIPv6: true,
		Interfaces: []NetworkInterface{
			{Slot: &Slot{Device: 1}, PrivateIPs: []string{"10.0.1.3"}},
			{Slot: &Slot{Card: 1}, PrivateIPs: []string{"10.0.2.3"}},
			{Slot: &Slot{}, PrivateIPs: []string{"10.0.0.3", "10.0.0.33"}, IPv6s: []string{"2600:1f14::3"},
				PublicIPs: map[string]string{"10.0.0.33": "52.9.9.9"}, IPv4Prefixes: []string{"10.0.4.16/28"}, IPv6Prefixes: []string{"2600:1f14:0:0:1::/80"}},
		},
	})
	describe := func(extra url.Values) url.Values {
		form := url.Values{"Action": {"DescribeInstances"}, "Version": {"2016-11-15"}}
		for k, v := range extra {
			form[k] = v
		}
		return form
	}
	tests := []struct {
		name       string
		form       url.Values
		wantStatus int
		want, not  []string
	}{
		{
			name: "addresses, placement and state", form: describe(url.Values{"InstanceId.1": {"i-1"}}), wantStatus: 200,
			want: []string{
				"<instanceState><code>16</code><name>running</name></instanceState>",
				"<dnsName>ec2-54-1-2-3.us-west-2.compute.amazonaws.com</dnsName>",
				"<placement><availabilityZone>us-west-2a</availabilityZone></placement>",
				"<privateIpAddress>10.0.0.1</privateIpAddress><ipAddress>54.1.2.3</ipAddress><ipv6Address>2600:1f14::1</ipv6Address>",
				"<networkInterfaceId>eni-i-1-0</networkInterfaceId><status>in-use</status><attachment><deviceIndex>0</deviceIndex>",
				"<privateIpAddressesSet><item><privateIpAddress>10.0.0.1</privateIpAddress><privateDnsName>ip-10-0-0-1.ec2.internal</privateDnsName>" +
					"<primary>true</primary><association><publicIp>54.1.2.3</publicIp>" +
					"<publicDnsName>ec2-54-1-2-3.us-west-2.compute.amazonaws.com</publicDnsName><ipOwnerId>amazon</ipOwnerId></association></item>" +
					"<item><privateIpAddress>10.0.0.11</privateIpAddress><privateDnsName>ip-10-0-0-11.ec2.internal</privateDnsName>" +
					"<primary>false</primary></item></privateIpAddressesSet>",
				"<ipv6AddressesSet><item><ipv6Address>2600:1f14::1</ipv6Address><isPrimaryIpv6>false</isPrimaryIpv6></item></ipv6AddressesSet>",
				"<status>attaching</status><attachment><deviceIndex>1</deviceIndex><status>attached</status><networkCardIndex>0</networkCardIndex>",
				"<privateDnsNameOptions><hostnameType>ip-name</hostnameType>",
			},
		},
		{
			name: "primary interface listed last, a second network card, prefixes and an Elastic IP on a secondary address",
			form: describe(url.Values{"InstanceId.1": {"i-3"}}), wantStatus: 200,
			want: []string{
				"<privateDnsName>i-3.us-west-2.compute.internal</privateDnsName>",
				"<privateIpAddress>10.0.0.3</privateIpAddress><ipv6Address>2600:1f14::3</ipv6Address>",
				"<attachment><deviceIndex>0</deviceIndex><status>attached</status><networkCardIndex>1</networkCardIndex></attachment>",
				"<privateIpAddress>10.0.0.33</privateIpAddress><privateDnsName>ip-10-0-0-33.us-west-2.compute.internal</privateDnsName>" +
					"<primary>false</primary><association><publicIp>52.9.9.9</publicIp><ipOwnerId>amazon</ipOwnerId></association>",
				"<ipv4PrefixSet><item><ipv4Prefix>10.0.4.16/28</ipv4Prefix></item></ipv4PrefixSet>",
				"<ipv6PrefixSet><item><ipv6Prefix>2600:1f14:0:0:1::/80</ipv6Prefix></item></ipv6PrefixSet>",
				"<ipv6AddressesSet><item><ipv6Address>2600:1f14::3</ipv6Address><isPrimaryIpv6>true</isPrimaryIpv6></item></ipv6AddressesSet>",
				"<privateDnsNameOptions><hostnameType>resource-name</hostnameType><enableResourceNameDnsARecord>true</enableResourceNameDnsARecord>" +
					"<enableResourceNameDnsAAAARecord>true</enableResourceNameDnsAAAARecord></privateDnsNameOptions>",
			},
			not: []string{"<ipAddress>", "<dnsName>ec2"},
		},
		{
			name: "filter by private DNS name", wantStatus: 200,
			form: describe(url.Values{"Filter.1.Name": {"private-dns-name"}, "Filter.1.Value.1": {"ip-10-0-0-2.ec2.internal"}}),
			want: []string{"<instanceId>i-2</instanceId>", "<name>terminated</name>"}, not: []string{"i-1"},
		},
		{
			name: "filters combine", wantStatus: 200,
			form: describe(url.Values{
				"Filter.1.Name": {"private-dns-name"}, "Filter.1.Value.1": {"ip-10-0-0-1.ec2.internal"}, "Filter.1.Value.2": {"ip-10-0-0-2.ec2.internal"},
				"Filter.2.Name": {"instance-state-name"}, "Filter.2.Value.1": {"running"},
			}),
			want: []string{"<instanceId>i-1</instanceId>"}, not: []string{"i-2"},
		},
		{
			name: "no match is an empty answer", wantStatus: 200,
			form: describe(url.Values{"Filter.1.Name": {"private-dns-name"}, "Filter.1.Value.1": {"ip-10-9-9-9.ec2.internal"}}),
			want: []string{"<reservationSet></reservationSet>"},
		},
		{
			name: "unknown filter", wantStatus: 400,
			form: describe(url.Values{"Filter.1.Name": {"tag:Name"}, "Filter.1.Value.1": {"x"}}),
			want: []string{"<Code>InvalidParameterValue</Code><Message>The filter &#39;tag:Name&#39; is invalid</Message>"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := do(t, ec2Request(t, s, tc.form, true))
			if status != tc.wantStatus {
				t.Errorf("status = %d, want %d; body %s", status, tc.wantStatus, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("body %s\nlacks %s", body, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(body, n) {
					t.Errorf("body %s\nholds %s", body, n)
				}
			}
		})
	}
}

func TestEC2NameFilterSeesOnlyAVisibleName(t *testing.T) {
	s := NewEC2(t)
	s.AddInstance(Instance{ID: "i-1", PrivateDNSName: "ip-10-0-0-1.ec2.internal", EmptyNameCalls: 1})
	byName := url.Values{"Action": {"DescribeInstances"}, "Version": {"2016-11-15"},
		"Filter.1.Name": {"private-dns-name"}, "Filter.1.Value.1": {"ip-10-0-0-1.ec2.internal"}}
	byID := url.Values{"Action": {"DescribeInstances"}, "Version": {"2016-11-15"}, "InstanceId.1": {"i-1"}}

	if _, _, body := do(t, ec2Request(t, s, byName, true)); strings.Contains(body, "i-1") {
		t.Fatalf("name filter matched before the name is visible: %s", body)
	}
	if _, _, body := do(t, ec2Request(t, s, byID, true)); !strings.Contains(body, "<privateDnsName></privateDnsName>") {
		t.Fatalf("first call by ID shows a name: %s", body)
	}
	if _, _, body := do(t, ec2Request(t, s, byName, true)); !strings.Contains(body, "<instanceId>i-1</instanceId>") {
		t.Fatalf("name filter does not match once the name is visible: %s", body)
	}
}
