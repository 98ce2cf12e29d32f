package redact

import (
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	mathrand "math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// planted is one way a secret appears on a real node: in a file, a log, a
// trace or an answer, as written by the tool that writes it.
type planted struct {
	name string
	// secret makes the secret of this form from rng (a random word when nil).
	secret func(rng *mathrand.Rand) string
	// text plants s.
	text func(s string) string
}

// word is a random secret: letters and digits, sometimes with the
// punctuation passwords and keys have.
func word(rng *mathrand.Rand, n int, extra string) string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	alphabet := alnum + extra
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	b[0], b[n-1] = alnum[rng.IntN(len(alnum))], alnum[rng.IntN(len(alnum))]
	return string(b)
}

func accessKeyIDOf(rng *mathrand.Rand) string {
	const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := []byte("AKIA")
	for range 16 {
		b = append(b, upper[rng.IntN(len(upper))])
	}
	return string(b)
}

func secretKeyOf(rng *mathrand.Rand) string { return word(rng, 40, "/+") }

func sessionTokenOf(rng *mathrand.Rand) string {
	return "IQoJb3JpZ2luX2VjE" + word(rng, 300, "/+") + "=="
}

func bootstrapTokenOf(rng *mathrand.Rand) string {
	const lower = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 23)
	for i := range b {
		b[i] = lower[rng.IntN(len(lower))]
	}
	b[6] = '.'
	return string(b)
}

func jwtOf(rng *mathrand.Rand) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"RS256","kid":"`+word(rng, 8, "")+`"}`)) + "." +
		enc.EncodeToString([]byte(`{"iss":"kubernetes/serviceaccount","sub":"system:serviceaccount:kube-system:`+word(rng, 10, "")+`"}`)) + "." + word(rng, 86, "-_")
}

func eksTokenOf(rng *mathrand.Rand) string {
	return "k8s-aws-v1." + base64.RawURLEncoding.EncodeToString([]byte("https://sts.us-west-2.amazonaws.com/?Action=GetCallerIdentity&X-Amz-Signature="+word(rng, 64, "")))
}

// curlRequest is how curl 7.88 starts a request's headers.
const curlRequest = "GET /e HTTP/1.1\r\nHost: 127.0.0.1:18080\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n"

// curlTraceASCII writes data as `curl --trace-ascii` does: 64 characters
// a line, each line after its offset.
func curlTraceASCII(offset int, data string) string {
	var b strings.Builder
	for len(data) > 0 {
		n := min(len(data), 64)
		fmt.Fprintf(&b, "%04x: %s\n", offset, data[:n])
		offset, data = offset+n, data[n:]
	}
	return b.String()
}

// ecrTokenOf is an ECR authorization token as `aws ecr
// get-login-password` prints it: the base64 of a JSON document holding
// the encrypted payload and data key.
func ecrTokenOf(rng *mathrand.Rand) string {
	doc := `{"payload":"` + word(rng, 600, "+/") + `","datakey":"` + word(rng, 200, "+/") + `","version":"2","type":"DATA_KEY","expiration":1795903956}`
	return base64.StdEncoding.EncodeToString([]byte(doc))
}

func gz(s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	zw.Close()
	return buf.Bytes()
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func escapeSlashes(s string) string { return strings.ReplaceAll(s, "/", `\/`) }

func ecKeyPEM(t testing.TB) (string, []byte) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), der
}

// corpus lists the forms secrets are planted in.
func corpus(t testing.TB) []planted {
	keyPEM, keyDER := ecKeyPEM(t)
	pemKey := func(*mathrand.Rand) string { return keyPEM }
	derKey := func(*mathrand.Rand) string { return string(keyDER) }
	p := func(name string, text func(string) string) planted { return planted{name: name, text: text} }
	ps := func(name string, secret func(*mathrand.Rand) string, text func(string) string) planted {
		return planted{name: name, secret: secret, text: text}
	}
	return []planted{
		// YAML.
		p("yaml password", func(s string) string { return "db:\n  password: " + s + "\n" }),
		p("yaml quoted key and value", func(s string) string { return `"password": "` + s + "\"\n" }),
		p("yaml single-quoted key", func(s string) string { return "'client-secret': '" + s + "'\n" }),
		p("yaml nested under a secret key", func(s string) string { return "credentials:\n  default:\n    value: " + s + "\n" }),
		p("yaml block scalar", func(s string) string { return "token: |\n  " + s + "\n  second-line\nnext: 1\n" }),
		p("yaml identity", func(s string) string {
			return "spec:\n  identity:\n    exec:\n      command: aws\n      args: [eks, get-token, --cluster-name, " + s + "]\n"
		}),
		p("yaml flow mapping", func(s string) string { return "registry: {username: robot, password: " + s + "}\n" }),
		p("yaml flow mapping in a list", func(s string) string { return "users:\n  - {name: a, token: " + s + ", role: x}\n" }),
		p("kubeconfig exec env (yaml)", func(s string) string {
			return "users:\n- name: kubelet\n  user:\n    exec:\n      command: aws\n      env:\n      - name: AWS_SECRET_ACCESS_KEY\n        value: " + s + "\n      - name: AWS_REGION\n        value: us-west-2\n"
		}),
		p("kubeconfig exec env (json)", func(s string) string {
			return `{"users":[{"name":"kubelet","user":{"exec":{"env":[{"name":"AWS_SESSION_TOKEN","value":"` + s + `"}]}}}]}` + "\n"
		}),
		p("container env (pretty json, crictl inspect)", func(s string) string {
			return "        \"envs\": [\n          {\n            \"key\": \"DB_PASSWORD\",\n            \"value\": \"" + s + "\"\n          }\n        ],\n"
		}),
		// JSON.
		p("json compact", func(s string) string { return `{"user":"a","password":"` + s + `"}` + "\n" }),
		p("json space before colon (IMDS credentials)", func(s string) string {
			return "{\n  \"Code\" : \"Success\",\n  \"SecretAccessKey\" : \"" + s + "\",\n  \"Expiration\" : \"2026-11-22T10:00:00Z\"\n}\n"
		}),
		p("json escaped inside a string", func(s string) string { return `{"config": "{\"password\":\"` + s + `\"}"}` + "\n" }),
		p("json escaped twice", func(s string) string { return jsonString(jsonString(`{"token":"`+s+`"}`)) + "\n" }),
		p("json unicode escapes", func(s string) string { return `{"cfg":"\u0022secret\u0022:\u0022` + s + `\u0022"}` + "\n" }),
		p("json identity compact", func(s string) string { return `{"spec":{"identity":{"bootstrapToken":{"token":"` + s + `"}}}}` + "\n" }),
		p("json identity spread over lines", func(s string) string {
			return "{\n  \"identity\":\n  {\n    \"exec\": {\n      \"args\": [\"--cluster\",\n        \"" + s + "\"]\n    }\n  }\n}\n"
		}),
		p("python repr", func(s string) string { return "settings = {'user': 'x', 'password': '" + s + "'}\n" }),
		p("docker config auth", func(s string) string { return `{"auths":{"registry.example.com":{"auth":"` + s + `"}}}` + "\n" }),
		// TOML, environment, systemd.
		p("toml", func(s string) string { return "[settings.kubernetes]\nbootstrap-token = \"" + s + "\"\n" }),
		p("env export", func(s string) string { return "export AWS_SECRET_ACCESS_KEY=" + s + "\n" }),
		p("env quoted", func(s string) string { return "API_TOKEN='" + s + "'\n" }),
		p("env file line in a log", func(s string) string { return "loaded env DB_PASSWORD=\"" + s + "\" from /etc/env\n" }),
		p("systemd Environment=", func(s string) string { return "[Service]\nEnvironment=\"CLIENT_SECRET=" + s + "\" \"A=b\"\n" }),
		p("systemd DefaultEnvironment proxy", func(s string) string {
			return "[Manager]\nDefaultEnvironment=\"HTTPS_PROXY=http://ops:" + s + "@proxy:3128\"\n"
		}),
		// Flags and command lines.
		p("flag with =", func(s string) string { return "kube-apiserver --oidc-client-secret=" + s + " --v=2\n" }),
		p("flag with space", func(s string) string { return "cmd --password " + s + " --verbose\n" }),
		p("flag with quoted value", func(s string) string { return `cmd --token "` + s + `"` + "\n" }),
		p("set -x aws configure set", func(s string) string { return "+ aws configure set aws_secret_access_key " + s + "\n" }),
		p("set -x aws configure set profile", func(s string) string {
			return "++ aws configure set profile.node.aws_session_token " + s + " --profile node\n"
		}),
		p("set -x export", func(s string) string { return "++ export GITHUB_TOKEN=" + s + "\n" }),
		p("netrc", func(s string) string { return "machine registry.example.com login robot password " + s + "\n" }),
		// HTTP.
		p("header", func(s string) string { return "X-Amz-Security-Token: " + s + "\n" }),
		p("header lower case in a trace", func(s string) string { return "> x-amz-security-token: " + s + "\r\n" }),
		p("header without a space", func(s string) string { return "x-aws-ec2-metadata-token:" + s + "\n" }),
		p("curl -H", func(s string) string { return "+ curl -s -H 'X-Auth-Token: " + s + "' https://api/\n" }),
		p("sigv4 Authorization header", func(s string) string {
			return "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261122/us-west-2/sts/aws4_request, SignedHeaders=host, Signature=" + s + "\n"
		}),
		p("bearer", func(s string) string { return `I1122 round_trippers.go:1] -H "Authorization: Bearer ` + s + `"` + "\n" }),
		p("basic", func(s string) string {
			return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("u:"+s)) + "\n"
		}),
		p("cookie", func(s string) string { return "Set-Cookie: session=" + s + "; Path=/; HttpOnly\n" }),
		p("query string", func(s string) string { return "GET /x?X-Amz-Security-Token=" + s + "&X-Amz-Date=1 HTTP/1.1\n" }),
		p("query string password", func(s string) string { return "https://db.example.com/?user=a&password=" + s + "\n" }),
		p("xml (STS answer in an SDK debug log)", func(s string) string {
			return "<Credentials><AccessKeyId>ASIAEXAMPLE</AccessKeyId><SecretAccessKey>" + s + "</SecretAccessKey></Credentials>\n"
		}),
		// Found with the real producers (aws CLI, curl, Go's fmt, bash -x).
		p("aws --output table (sts assume-role)", func(s string) string {
			return "||  AccessKeyId    |  ASIAEXAMPLE                                    ||\n||  SecretAccessKey|  " + s + "                                    ||\n"
		}),
		p("aws --output table in columns (header row over values)", func(s string) string {
			return "+-----------------------+--------------------------------------------+\n|      Expiration       |              SecretAccessKey               |\n" +
				"+-----------------------+--------------------------------------------+\n|  2026-11-28T23:00:00Z |  " + s + "  |\n+-----------------------+--------------------------------------------+\n"
		}),
		ps("aws --output table of a list (key ID row, then its secret key)", secretKeyOf, func(s string) string {
			return "+--------------------------------------------+\n|  AKIAIOSFODNN7EXAMPLE                      |\n|  " + s + "  |\n+--------------------------------------------+\n"
		}),
		p("curl --trace-ascii Basic credentials", func(s string) string {
			return "=> Send header, 113 bytes (0x71)\n0000: GET /d HTTP/1.1\n0028: Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("robot:"+s)) + "\n"
		}),
		ps("curl --trace-ascii header cut across lines", func(rng *mathrand.Rand) string { return word(rng, 300, "/+") }, func(s string) string {
			return "=> Send header, 412 bytes (0x19c)\n0000: GET /g HTTP/1.1\n" + curlTraceASCII(0x4e, "X-Amz-Security-Token: "+s) + "0176: Accept: */*\n"
		}),
		ps("curl --trace-ascii body cut across lines", func(rng *mathrand.Rand) string { return word(rng, 120, "") }, func(s string) string {
			return "=> Send data, 160 bytes (0xa0)\n" + curlTraceASCII(0, `{"username":"robot","password":"`+s+`"}`) + "== Info: upload completely sent off: 160 bytes\n"
		}),
		ps("curl --trace hex dump, header cut across lines", sessionTokenOf, func(s string) string {
			return "=> Send header, 412 bytes (0x19c)\n" + curlTraceHex(curlRequest+"X-Amz-Security-Token: "+s+"\r\n\r\n") + "== Info: done\n"
		}),
		p("curl --trace hex dump, Authorization and Cookie", func(s string) string {
			return "=> Send header, 140 bytes (0x8c)\n" + curlTraceHex(curlRequest+"Authorization: Bearer "+s+"\r\nCookie: session="+s+"\r\n\r\n")
		}),
		ps("curl --trace hex dump, JSON body", func(rng *mathrand.Rand) string { return word(rng, 40, "/+") }, func(s string) string {
			return "=> Send data, 95 bytes (0x5f)\n" + curlTraceHex(`{"username":"robot","password":"`+s+`","region":"us-west-2"}`)
		}),
		ps("hexdump -C / Go hex.Dump of a credentials file", secretKeyOf, func(s string) string {
			return hex.Dump([]byte("[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = " + s + "\n"))
		}),
		ps("hexdump -C of a kubeconfig with a token", jwtOf, func(s string) string {
			return hex.Dump([]byte("users:\n- name: robot\n  user:\n    token: " + s + "\n"))
		}),
		ps("xxd of a credentials file", sessionTokenOf, func(s string) string {
			return xxdDump("[default]\naws_session_token = " + s + "\nregion = us-west-2\n")
		}),
		p("curl --trace-ascii Set-Cookie", func(s string) string { return "0000: Set-Cookie: session=" + s + "; Path=/; HttpOnly\n" }),
		p("journal-prefixed header from klog", func(s string) string {
			return "2026-11-28T21:00:01.000000+0000 ip-10-0-0-1 kubelet[900]:         Cookie: session=" + s + "\n"
		}),
		p("go http.Header printed with %v (cookie)", func(s string) string { return "headers: map[Accept:[*/*] Cookie:[session=" + s + "]]\n" }),
		p("go http.Header printed with %v (token)", func(s string) string { return "headers: map[X-Auth-Token:[" + s + "] Accept:[*/*]]\n" }),
		p("set -x curl -u", func(s string) string { return "+ curl -sSf -u robot:" + s + " https://r.example.com/v2/\n" }),
		p("set -x curl --proxy-user", func(s string) string { return "+ curl --proxy-user ops:" + s + " http://x\n" }),
		p("set -x ctr pull --user", func(s string) string { return "+ ctr -n k8s.io images pull --user AWS:" + s + " r/x:1\n" }),
		p("set -x crictl pull --creds", func(s string) string { return "+ crictl pull --creds robot:" + s + " r/x:1\n" }),
		ps("ecr login password (set -x)", ecrTokenOf, func(s string) string { return "+ P=" + s + "\n" }),
		ps("ecr login password in a registry login", ecrTokenOf, func(s string) string {
			return "+ ctr images pull --user AWS:" + s + " 1.dkr.ecr.us-west-2.amazonaws.com/pause:3.9\n"
		}),
		p("url percent-encoded twice", func(s string) string {
			return "next=" + url.QueryEscape(url.QueryEscape("https://b.s3.amazonaws.com/k?X-Amz-Security-Token="+s+"&X-Amz-Date=1")) + "\n"
		}),
		// URLs.
		p("url credentials", func(s string) string { return "HTTPS_PROXY=http://user:" + s + "@proxy.internal:3128\n" }),
		p("url token as user", func(s string) string { return "git clone https://" + s + "@github.com/org/repo\n" }),
		p("url without scheme", func(s string) string { return "HTTPS_PROXY=user:" + s + "@proxy.internal:3128\n" }),
		p("url without scheme in yaml", func(s string) string { return "proxy: ops:" + s + "@10.0.0.9:3128\n" }),
		p("url json-escaped", func(s string) string { return `{"HTTPS_PROXY":"http:\/\/user:` + s + `@proxy:3128"}` + "\n" }),
		p("url percent-encoded", func(s string) string {
			return "proxy=" + url.QueryEscape("http://user:"+s+"@proxy:3128") + "\n"
		}),
		p("logfmt", func(s string) string { return `level=error msg="login failed" user=a password=` + s + "\n" }),
		p("klog structured", func(s string) string { return `E1122 10:00:00.000000 1 x.go:1] "auth" token="` + s + `"` + "\n" }),
		p("log message", func(s string) string { return "2026-11-22T10:00:00Z ERROR client secret: " + s + " rejected\n" }),
		// Encoded.
		p("base64 inline", func(s string) string {
			return "data " + base64.StdEncoding.EncodeToString([]byte("password: "+s)) + " end\n"
		}),
		p("base64 url alphabet, unpadded", func(s string) string {
			return "v=" + base64.RawURLEncoding.EncodeToString([]byte(`{"token":"`+s+`"}`)) + "\n"
		}),
		p("base64 block", func(s string) string {
			return "Content-Transfer-Encoding: base64\n\n" + wrap76(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("#cloud-config\n", 8)+"password: "+s+"\n"))) + "\n--//--\n"
		}),
		p("gzip+base64 inline", func(s string) string {
			return "user data: " + base64.StdEncoding.EncodeToString(gz("identity:\n  token: "+s+"\n")) + "\n"
		}),
		p("gzip+base64 block", func(s string) string {
			return wrap76(base64.StdEncoding.EncodeToString(gz("export AWS_SECRET_ACCESS_KEY="+s+"\n"))) + "\n"
		}),
		p("base64 of base64", func(s string) string {
			return "x " + base64.StdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte("token="+s)))) + "\n"
		}),
		p("kubernetes secret data", func(s string) string {
			return "kind: Secret\ndata:\n  tls.key: " + base64.StdEncoding.EncodeToString([]byte(s)) + "\n"
		}),
		p("gzip+base64 past the decode limit", func(s string) string {
			return "user data: " + base64.StdEncoding.EncodeToString(gz(strings.Repeat("#\n", maxDecoded/2+10)+"token: "+s+"\n")) + "\n"
		}),
		p("gzip+base64 cut short", func(s string) string {
			enc := base64.StdEncoding.EncodeToString(gz("token: " + s + strings.Repeat(" pad", 50) + "\n"))
			return "user data: " + enc[:len(enc)*2/3] + "\n"
		}),
		// Token shapes anywhere.
		ps("bootstrap token bare", bootstrapTokenOf, func(s string) string {
			return "kubeadm join 10.0.0.1:6443 --discovery-token-unsafe-skip-ca-verification " + s + "\n"
		}),
		ps("bootstrap token base64", bootstrapTokenOf, func(s string) string {
			return "token-secret " + base64.StdEncoding.EncodeToString([]byte(s)) + "\n"
		}),
		ps("jwt", jwtOf, func(s string) string { return "mounted projected token " + s + " for pod\n" }),
		ps("eks token", eksTokenOf, func(s string) string { return "got " + s + "\n" }),
		ps("access key id", accessKeyIDOf, func(s string) string { return "using credentials of " + s + " from env\n" }),
		ps("access key id base64", accessKeyIDOf, func(s string) string { return "id " + base64.StdEncoding.EncodeToString([]byte(s)) + "\n" }),
		ps("key pair in CSV", secretKeyOf, func(s string) string {
			return "User name,Access key ID,Secret access key\nalice,AKIAIOSFODNN7EXAMPLE," + s + "\n"
		}),
		ps("key pair in a log line", secretKeyOf, func(s string) string { return "creds AKIAIOSFODNN7EXAMPLE " + s + " loaded\n" }),
		ps("key triple in text output (aws sts assume-role --output text)", func(rng *mathrand.Rand) string { return "AQoE" + word(rng, 300, "/+") + "==" },
			func(s string) string {
				return "CREDENTIALS\tASIA3KDFYSPSC5LKR4AQ\t2026-11-28T23:00:00Z\tx9vJupc94tnwlavyfErGPm+pGXafq0fjzLczbttO\t" + s + "\n"
			}),
		ps("session token bare", sessionTokenOf, func(s string) string { return "sts answered " + s + "\n" }),
		ps("session token in ini", sessionTokenOf, func(s string) string { return "[default]\naws_session_token = " + s + "\n" }),
		// Private keys.
		ps("pem key", pemKey, func(s string) string { return s }),
		ps("pem key indented in yaml", pemKey, func(s string) string { return "content: |\n" + indent(s, "  ") + "\nowner: root\n" }),
		ps("pem key escaped in json", pemKey, func(s string) string { return `{"key":` + jsonString(s) + `}` + "\n" }),
		ps("pem key with escaped slashes", pemKey, func(s string) string { return `{"key":` + escapeSlashes(jsonString(s)) + `}` + "\n" }),
		ps("pem key in a journal, each line prefixed", pemKey, func(s string) string {
			return indent(strings.TrimSpace(s), "Nov 22 10:00:00 ip-10-0-0-1 cloud-init[812]: ") + "\n"
		}),
		ps("pem key cut short in a log", pemKey, func(s string) string {
			return "I1122 starting\n" + strings.Join(strings.Split(s, "\n")[:3], "\n") + "\n"
		}),
		ps("{name, value} pair after a key cut short", func(rng *mathrand.Rand) string { return word(rng, 10, "") }, func(s string) string {
			return "-----BEGIN PRIVATE KEY-----\n      - name: AWS_SECRET_ACCESS_KEY\n        value: " + s + "\n"
		}),
		ps("pem key base64 (kubeconfig data)", pemKey, func(s string) string {
			return "    client-data: " + base64.StdEncoding.EncodeToString([]byte(s)) + "\n"
		}),
		ps("der key base64 without armour", derKey, func(s string) string { return "key " + base64.StdEncoding.EncodeToString([]byte(s)) + "\n" }),
		ps("der key base64 wrapped", derKey, func(s string) string { return wrap76(base64.StdEncoding.EncodeToString([]byte(s))) + "\n" }),
	}
}

// leaksOf returns what must not survive of a planted secret s: every
// window of 12 characters of s and of its base64 forms (at each of the
// three alignments, standard and URL alphabet), whatever encoding it was
// planted in.
func leaksOf(s string) []string {
	var out []string
	if !isTextString(s) {
		s = base64.StdEncoding.EncodeToString([]byte(s))
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "-----") {
			continue
		}
		for _, form := range append([]string{line}, base64Forms(line)...) {
			for i := 0; i+12 <= len(form); i += 4 {
				out = append(out, form[i:i+12])
			}
		}
		if len(line) < 12 && len(line) >= 6 {
			out = append(out, line)
		}
	}
	return out
}

// base64Forms returns what base64 (standard and URL alphabet) shows of s
// wherever s starts in the encoded bytes: the characters that depend on s
// alone, for each of the three alignments.
func base64Forms(s string) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for k := range 3 {
			full := enc.EncodeToString([]byte(strings.Repeat("\x00", k) + s))
			start, end := (8*k+5)/6, 8*(k+len(s))/6
			if end-start >= 12 {
				out = append(out, full[start:end])
			}
		}
	}
	return out
}

func isTextString(s string) bool { return isText([]byte(s)) }

// TestPlantedSecrets plants a fresh secret in every form of the corpus,
// alone and between ordinary log lines, and checks that no part of it
// survives Bytes or Copy, that both agree, keep the line count, and that
// redacting again finds nothing.
func TestPlantedSecrets(t *testing.T) {
	forms := corpus(t)
	rng := mathrand.New(mathrand.NewPCG(17, 4))
	around := "I1122 10:00:00.000000 1 kubelet.go:1] \"Syncing pod\" pod=\"kube-system/coredns-1\"\n"
	t.Logf("%d forms", len(forms))
	for _, f := range forms {
		for _, ctx := range []struct{ name, before, after string }{{"alone", "", ""}, {"in a log", around, around}} {
			t.Run(f.name+"/"+ctx.name, func(t *testing.T) {
				s := word(rng, 16+rng.IntN(24), "")
				if f.secret != nil {
					s = f.secret(rng)
				}
				input := ctx.before + f.text(s) + ctx.after
				assertNoLeak(t, input, s)
			})
		}
	}
}

func assertNoLeak(t *testing.T, input, secret string) {
	t.Helper()
	out, findings := Bytes([]byte(input))
	hexBytes, text := dumpColumns(string(out))
	for _, leak := range leaksOf(secret) {
		if strings.Contains(string(out), leak) {
			t.Fatalf("%q survived:\n%s", leak, out)
		}
		if strings.Contains(hexBytes, leak) || strings.Contains(text, leak) {
			t.Fatalf("%q survived in a hex dump's columns:\n%s", leak, out)
		}
	}
	if len(findings) == 0 {
		t.Errorf("no findings")
	}
	if a, b := strings.Count(input, "\n"), bytes.Count(out, []byte{'\n'}); a != b {
		t.Errorf("line count %d -> %d", a, b)
	}
	assertFindingsClean(t, findings, leaksOf(secret))
	var copied bytes.Buffer
	if _, err := Copy(&copied, strings.NewReader(input)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(copied.Bytes(), out) {
		t.Errorf("Copy and Bytes disagree:\n%s\n---\n%s", copied.Bytes(), out)
	}
	if again, more := Bytes(out); !bytes.Equal(again, out) || len(more) > 0 {
		t.Errorf("redacting again changed the output or found %+v:\n%s", more, again)
	}
}

func TestCopyRefusesUnscannable(t *testing.T) {
	for name, input := range map[string]string{
		"binary":        "ok line\nbin\x00ary\n",
		"too long line": "a" + strings.Repeat("b", MaxLine+1) + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Copy(&bytes.Buffer{}, strings.NewReader(input))
			if err == nil || !strings.Contains(err.Error(), ErrUnscannable.Error()) {
				t.Fatalf("Copy: %v, want %v", err, ErrUnscannable)
			}
			out, findings := Bytes([]byte(input))
			if bytes.Contains(out, []byte("bin")) || bytes.Contains(out, []byte("bbbb")) || len(findings) == 0 {
				t.Errorf("Bytes kept an unscannable line (findings %+v)", findings)
			}
		})
	}
}

func ExampleCopy() {
	in := "I1122 kubelet.go:1] starting\nHTTPS_PROXY=ops:hunter2@proxy:3128\n"
	var out bytes.Buffer
	findings, err := Copy(&out, strings.NewReader(in))
	fmt.Print(out.String(), findings.Findings, err)
	// Output:
	// I1122 kubelet.go:1] starting
	// HTTPS_PROXY=REDACTED@proxy:3128
	// [{url-credentials 2 }] <nil>
}
