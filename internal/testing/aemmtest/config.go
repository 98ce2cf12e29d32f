package aemmtest

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// macPathKeys are the AEMM metadata keys whose paths contain the MAC, with
// the leaf each one serves. AEMM takes these paths from its "paths" section;
// changing only the "mac" value would leave them at AEMM's default MAC.
var macPathKeys = map[string]string{
	"mac-device-number":                "device-number",
	"mac-ipv4-associations":            "ipv4-associations/192.0.2.54",
	"mac-ipv6-associations":            "ipv6s",
	"mac-local-hostname":               "local-hostname",
	"mac-local-ipv4s":                  "local-ipv4s",
	"mac-mac":                          "mac",
	"mac-network-interface-id":         "interface-id",
	"mac-network-interface-card-index": "network-card", // real IMDS path (AEMM defaults to network-card-index)
	"mac-owner-id":                     "owner-id",
	"mac-public-hostname":              "public-hostname",
	"mac-public-ipv4s":                 "public-ipv4s",
	"mac-security-group-ids":           "security-group-ids",
	"mac-security-groups":              "security-groups",
	"mac-subnet-id":                    "subnet-id",
	"mac-subnet-ipv4-cidr-block":       "subnet-ipv4-cidr-block",
	"mac-subnet-ipv6-cidr-blocks":      "subnet-ipv6-cidr-blocks",
	"mac-vpc-id":                       "vpc-id",
	"mac-vpc-ipv4-cidr-block":          "vpc-ipv4-cidr-block",
	"mac-vpc-ipv4-cidr-blocks":         "vpc-ipv4-cidr-blocks",
	"mac-vpc-ipv6-cidr-blocks":         "vpc-ipv6-cidr-blocks",
}

// ConfigJSON renders the AEMM v1.12.0 config file for c: metadata values and
// MAC-specific paths, the identity document (a separate dynamic value that
// AEMM does not derive from the metadata), and the user data in base64 (AEMM
// decodes it before serving). A path set to "" is not served (404).
func ConfigJSON(c Config) ([]byte, error) {
	c = c.withDefaults()
	macBase := "/latest/meta-data/network/interfaces/macs/" + c.MAC + "/"
	paths := map[string]string{}
	for key, leaf := range macPathKeys {
		paths[key] = macBase + leaf
	}
	values := map[string]any{
		"instance-id":                 c.InstanceID,
		"instance-type":               c.InstanceType,
		"local-ipv4":                  c.LocalIPv4,
		"local-hostname":              c.Hostname,
		"hostname":                    c.Hostname,
		"mac":                         c.MAC,
		"mac-mac":                     c.MAC,
		"mac-local-hostname":          c.Hostname,
		"mac-local-ipv4s":             c.LocalIPv4,
		"placement-availability-zone": c.AZ,
		"placement-region":            c.Region,
		"mac-ipv6-associations":       strings.Join(c.IPv6s, "\n"),
		"mac-vpc-ipv4-cidr-blocks":    strings.Join(c.VPCCIDRs, "\n"),
	}
	if len(c.IPv6s) == 0 {
		paths["mac-ipv6-associations"] = ""
	}
	if len(c.VPCCIDRs) == 0 {
		paths["mac-vpc-ipv4-cidr-blocks"] = ""
	} else {
		values["mac-vpc-ipv4-cidr-block"] = c.VPCCIDRs[0]
	}
	userdata := map[string]any{
		"values": map[string]string{"userdata": base64.StdEncoding.EncodeToString(c.UserData)},
	}
	if c.UserData == nil {
		userdata["paths"] = map[string]string{"userdata": ""}
	}
	if c.IAM != nil {
		addIAM(paths, values, *c.IAM)
	}
	doc := map[string]any{
		"accountId":        "111122223333",
		"architecture":     "x86_64",
		"availabilityZone": c.AZ,
		"imageId":          "ami-0123456789abcdef0",
		"instanceId":       c.InstanceID,
		"instanceType":     c.InstanceType,
		"pendingTime":      "2026-01-01T00:00:00Z",
		"privateIp":        c.LocalIPv4,
		"region":           c.Region,
		"version":          "2017-09-30",
	}
	return json.MarshalIndent(map[string]any{
		"metadata": map[string]any{"paths": paths, "values": values},
		"dynamic":  map[string]any{"values": map[string]any{"instance-identity-document": doc}},
		"userdata": userdata,
	}, "", "  ")
}

// addIAM serves role's instance profile and credentials.
func addIAM(paths map[string]string, values map[string]any, role IAMRole) {
	paths["iam-security-credentials"] = "/latest/meta-data/iam/security-credentials/" + role.RoleName
	values["iam-security-credentials-role"] = role.RoleName
	values["iam-info"] = map[string]string{
		"Code": "Success", "LastUpdated": time.Now().UTC().Format(time.RFC3339),
		"InstanceProfileArn": role.InstanceProfileARN, "InstanceProfileId": role.InstanceProfileID,
	}
	values["iam-security-credentials"] = map[string]string{
		"Code": "Success", "LastUpdated": time.Now().UTC().Format(time.RFC3339), "Type": "AWS-HMAC",
		"AccessKeyId": role.AccessKeyID, "SecretAccessKey": role.SecretAccessKey, "Token": role.Token,
		"Expiration": role.Expiration.UTC().Format(time.RFC3339),
	}
}
