package awsauth

import (
	"fmt"
	"slices"
	"strings"

	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"
)

// partitions are the partitions the authenticator accepts in an ARN (the
// aws-sdk-go v1.55 endpoint table it is built with).
var partitions = []string{"aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-iso-b", "aws-iso-e", "aws-iso-f"}

// PrincipalKind is the kind of IAM identity an ARN names.
type PrincipalKind int

// Kinds of principal, as the authenticator tells them apart.
const (
	KindUnknown PrincipalKind = iota
	KindRole
	KindUser
	KindRoot
	KindFederatedUser
	KindAssumedRole
)

// Canonical returns the ARN the authenticator looks mappings up by: an
// assumed-role session (arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION) becomes
// the role's ARN without any path (arn:aws:iam::ACCOUNT:role/ROLE); an IAM
// role, user or root ARN is kept as it is.
func Canonical(arn string) (PrincipalKind, string, error) {
	a, err := parse(arn)
	if err != nil {
		return KindUnknown, "", err
	}
	parts := strings.Split(a.Resource, "/")
	switch a.Service + ":" + parts[0] {
	case "sts:federated-user":
		return KindFederatedUser, arn, nil
	case "sts:assumed-role":
		if len(parts) < 3 {
			return KindUnknown, "", fmt.Errorf("assumed-role ARN %q has no role", arn)
		}
		return KindAssumedRole, fmt.Sprintf("arn:%s:iam::%s:role/%s", a.Partition, a.AccountID, strings.Join(parts[1:len(parts)-1], "/")), nil
	case "iam:role":
		return KindRole, arn, nil
	case "iam:user":
		return KindUser, arn, nil
	case "iam:root":
		return KindRoot, arn, nil
	}
	return KindUnknown, "", fmt.Errorf("ARN %q is not an IAM identity (service %s, resource %s)", arn, a.Service, parts[0])
}

func parse(arn string) (awsarn.ARN, error) {
	a, err := awsarn.Parse(arn)
	if err != nil {
		return awsarn.ARN{}, fmt.Errorf("ARN %q is invalid: %w", arn, err)
	}
	if !slices.Contains(partitions, a.Partition) {
		return awsarn.ARN{}, fmt.Errorf("ARN %q has no recognized partition", arn)
	}
	return a, nil
}

// RoleARN is an IAM role's ARN taken apart.
type RoleARN struct {
	Partition, Account string
	// Path is "/" or "/a/b/"; Name is the role's name.
	Path, Name string
}

// ParseRoleARN parses arn:PARTITION:iam::ACCOUNT:role[/PATH]/NAME.
func ParseRoleARN(arn string) (RoleARN, error) {
	a, err := parse(arn)
	if err != nil {
		return RoleARN{}, err
	}
	parts := strings.Split(a.Resource, "/")
	if a.Service != "iam" || parts[0] != "role" || len(parts) < 2 || parts[len(parts)-1] == "" {
		return RoleARN{}, fmt.Errorf("%q is not an IAM role ARN (arn:aws:iam::ACCOUNT:role/NAME)", arn)
	}
	path := "/"
	if len(parts) > 2 {
		path = "/" + strings.Join(parts[1:len(parts)-1], "/") + "/"
	}
	return RoleARN{Partition: a.Partition, Account: a.AccountID, Path: path, Name: parts[len(parts)-1]}, nil
}

// String is the full ARN, path included.
func (r RoleARN) String() string {
	return fmt.Sprintf("arn:%s:iam::%s:role%s%s", r.Partition, r.Account, r.Path, r.Name)
}

// Mapped is the ARN a mapping must name for the authenticator to match the
// role's sessions: without the path, which STS leaves out of assumed-role
// ARNs.
func (r RoleARN) Mapped() string {
	return fmt.Sprintf("arn:%s:iam::%s:role/%s", r.Partition, r.Account, r.Name)
}

// RoleFromInstanceProfile returns the role of an instance profile, whose ARN
// IMDS serves in iam/info and whose role name it serves in
// iam/security-credentials/: same partition and account, path unknown (and
// irrelevant to a mapping).
func RoleFromInstanceProfile(profileARN, roleName string) (RoleARN, error) {
	a, err := parse(profileARN)
	if err != nil {
		return RoleARN{}, err
	}
	if a.Service != "iam" || !strings.HasPrefix(a.Resource, "instance-profile/") {
		return RoleARN{}, fmt.Errorf("%q is not an instance profile ARN", profileARN)
	}
	if roleName == "" || strings.Contains(roleName, "/") {
		return RoleARN{}, fmt.Errorf("invalid role name %q", roleName)
	}
	return RoleARN{Partition: a.Partition, Account: a.AccountID, Path: "/", Name: roleName}, nil
}

// IsInstanceProfileARN reports whether arn names an instance profile, a
// common mistake in a mapping's rolearn.
func IsInstanceProfileARN(arn string) bool {
	a, err := awsarn.Parse(arn)
	return err == nil && a.Service == "iam" && strings.HasPrefix(a.Resource, "instance-profile/")
}
