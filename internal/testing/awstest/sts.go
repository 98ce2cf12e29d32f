package awstest

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// ActionGetCallerIdentity is the STS action the STS server answers: the call
// an EKS token is a presigned URL of.
const ActionGetCallerIdentity = "GetCallerIdentity"

// STSNamespace is the XML namespace of STS Query API responses.
const STSNamespace = "https://sts.amazonaws.com/doc/2011-06-15/"

// stsTokenLifetime is how long STS accepts a presigned GetCallerIdentity URL
// after its X-Amz-Date, whatever its X-Amz-Expires says (the behaviour the
// EKS authenticator documents in pkg/token).
const stsTokenLifetime = 15 * time.Minute

// Principal is an AWS identity whose keys the STS server knows.
type Principal struct {
	AccessKeyID, SecretAccessKey string
	// SessionToken is required on every request when set (temporary
	// credentials, such as an instance role's).
	SessionToken string
	// ARN is what GetCallerIdentity answers, e.g.
	// arn:aws:sts::111122223333:assumed-role/ROLE/i-0123456789abcdef0.
	ARN string
	// UserID is the unique ID: "AROA…:SESSION" for an assumed role.
	UserID  string
	Account string
}

// AssumedRole returns a principal for a session of role (its name, without
// path) in account, with fresh random temporary credentials, as EC2 hands
// an instance role to the instance (the session name is the instance ID).
func AssumedRole(account, role, session string) Principal {
	return Principal{
		AccessKeyID:     "ASIA" + randomUpper(16),
		SecretAccessKey: randomHex(20),
		SessionToken:    "IQoJb3JpZ2luX2VjE" + randomHex(32),
		ARN:             fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/%s", account, role, session),
		UserID:          "AROA" + randomUpper(17) + ":" + session,
		Account:         account,
	}
}

// STS is a local STS Query server for GetCallerIdentity. Like STS it checks
// every request's Signature Version 4 signature (in the Authorization header
// or in a presigned URL's query) against the secret of the access key, the
// credential scope's region and service, the session token and the signing
// time, and answers with the principal the key belongs to, as XML or, when
// the client accepts it, JSON.
type STS struct {
	Behavior
	// URL is the plain-HTTP endpoint; Handler serves the same behind TLS.
	URL string
	// Region is the region the server signs for (sts.REGION.amazonaws.com).
	Region string

	mu   sync.Mutex
	keys map[string]Principal
	// verified counts the requests each access key signed that passed.
	verified map[string]int
	// now is the clock; tests of expiry replace it.
	now func() time.Time
}

// NewSTS starts an STS server for region that lives until the test ends.
func NewSTS(t testing.TB, region string) *STS {
	s := &STS{Region: region, keys: map[string]Principal{}, verified: map[string]int{}, now: time.Now}
	s.URL = startLoopback(t, s.Handler()).URL
	return s
}

// Handler serves the STS API (for a TLS front such as Hosts).
func (s *STS) Handler() http.Handler { return http.HandlerFunc(s.serve) }

// AddPrincipal makes an access key known.
func (s *STS) AddPrincipal(p Principal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[p.AccessKeyID] = p
}

func (s *STS) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeSTSError(w, r, stsFault(http.StatusBadRequest, "MalformedInput", err.Error()))
		return
	}
	params, err := stsParams(r, body)
	if err != nil {
		writeSTSError(w, r, stsFault(http.StatusBadRequest, "MalformedQueryString", err.Error()))
		return
	}
	action := params.Get("Action")
	if fault, failed := s.begin(r.Context(), action); failed {
		writeSTSError(w, r, fault)
		return
	}
	w = s.body(r, action, w)
	p, fault := s.authenticate(r, body)
	if fault != nil {
		writeSTSError(w, r, *fault)
		return
	}
	if action != ActionGetCallerIdentity || params.Get("Version") != "2011-06-15" {
		writeSTSError(w, r, stsFault(http.StatusBadRequest, "InvalidAction", "Could not find operation "+action+" for version "+params.Get("Version")))
		return
	}
	s.mu.Lock()
	s.verified[p.AccessKeyID]++
	s.mu.Unlock()
	writeCallerIdentity(w, r, p)
}

// CallsBy returns how many GetCallerIdentity calls signed with the access
// key were answered.
func (s *STS) CallsBy(accessKeyID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.verified[accessKeyID]
}

// stsParams returns the Query parameters: the URL's query, plus the form
// body of a POST.
func stsParams(r *http.Request, body []byte) (url.Values, error) {
	params, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, err
	}
	if r.Method == http.MethodPost {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, err
		}
		for k, vs := range form {
			params[k] = append(params[k], vs...)
		}
	}
	return params, nil
}

func stsFault(status int, code, msg string) Fault {
	return Fault{Status: status, Code: code, Message: msg}
}

// authenticate checks the request's signature and returns its principal.
func (s *STS) authenticate(r *http.Request, body []byte) (Principal, *Fault) {
	sig, err := parseSigV4(r)
	if err != nil {
		f := stsFault(http.StatusForbidden, "IncompleteSignature", err.Error())
		return Principal{}, &f
	}
	s.mu.Lock()
	p, known := s.keys[sig.accessKeyID]
	now := s.now()
	s.mu.Unlock()
	switch {
	case !known:
		return Principal{}, faultOf(http.StatusForbidden, "InvalidClientTokenId", "The security token included in the request is invalid.")
	case sig.region != s.Region || sig.service != "sts":
		return Principal{}, faultOf(http.StatusForbidden, "SignatureDoesNotMatch",
			fmt.Sprintf("Credential should be scoped to a valid region and service 'sts', not '%s' '%s'.", sig.region, sig.service))
	case p.SessionToken != "" && sig.sessionToken != p.SessionToken:
		return Principal{}, faultOf(http.StatusForbidden, "InvalidClientTokenId", "The security token included in the request is invalid.")
	}
	if f := sig.checkTime(now); f != nil {
		return Principal{}, f
	}
	want, err := sig.expected(r, body, p)
	if err != nil || want != sig.signature {
		return Principal{}, faultOf(http.StatusForbidden, "SignatureDoesNotMatch",
			"The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.")
	}
	return p, nil
}

func faultOf(status int, code, msg string) *Fault {
	f := stsFault(status, code, msg)
	return &f
}

// checkTime refuses a presigned URL older than STS's token lifetime and a
// header-signed request more than 15 minutes off.
func (sig sigV4) checkTime(now time.Time) *Fault {
	if sig.presigned {
		if now.After(sig.date.Add(stsTokenLifetime)) {
			return faultOf(http.StatusForbidden, "AccessDenied", "Request has expired")
		}
		return nil
	}
	if d := now.Sub(sig.date); d > 15*time.Minute || d < -15*time.Minute {
		return faultOf(http.StatusForbidden, "SignatureDoesNotMatch",
			fmt.Sprintf("Signature expired: %s is now earlier than %s", sig.date.Format(amzDateFormat), now.Add(-15*time.Minute).UTC().Format(amzDateFormat)))
	}
	return nil
}

type getCallerIdentityResponse struct {
	XMLName xml.Name `xml:"https://sts.amazonaws.com/doc/2011-06-15/ GetCallerIdentityResponse"`
	Result  struct {
		Arn     string `xml:"Arn" json:"Arn"`
		UserID  string `xml:"UserId" json:"UserId"`
		Account string `xml:"Account" json:"Account"`
	} `xml:"GetCallerIdentityResult"`
	Metadata struct {
		RequestID string `xml:"RequestId"`
	} `xml:"ResponseMetadata"`
}

// writeCallerIdentity answers GetCallerIdentity in the format the client
// accepts (STS answers JSON to Accept: application/json, as the EKS
// authenticator asks).
func writeCallerIdentity(w http.ResponseWriter, r *http.Request, p Principal) {
	var resp getCallerIdentityResponse
	resp.Result.Arn, resp.Result.UserID, resp.Result.Account = p.ARN, p.UserID, p.Account
	resp.Metadata.RequestID = requestID()
	if wantsJSON(r) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"GetCallerIdentityResponse": map[string]any{
			"GetCallerIdentityResult": resp.Result,
			"ResponseMetadata":        map[string]string{"RequestId": resp.Metadata.RequestID},
		}})
		return
	}
	writeQueryXML(w, resp)
}

func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// writeSTSError writes an STS error the way STS does: the Query XML error
// document, or its JSON form for a client that accepts JSON.
func writeSTSError(w http.ResponseWriter, r *http.Request, f Fault) {
	typ := "Sender"
	if f.Status >= 500 {
		typ = "Receiver"
	}
	if wantsJSON(r) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		json.NewEncoder(w).Encode(map[string]any{
			"Error":     map[string]string{"Code": f.Code, "Message": f.Message, "Type": typ},
			"RequestId": requestID(),
		})
		return
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `%s<ErrorResponse xmlns="%s"><Error><Type>%s</Type><Code>%s</Code><Message>`, xml.Header, STSNamespace, typ, f.Code)
	xml.EscapeText(&buf, []byte(f.Message))
	fmt.Fprintf(&buf, `</Message></Error><RequestId>%s</RequestId></ErrorResponse>`, requestID())
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(f.Status)
	w.Write(buf.Bytes())
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func randomUpper(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// emptySHA256 is the payload hash of an empty body.
var emptySHA256 = func() string { s := sha256.Sum256(nil); return hex.EncodeToString(s[:]) }()
