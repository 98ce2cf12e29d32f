package userdata

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

const (
	nodeConfigA = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: a\n"
	nodeConfigB = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags: [--v=2]\n"
	shellScript = "#!/bin/bash\necho hello\n"
)

// threePartMIME has two NodeConfig parts and a shell part; the bodies start
// on lines 7, 16 and 24.
var threePartMIME = lf(
	`MIME-Version: 1.0`, // 1
	`Content-Type: multipart/mixed; boundary="BOUNDARY"`, // 2
	``,
	`--BOUNDARY`,                             // 4
	`Content-Type: application/node.eks.aws`, // 5
	``,
	strings.TrimSuffix(nodeConfigA, "\n"), // 7-11
	``,                                    // 12
	`--BOUNDARY`,                          // 13
	`Content-Type: application/node.eks.aws; charset="us-ascii"`,
	``,
	strings.TrimSuffix(nodeConfigB, "\n"), // 16-20
	`--BOUNDARY`,                          // 21
	`Content-Type: text/x-shellscript; charset="us-ascii"`,
	``,
	strings.TrimSuffix(shellScript, "\n"), // 24-25
	`--BOUNDARY--`,
)

var threePartDocs = []docView{
	{Part: 1, Line: 7, ContentType: "application/node.eks.aws", Format: FormatNodeConfig, Data: nodeConfigA},
	{Part: 2, Line: 16, ContentType: "application/node.eks.aws", Format: FormatNodeConfig, Data: strings.TrimSuffix(nodeConfigB, "\n")},
	{Part: 3, Line: 24, ContentType: "text/x-shellscript", Format: FormatShell, Data: strings.TrimSuffix(shellScript, "\n")},
}

// mngScript is the part EKS injects for AL2 managed node groups.
const mngScript = "#!/bin/bash\nset -ex\nB64_CLUSTER_CA=LS0tLS1CRUdJTg==\nAPI_SERVER_URL=https://ABC.gr7.us-west-2.eks.amazonaws.com\nK8S_CLUSTER_DNS_IP=10.100.0.10\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--node-labels=eks.amazonaws.com/nodegroup=ng' --b64-cluster-ca $B64_CLUSTER_CA --apiserver-endpoint $API_SERVER_URL --dns-cluster-ip $K8S_CLUSTER_DNS_IP --use-max-pods false\n"

// eksMNG is the user data EKS injects for AL2 managed node groups.
var eksMNG = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/x-shellscript; charset=\"us-ascii\"\n\n" + mngScript + "\n--//--\n"

func TestSplitMIME(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []docView
	}{
		{name: "two NodeConfig parts and a shell part", data: threePartMIME, want: threePartDocs},
		{name: "base64 of the whole payload", data: b64(threePartMIME), want: decodedAs("base64", threePartDocs)},
		{name: "base64 wrapped at 76 columns with trailing newlines", data: wrap76(b64(threePartMIME)) + "\n\n", want: decodedAs("base64", threePartDocs)},
		{name: "gzip", data: gzipBytes(t, threePartMIME), want: decodedAs("gzip", threePartDocs)},
		{name: "gzip then base64", data: b64(gzipBytes(t, threePartMIME)), want: decodedAs("gzip+base64", threePartDocs)},
		{
			name: "CRLF line endings",
			data: strings.ReplaceAll(threePartMIME, "\n", "\r\n"),
			want: []docView{
				{Part: 1, Line: 7, ContentType: "application/node.eks.aws", Format: FormatNodeConfig, Data: strings.ReplaceAll(nodeConfigA, "\n", "\r\n")},
				{Part: 2, Line: 16, ContentType: "application/node.eks.aws", Format: FormatNodeConfig, Data: strings.ReplaceAll(strings.TrimSuffix(nodeConfigB, "\n"), "\n", "\r\n")},
				{Part: 3, Line: 24, ContentType: "text/x-shellscript", Format: FormatShell, Data: strings.ReplaceAll(strings.TrimSuffix(shellScript, "\n"), "\n", "\r\n")},
			},
		},
		{
			name: "EKS managed node group boundary //",
			data: eksMNG,
			want: []docView{{Part: 1, Line: 7, ContentType: "text/x-shellscript", Format: FormatShell, Data: mngScript}},
		},
		{
			name: "Content-Type before MIME-Version, folded header, transport padding",
			data: lf(`Content-Type: multipart/mixed;`, `  boundary="==B=="`, `MIME-Version: 1.0`, `Number-Attachments: 1`, ``, `--==B==  `, `Content-Type: text/cloud-config`, ``, `#cloud-config`, `runcmd: [ls]`, `--==B==--`),
			want: []docView{{Part: 1, Line: 9, ContentType: "text/cloud-config", Format: FormatCloudConfig, Data: "#cloud-config\nruncmd: [ls]"}},
		},
		{
			name: "media types map to formats",
			data: lf(`MIME-Version: 1.0`, `Content-Type: multipart/mixed; boundary="b"`, ``,
				`--b`, `Content-Type: application/nodeboot`, ``, `{}`,
				`--b`, `Content-Type: application/toml`, ``, `[settings]`,
				`--b`, `Content-Type: text/cloud-boothook`, ``, `#cloud-boothook`,
				`--b`, `Content-Type: text/x-include-url`, ``, `http://example.com/x`,
				`--b`, `Content-Type: Application/Node.EKS.AWS; charset=utf-8`, `Content-Disposition: attachment; filename="a.yaml"`, ``, `kind: NodeConfig`,
				`--b--`),
			want: []docView{
				{Part: 1, Line: 7, ContentType: "application/nodeboot", Format: FormatNodeConfig, Data: "{}"},
				{Part: 2, Line: 11, ContentType: "application/toml", Format: FormatBottlerocket, Data: "[settings]"},
				{Part: 3, Line: 15, ContentType: "text/cloud-boothook", Format: FormatOther, Data: "#cloud-boothook"},
				{Part: 4, Line: 19, ContentType: "text/x-include-url", Format: FormatOther, Data: "http://example.com/x"},
				{Part: 5, Line: 24, ContentType: "application/node.eks.aws", Format: FormatNodeConfig, Data: "kind: NodeConfig"},
			},
		},
		{
			name: "text/plain parts are sniffed like cloud-init",
			data: lf(`MIME-Version: 1.0`, `Content-Type: multipart/mixed; boundary="b"`, ``,
				`--b`, `Content-Type: text/plain`, ``, `#!/bin/sh`,
				`--b`, `Content-Type: text/plain`, ``, `kind: NodeConfig`,
				`--b--`),
			want: []docView{
				{Part: 1, Line: 7, ContentType: "text/plain", Format: FormatShell, Data: "#!/bin/sh"},
				{Part: 2, Line: 11, ContentType: "text/plain", Format: FormatOther, Data: "kind: NodeConfig"},
			},
		},
		{
			name: "part transfer encodings",
			data: lf(`MIME-Version: 1.0`, `Content-Type: multipart/mixed; boundary="b"`, ``,
				`--b`, `Content-Type: application/node.eks.aws`, `Content-Transfer-Encoding: base64`, ``, strings.TrimSuffix(wrap76(b64(nodeConfigA)), "\n"),
				`--b`, `Content-Type: text/x-shellscript`, `Content-Transfer-Encoding: quoted-printable`, ``, `#!/bin/bash`, `echo a=3Db`,
				`--b`, `Content-Type: application/node.eks.aws`, ``, b64(nodeConfigB),
				`--b`, `Content-Type: application/node.eks.aws`, `Content-Transfer-Encoding: BASE64`, ``, b64(gzipBytes(t, nodeConfigA)),
				`--b`, `Content-Type: application/node.eks.aws`, ``, b64(gzipBytes(t, nodeConfigB)),
				`--b--`),
			want: []docView{
				{Part: 1, Line: 1, ContentType: "application/node.eks.aws", Decoded: "base64", Format: FormatNodeConfig, Data: nodeConfigA},
				{Part: 2, Line: 1, ContentType: "text/x-shellscript", Decoded: "quoted-printable", Format: FormatShell, Data: "#!/bin/bash\necho a=b"},
				{Part: 3, Line: 1, ContentType: "application/node.eks.aws", Decoded: "base64", Format: FormatNodeConfig, Data: nodeConfigB},
				{Part: 4, Line: 1, ContentType: "application/node.eks.aws", Decoded: "gzip+base64", Format: FormatNodeConfig, Data: nodeConfigA},
				{Part: 5, Line: 1, ContentType: "application/node.eks.aws", Decoded: "gzip+base64", Format: FormatNodeConfig, Data: nodeConfigB},
			},
		},
		{
			name: "other headers before MIME-Version",
			data: lf(`From: nobody`, `Subject: node`, `MIME-Version: 1.0`, `Content-Type: multipart/mixed; boundary="b"`, ``, `--b`, `Content-Type: application/node.eks.aws`, ``, `{}`, `--b--`),
			want: []docView{{Part: 1, Line: 9, ContentType: "application/node.eks.aws", Format: FormatNodeConfig, Data: "{}"}},
		},
		{
			name: "single-part MIME message",
			data: lf(`MIME-Version: 1.0`, `Content-Type: text/x-shellscript`, ``, `#!/bin/bash`),
			want: []docView{{Part: 0, Line: 4, ContentType: "text/x-shellscript", Format: FormatShell, Data: "#!/bin/bash\n"}},
		},
		{
			name: "empty body part",
			data: lf(`Content-Type: multipart/mixed; boundary="b"`, ``, `--b`, `Content-Type: application/node.eks.aws`, ``, `--b--`),
			want: []docView{{Part: 1, Line: 6, ContentType: "application/node.eks.aws", Format: FormatNodeConfig, Data: ""}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, probs := Split(diag.Source{URI: "imds://user-data"}, []byte(tc.data))
			if len(probs) != 0 {
				t.Fatalf("problems: %v", probs)
			}
			if got := viewDocs(t, docs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("documents:\n got %+v\nwant %+v", got, tc.want)
			}
			for _, d := range docs {
				if d.Source.URI != "imds://user-data" {
					t.Errorf("URI = %q", d.Source.URI)
				}
			}
		})
	}
}

func TestSplitSingleDocument(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		want     Format
		wantData string // defaults to data
		decoded  string // Source.Decoded
	}{
		{name: "YAML NodeConfig", data: nodeConfigA, want: FormatNodeConfig},
		{name: "YAML with a leading comment", data: "# my node\n" + nodeConfigA, want: FormatNodeConfig},
		{name: "JSON NodeConfig", data: `{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig"}`, want: FormatNodeConfig},
		{name: "shell script", data: shellScript, want: FormatShell},
		{name: "shell script after blank lines", data: "\n\n" + shellScript, want: FormatShell},
		{name: "cloud-config", data: "#cloud-config\nruncmd: [ls]\n", want: FormatCloudConfig},
		{name: "cloud-config-archive is not cloud-config", data: "#cloud-config-archive\n- type: text/x-shellscript\n", want: FormatOther},
		{name: "cloud-init include", data: "#include\nhttps://example.com/x\n", want: FormatOther},
		{name: "powershell", data: "<powershell>\n[string]$EKSBootstrapScriptFile = \"x\"\n</powershell>\n", want: FormatOther},
		{name: "powershell upper case", data: "<PowerShell>\nWrite-Host hi\n</PowerShell>\n", want: FormatOther},
		{name: "Bottlerocket table", data: "[settings.kubernetes]\ncluster-name = \"a\"\n", want: FormatBottlerocket},
		{name: "Bottlerocket settings table", data: "# user data\n[settings]\nmotd = \"hi\"\n", want: FormatBottlerocket},
		{name: "Bottlerocket dotted keys", data: "settings.kubernetes.cluster-name = \"a\"\nsettings.kubernetes.api-server = \"https://x\"\n", want: FormatBottlerocket},
		{name: "Bottlerocket quoted key", data: "[\"settings\".kubernetes]\ncluster-name = \"a\"\n", want: FormatBottlerocket},
		{name: "Bottlerocket inline table", data: "settings = { motd = \"hi\" }\n", want: FormatBottlerocket},
		{name: "Bottlerocket after another table", data: "[metadata]\nx = 1\n[settings.kubernetes]\ncluster-name = \"a\"\n", want: FormatBottlerocket},
		{name: "broken Bottlerocket TOML is still Bottlerocket", data: "[settings.kubernetes\ncluster-name = \n", want: FormatBottlerocket},
		{name: "TOML without settings is not Bottlerocket", data: "[metadata]\nx = 1\n", want: FormatNodeConfig},
		{name: "YAML mentioning settings", data: "settings: {}\n[settings]\n", want: FormatNodeConfig},
		{name: "short YAML word is not base64-decoded", data: "true\n", want: FormatNodeConfig},
		{name: "base64-looking word decoding to a word is kept", data: "dGVzdA==", want: FormatNodeConfig},
		{name: "base64 of a shell script", data: b64(shellScript) + "\n", want: FormatShell, wantData: shellScript, decoded: "base64"},
		{name: "base64 of YAML", data: b64(nodeConfigA), want: FormatNodeConfig, wantData: nodeConfigA, decoded: "base64"},
		{name: "gzip of TOML", data: gzipBytes(t, "[settings.kubernetes]\n"), want: FormatBottlerocket, wantData: "[settings.kubernetes]\n", decoded: "gzip"},
		{name: "base64 of gzip of shell", data: b64(gzipBytes(t, shellScript)), want: FormatShell, wantData: shellScript, decoded: "gzip+base64"},
		{name: "byte order mark", data: "\ufeff" + nodeConfigA, want: FormatNodeConfig, wantData: nodeConfigA},
		{name: "header-like line that is not MIME", data: "Subject: hi\n\nContent-Type: text/plain\n", want: FormatNodeConfig},
		{name: "YAML with a content-type key after a nested block", data: "kind: NodeConfig\nspec:\n  a: b\n# c\ncontent-type: x\n", want: FormatNodeConfig},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, probs := Split(diag.Source{URI: "file:///x"}, []byte(tc.data))
			if len(probs) != 0 {
				t.Fatalf("problems: %v", probs)
			}
			wantData := tc.wantData
			if wantData == "" {
				wantData = tc.data
			}
			want := []docView{{Part: 0, Line: 1, Decoded: tc.decoded, Format: tc.want, Data: wantData}}
			if got := viewDocs(t, docs); !reflect.DeepEqual(got, want) {
				t.Errorf("documents:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestSplitEmpty(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{name: "nil", data: ""},
		{name: "white space", data: " \n\r\n\t\n"},
		{name: "gzip of nothing", data: gzipBytes(t, "")},
		{name: "gzip of white space", data: gzipBytes(t, "\n\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, probs := Split(diag.Source{}, []byte(tc.data))
			if docs != nil || probs != nil {
				t.Errorf("got %v, %v; want nothing", docs, probs)
			}
		})
	}
}

func TestSplitTransportErrors(t *testing.T) {
	full := gzipBytes(t, nodeConfigA)
	tests := []struct {
		name string
		data string
		want string
	}{
		{name: "truncated gzip", data: full[:len(full)-6], want: "gzip stream is corrupt or truncated: unexpected EOF"},
		{name: "bad gzip header", data: "\x1f\x8b\x00garbage", want: "not a valid gzip stream"},
		{name: "bad checksum", data: full[:len(full)-8] + "\x00\x00\x00\x00" + full[len(full)-4:], want: "gzip: invalid checksum"},
		{name: "truncated gzip inside base64", data: b64(full[:20]), want: "gzip"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := diag.Source{URI: "imds://user-data"}
			docs, probs := Split(src, []byte(tc.data))
			if len(docs) != 0 {
				t.Errorf("got %d documents, want none", len(docs))
			}
			if len(probs) != 1 || probs[0].Severity != diag.SeverityError || !strings.Contains(probs[0].Message, tc.want) || probs[0].Source != src {
				t.Errorf("problems = %v, want one error with %q", probs, tc.want)
			}
		})
	}
}

func TestSplitSourceIsCopied(t *testing.T) {
	src := diag.Source{URI: "file:///etc/eks/nodeadm.d/a.yaml", Part: 9, Line: 42}
	docs, _ := Split(src, []byte(nodeConfigA))
	if len(docs) != 1 {
		t.Fatalf("got %d documents", len(docs))
	}
	want := diag.Source{URI: src.URI, Part: 9, Format: "NodeConfig", Line: 1}
	if docs[0].Source != want {
		t.Errorf("Source = %+v, want %+v", docs[0].Source, want)
	}
}
