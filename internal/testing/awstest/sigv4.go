package awstest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

const amzDateFormat = "20060102T150405Z"

// sigV4 is the Signature Version 4 a request carries.
type sigV4 struct {
	presigned                    bool
	accessKeyID, region, service string
	signedHeaders                []string
	signature, sessionToken      string
	date                         time.Time
}

// parseSigV4 reads the signature from a presigned URL's query or from the
// Authorization header.
func parseSigV4(r *http.Request) (sigV4, error) {
	q := r.URL.Query()
	if q.Get("X-Amz-Signature") != "" {
		if alg := q.Get("X-Amz-Algorithm"); alg != "AWS4-HMAC-SHA256" {
			return sigV4{}, fmt.Errorf("unsupported X-Amz-Algorithm %q", alg)
		}
		sig := sigV4{presigned: true, signature: q.Get("X-Amz-Signature"), sessionToken: q.Get("X-Amz-Security-Token"),
			signedHeaders: strings.Split(q.Get("X-Amz-SignedHeaders"), ";")}
		return sig, sig.parseScope(q.Get("X-Amz-Credential"), q.Get("X-Amz-Date"))
	}
	auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ")
	if !ok {
		//lint:ignore ST1005 AWS's own message for a request without a signature, word for word
		return sigV4{}, errors.New("Request is missing Authentication Token")
	}
	fields := map[string]string{}
	for _, part := range strings.Split(auth, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		fields[k] = v
	}
	sig := sigV4{signature: fields["Signature"], sessionToken: r.Header.Get("X-Amz-Security-Token"),
		signedHeaders: strings.Split(fields["SignedHeaders"], ";")}
	return sig, sig.parseScope(fields["Credential"], r.Header.Get("X-Amz-Date"))
}

// parseScope reads AKID/yyyymmdd/region/service/aws4_request and the date.
func (sig *sigV4) parseScope(credential, date string) error {
	parts := strings.Split(credential, "/")
	if len(parts) != 5 || parts[4] != "aws4_request" {
		return fmt.Errorf("malformed credential %q", credential)
	}
	sig.accessKeyID, sig.region, sig.service = parts[0], parts[2], parts[3]
	t, err := time.Parse(amzDateFormat, date)
	if err != nil {
		return fmt.Errorf("malformed X-Amz-Date %q", date)
	}
	if parts[1] != t.Format("20060102") {
		return fmt.Errorf("credential date %s is not the signing date %s", parts[1], date)
	}
	sig.date = t
	return nil
}

// expected computes the signature the request should carry with p's
// secret: the request is rebuilt with only the headers the client signed
// and signed again with aws-sdk-go-v2's signer at the client's time.
func (sig sigV4) expected(r *http.Request, body []byte, p Principal) (string, error) {
	u := *r.URL
	u.Scheme, u.Host = "https", r.Host
	q := u.Query()
	q.Del("X-Amz-Signature")
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Host = r.Host
	req.ContentLength = r.ContentLength // the server moved it out of the headers
	for _, h := range sig.signedHeaders {
		if h != "host" && h != "" {
			req.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	creds := aws.Credentials{AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey, SessionToken: p.SessionToken}
	signer := v4.NewSigner()
	if sig.presigned {
		signed, _, err := signer.PresignHTTP(context.Background(), creds, req, emptySHA256, sig.service, sig.region, sig.date)
		if err != nil {
			return "", err
		}
		su, err := url.Parse(signed)
		if err != nil {
			return "", err
		}
		return su.Query().Get("X-Amz-Signature"), nil
	}
	hash := r.Header.Get("X-Amz-Content-Sha256")
	if hash == "" {
		sum := sha256.Sum256(body)
		hash = hex.EncodeToString(sum[:])
	}
	if err := signer.SignHTTP(context.Background(), creds, req, hash, sig.service, sig.region, sig.date); err != nil {
		return "", err
	}
	_, got, _ := strings.Cut(req.Header.Get("Authorization"), "Signature=")
	return got, nil
}
