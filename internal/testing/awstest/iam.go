package awstest

import (
	"encoding/xml"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// ActionGetInstanceProfile is the IAM action the IAM server answers.
const ActionGetInstanceProfile = "GetInstanceProfile"

// IAMNamespace is the XML namespace of IAM Query API responses.
const IAMNamespace = "https://iam.amazonaws.com/doc/2010-05-08/"

// InstanceProfile is an IAM instance profile the IAM server knows.
type InstanceProfile struct {
	Name string
	// Path defaults to "/".
	Path    string
	Account string
	// RoleARNs are its roles' ARNs (an instance profile holds at most one).
	RoleARNs []string
}

// ARN is the profile's ARN.
func (p InstanceProfile) ARN() string {
	return "arn:aws:iam::" + p.Account + ":instance-profile" + p.path() + p.Name
}

func (p InstanceProfile) path() string {
	if p.Path == "" {
		return "/"
	}
	return p.Path
}

// IAM is a local IAM Query-protocol server for GetInstanceProfile.
type IAM struct {
	Behavior
	// URL is the endpoint, for AWS_ENDPOINT_URL_IAM.
	URL string

	mu       sync.Mutex
	profiles map[string]InstanceProfile
}

// NewIAM starts an IAM server that lives until the test ends.
func NewIAM(t testing.TB) *IAM {
	s := &IAM{profiles: map[string]InstanceProfile{}}
	s.URL = startLoopback(t, http.HandlerFunc(s.serve)).URL
	return s
}

// AddInstanceProfile makes a profile known by its name.
func (s *IAM) AddInstanceProfile(p InstanceProfile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.profiles[p.Name] = p
}

func (s *IAM) serve(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Method != http.MethodPost {
		writeQueryError(w, Fault{Status: http.StatusBadRequest, Code: "MalformedQueryString", Message: "IAM Query requests are form POSTs"})
		return
	}
	form := r.PostForm
	action := form.Get("Action")
	if fault, failed := s.begin(r.Context(), action); failed {
		writeQueryError(w, fault)
		return
	}
	w = s.body(r, action, w)
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		writeQueryError(w, Fault{Status: http.StatusForbidden, Code: "MissingAuthenticationToken", Message: "Request is missing Authentication Token"})
		return
	}
	if action != ActionGetInstanceProfile || form.Get("Version") != "2010-05-08" {
		writeQueryError(w, Fault{Status: http.StatusBadRequest, Code: "InvalidAction", Message: "Could not find operation " + action})
		return
	}
	name := form.Get("InstanceProfileName")
	s.mu.Lock()
	p, ok := s.profiles[name]
	s.mu.Unlock()
	if !ok {
		writeQueryError(w, Fault{Status: http.StatusNotFound, Code: "NoSuchEntity", Message: "Instance Profile " + name + " cannot be found."})
		return
	}
	writeQueryXML(w, getInstanceProfileResponse{Profile: xmlInstanceProfileOf(p), RequestID: requestID()})
}

type getInstanceProfileResponse struct {
	XMLName   xml.Name           `xml:"https://iam.amazonaws.com/doc/2010-05-08/ GetInstanceProfileResponse"`
	Profile   xmlInstanceProfile `xml:"GetInstanceProfileResult>InstanceProfile"`
	RequestID string             `xml:"ResponseMetadata>RequestId"`
}

type xmlInstanceProfile struct {
	Name    string    `xml:"InstanceProfileName"`
	ID      string    `xml:"InstanceProfileId"`
	ARN     string    `xml:"Arn"`
	Path    string    `xml:"Path"`
	Created string    `xml:"CreateDate"`
	Roles   []xmlRole `xml:"Roles>member"`
}

type xmlRole struct {
	Name    string `xml:"RoleName"`
	ID      string `xml:"RoleId"`
	ARN     string `xml:"Arn"`
	Path    string `xml:"Path"`
	Created string `xml:"CreateDate"`
}

func xmlInstanceProfileOf(p InstanceProfile) xmlInstanceProfile {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	x := xmlInstanceProfile{Name: p.Name, ID: "AIPA" + strings.ToUpper(p.Name), ARN: p.ARN(), Path: p.path(), Created: created}
	for _, arn := range p.RoleARNs {
		rest := arn[strings.Index(arn, ":role/")+len(":role"):]
		i := strings.LastIndex(rest, "/")
		x.Roles = append(x.Roles, xmlRole{Name: rest[i+1:], ID: "AROA" + strings.ToUpper(rest[i+1:]), ARN: arn, Path: rest[:i+1], Created: created})
	}
	return x
}
