//go:build oracle

package oracle

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/author/nodegroup"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/mimetest"
	"github.com/nodeboot/nodeboot/internal/testing/userdatagen"
)

// cloudInitPython is Debian's Python, which has cloud-init's modules
// (a pyenv python3 on $PATH may not).
const cloudInitPython = "/usr/bin/python3"

// cloudInitDriver reads user data with the installed cloud-init and prints
// the parts its handlers get, as JSON (see the script).
const cloudInitDriver = "testdata/cloudinit_parts.py"

// ciPart is one part as cloud-init's part handlers get it.
type ciPart struct {
	ContentType string            `json:"content_type"`
	Filename    string            `json:"filename"`
	Headers     map[string]string `json:"headers"`
	Payload     []byte            `json:"payload"`
	// Writable is whether cloud-init can write the payload (UTF-8).
	Writable bool `json:"writable"`
}

// ciResult is what cloud-init made of one user data document.
type ciResult struct {
	Parts    []ciPart `json:"parts"`
	Fetched  []string `json:"fetched"`
	Warnings []string `json:"warnings"`
	// Error is the exception cloud-init raised reading the document.
	Error string `json:"error"`
}

var cloudInitFound = sync.OnceValue(func() error {
	out, err := exec.Command(cloudInitPython, "-c", "import cloudinit.user_data, cloudinit.handlers").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s cannot import cloud-init (apt-get install cloud-init; test/e2e/scripts/install-deps.sh): %w\n%s", cloudInitPython, err, out)
	}
	return nil
})

// requireCloudInit skips t without cloud-init, or fails it under
// NODEBOOT_REQUIRE_E2E (CI, make oracle).
func requireCloudInit(t *testing.T) {
	t.Helper()
	if err := cloudInitFound(); err != nil {
		if os.Getenv("NODEBOOT_REQUIRE_E2E") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// readByCloudInit runs each document through the real cloud-init's
// user-data processing, all in one Python process, and returns, in order,
// the parts its handlers get. cloud-init must fetch nothing.
func readByCloudInit(t *testing.T, docs ...[]byte) []ciResult {
	t.Helper()
	in, err := json.Marshal(docs) // each base64-encoded
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), cloudInitPython, cloudInitDriver)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cloud-init driver: %v\n%s", err, stderr.String())
	}
	var res []ciResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || len(res) != len(docs) {
		t.Fatalf("cloud-init driver output (%d results for %d documents): %v\n%s", len(res), len(docs), err, stdout.String())
	}
	for i, r := range res {
		if len(r.Fetched) > 0 {
			t.Fatalf("cloud-init would fetch %q: no input may #include a URL\n%q", r.Fetched, docs[i])
		}
	}
	return res
}

// leaf is a part as the user means cloud-init to get it: its media type
// and exact bytes.
type leaf struct {
	media string
	body  string
}

func (l leaf) String() string { return fmt.Sprintf("%s %q", l.media, l.body) }

// ciLeaves are cloud-init's parts as leaves.
func ciLeaves(parts []ciPart) []leaf {
	out := make([]leaf, len(parts))
	for i, p := range parts {
		out[i] = leaf{media: p.ContentType, body: string(p.Payload)}
	}
	return out
}

// mediaOf is a Content-Type's media type, as cloud-init reports it.
func mediaOf(contentType string) string {
	media, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return strings.ToLower(contentType)
	}
	return media
}

// ciNodeGroup is the NodeGroup every cloud-init case generates for.
const ciNodeGroup = "../../internal/author/generate/testdata/nodegroup.yaml"

// ciWriter is one way nodeboot writes MIME user data around the user's.
type ciWriter struct {
	name     string
	family   generate.Family
	producer generate.Producer
	// merge runs `userdata merge --user-data-out`, else `userdata generate`.
	merge bool
}

// ciWriters are the commands and producers that write MIME for cloud-init.
var ciWriters = []ciWriter{
	{name: "generate-al2023-eks", family: generate.FamilyAL2023, producer: generate.ProducerEKS},
	{name: "generate-al2023-karpenter", family: generate.FamilyAL2023, producer: generate.ProducerKarpenter},
	{name: "merge-al2023-karpenter", family: generate.FamilyAL2023, producer: generate.ProducerKarpenter, merge: true},
	{name: "generate-al2-eks", family: generate.FamilyAL2, producer: generate.ProducerEKS},
	{name: "merge-al2-karpenter", family: generate.FamilyAL2, producer: generate.ProducerKarpenter, merge: true},
}

// write runs nodeboot (the binary at bin) on the user's user data (a
// file) and returns the user data it writes.
func (w ciWriter) write(ctx context.Context, bin, userFile string) ([]byte, error) {
	args := []string{"userdata", "generate", "-f", ciNodeGroup, "--family", string(w.family), "--as", string(w.producer), "--user-data", userFile}
	out := userFile + "." + w.name
	if w.merge {
		args = []string{"userdata", "merge", "-f", ciNodeGroup, "--family", string(w.family), "--as", string(w.producer), "--user-data-out", out, userFile}
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("nodeboot %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if !w.merge {
		return stdout.Bytes(), nil
	}
	return os.ReadFile(out)
}

// planned is the user data w writes for the user's, in process: its
// parts, user's and generated, as nodeboot means them.
func (w ciWriter) planned(user []byte) (generate.Output, error) {
	d, probs := nodegroup.Read("file://"+ciNodeGroup, readOrNil(ciNodeGroup))
	if probs.HasErrors() {
		return generate.Output{}, fmt.Errorf("node group: %v", probs)
	}
	docs, probs := userdata.Split(diag.Source{URI: "file:///user-data"}, user)
	if probs.HasErrors() {
		return generate.Output{}, fmt.Errorf("user data: %v", probs)
	}
	return generate.Generate(generate.Input{Group: d.Group, Family: w.family, Producer: w.producer, User: docs})
}

// readOrNil is a file's contents, nil if it cannot be read (the node
// group is then refused, failing the test).
func readOrNil(path string) []byte {
	data, _ := os.ReadFile(path)
	return data
}

// wantLeaves is what cloud-init must hand its handlers: the parts of out
// in order, the user's (contiguous) replaced by user, the leaves the user
// means, and every generated part as generated, byte for byte.
func wantLeaves(out generate.Output, user []leaf) []leaf {
	var want []leaf
	placed := false
	for _, p := range out.Parts {
		if p.Origin != generate.OriginUser {
			want = append(want, leaf{media: mediaOf(p.ContentType), body: string(p.Body)})
			continue
		}
		if !placed {
			want = append(want, user...)
			placed = true
		}
	}
	return want
}

// userMIME is the user's MIME document (boundary BB) of parts, each
// headers, a blank line and a body; the line break before each delimiter
// belongs to the delimiter (RFC 2046), so each body is exactly the bytes
// after the blank line.
func userMIME(parts ...string) string {
	return "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BB\"\n\n--BB\n" +
		strings.Join(parts, "\n--BB\n") + "\n--BB--\n"
}

// part is a part of type ct holding body.
func part(ct, body string) string { return "Content-Type: " + ct + "\n\n" + body }

// b64Part is a part of type ct holding body, base64-encoded.
func b64Part(ct string, body []byte) string {
	return "Content-Type: " + ct + "\nContent-Transfer-Encoding: base64\n\n" + base64.StdEncoding.EncodeToString(body)
}

const (
	shellCT = "text/x-shellscript"
	script  = "#!/bin/sh\necho hi\n"
)

// ciCase is user data a user hands nodeboot, and the parts cloud-init
// must get from it.
type ciCase struct {
	name string
	user []byte
	// want are the user's parts; nil when cloud-init cannot give the
	// user's bytes (a deliberate difference, docs/userdata-generate.md):
	// it must then read them as it reads the user's own user data.
	want []leaf
	// names are the filenames the user gave parts, in order: cloud-init
	// writes the parts under them (and runs scripts in their order).
	names []string
	// notMIME: the user data is not MIME, so only Karpenter's writers
	// take it (EKS takes only MIME on Amazon Linux).
	notMIME bool
}

// ciCases are the tricky user parts: line endings, delimiter-looking
// lines, encodings, nesting, gzip.
func ciCases(t *testing.T) []ciCase {
	nodeConfig := "# owner: José\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n      - --node-labels=owner=jose\n"
	return []ciCase{
		{name: "script", user: []byte(userMIME(part(shellCT, script))), want: []leaf{{shellCT, script}}},
		{name: "script without final newline", user: []byte(userMIME(part(shellCT, "#!/bin/sh\necho hi"))), want: []leaf{{shellCT, "#!/bin/sh\necho hi"}}},
		{name: "script ending in a blank line", user: []byte(userMIME(part(shellCT, script+"\n"))), want: []leaf{{shellCT, script + "\n"}}},
		{name: "two scripts", user: []byte(userMIME(part(shellCT, script), part(shellCT, "#!/bin/bash\necho two\n"))), want: []leaf{{shellCT, script}, {shellCT, "#!/bin/bash\necho two\n"}}},
		{name: "cloud-config", user: []byte(userMIME(part("text/cloud-config", "#cloud-config\npackages:\n  - jq\n"))), want: []leaf{{"text/cloud-config", "#cloud-config\npackages:\n  - jq\n"}}},
		{name: "text/plain notes", user: []byte(userMIME(part("text/plain", "just some notes\n"))), want: []leaf{{"text/plain", "just some notes\n"}}},
		{name: "user NodeConfig", user: []byte(userMIME(part("application/node.eks.aws", nodeConfig))), want: []leaf{{"application/node.eks.aws", nodeConfig}}},
		{name: "nested multipart", user: []byte(userMIME(
			"Content-Type: multipart/mixed; boundary=\"IN\"\n\n--IN\n"+part(shellCT, "#!/bin/sh\necho inner\n")+"\n--IN--\n",
			part(shellCT, "#!/bin/sh\necho outer\n"))),
			want: []leaf{{shellCT, "#!/bin/sh\necho inner\n"}, {shellCT, "#!/bin/sh\necho outer\n"}}},
		{name: "nested multipart with our boundary", user: []byte(userMIME(
			"Content-Type: multipart/mixed; boundary=\"//\"\n\n--//\n" + part(shellCT, "#!/bin/sh\necho inner\n") + "\n--//--\n")),
			want: []leaf{{shellCT, "#!/bin/sh\necho inner\n"}}},
		{name: "UTF-8 script, quoted-printable", user: []byte(userMIME("Content-Type: text/x-shellscript\nContent-Transfer-Encoding: quoted-printable\n\n#!/bin/sh\necho caf=C3=A9 =E2=82=AC\n")),
			want: []leaf{{shellCT, "#!/bin/sh\necho café €\n"}}},
		{name: "UTF-8 script, base64", user: []byte(userMIME(b64Part(shellCT, []byte("#!/bin/sh\necho 日本語\n")))), want: []leaf{{shellCT, "#!/bin/sh\necho 日本語\n"}}},
		{name: "gzip part", user: []byte(userMIME(b64Part("application/x-gzip", mimetest.Gzip(t, script)))), want: []leaf{{shellCT, script}}},
		{name: "gzipped user data", user: mimetest.Gzip(t, userMIME(part(shellCT, script))), want: []leaf{{shellCT, script}}},
		{name: "line --//", user: []byte(userMIME(part(shellCT, "#!/bin/sh\necho a\n--//\necho b\n"))), want: []leaf{{shellCT, "#!/bin/sh\necho a\n--//\necho b\n"}}},
		{name: "line --//--", user: []byte(userMIME(part(shellCT, "#!/bin/sh\ncat <<EOF\n--//--\nEOF\n"))), want: []leaf{{shellCT, "#!/bin/sh\ncat <<EOF\n--//--\nEOF\n"}}},
		{name: "indented and trailing-space delimiters", user: []byte(userMIME(part(shellCT, "#!/bin/sh\ncat <<EOF\n  --//\n--// \n--//\t\nEOF\n"))), want: []leaf{{shellCT, "#!/bin/sh\ncat <<EOF\n  --//\n--// \n--//\t\nEOF\n"}}},
		{name: "lines of our fallback boundaries too", user: []byte(userMIME(part(shellCT, "#!/bin/sh\n: '\n--//\n--==nodeboot-1==\n--==nodeboot-2==--\n'\n"))), want: []leaf{{shellCT, "#!/bin/sh\n: '\n--//\n--==nodeboot-1==\n--==nodeboot-2==--\n'\n"}}},
		{name: "--// in another part than the script", user: []byte(userMIME(part(shellCT, script), part("text/plain", "--//\n"))), want: []leaf{{shellCT, script}, {"text/plain", "--//\n"}}},
		{name: "CRLF script", user: []byte(userMIME(part(shellCT, "#!/bin/sh\r\necho crlf\r\n"))), want: []leaf{{shellCT, "#!/bin/sh\r\necho crlf\r\n"}}},
		{name: "CRLF script without final newline", user: []byte(userMIME(part(shellCT, "#!/bin/sh\r\necho crlf"))), want: []leaf{{shellCT, "#!/bin/sh\r\necho crlf"}}},
		// The body is "…cr\r": the CR LF that userMIME's LF makes is the delimiter's.
		{name: "script ending in a lone CR", user: []byte(userMIME(part(shellCT, "#!/bin/sh\necho cr\r\r"))), want: []leaf{{shellCT, "#!/bin/sh\necho cr\r"}}},
		{name: "bare script ending in a lone CR", user: []byte("#!/bin/sh\necho cr\r"), want: []leaf{{shellCT, "#!/bin/sh\necho cr\r"}}, notMIME: true},
		{name: "bare script ending in a blank line", user: []byte(script + "\n"), want: []leaf{{shellCT, script + "\n"}}, notMIME: true},
		{name: "empty part", user: []byte(userMIME(part("text/plain", ""), part(shellCT, script))), want: []leaf{{"text/plain", ""}, {shellCT, script}}},
		{name: "lone CR inside", user: []byte(userMIME(part(shellCT, "#!/bin/sh\necho 'a\rb'\n"))), want: []leaf{{shellCT, "#!/bin/sh\necho 'a\rb'\n"}}},
		{name: "--// after a lone CR", user: []byte(userMIME(part(shellCT, "#!/bin/sh\necho 'a\r--//\rb'\n"))), want: []leaf{{shellCT, "#!/bin/sh\necho 'a\r--//\rb'\n"}}},
		{name: "--// after a form feed", user: []byte(userMIME(part(shellCT, "#!/bin/sh\necho 'a\f--//'\n"))), want: []leaf{{shellCT, "#!/bin/sh\necho 'a\f--//'\n"}}},
		{name: "header-looking first line", user: []byte(userMIME(part(shellCT, "Content-Type: text/plain\n\n#!/bin/sh\n"))), want: []leaf{{shellCT, "Content-Type: text/plain\n\n#!/bin/sh\n"}}},
		{name: "blank lines first", user: []byte(userMIME(part(shellCT, "\n\n#!/bin/sh\necho hi\n"))), want: []leaf{{shellCT, "\n\n#!/bin/sh\necho hi\n"}}},
		// cloud-init reads an unencoded part's text as ASCII ("caf\xe9"); a
		// nested multipart is written as the user wrote it.
		{name: "nested multipart, UTF-8 8bit inside", user: []byte(userMIME(
			"Content-Type: multipart/mixed; boundary=\"IN\"\n\n--IN\n" + part(shellCT, "#!/bin/sh\necho café\n") + "\n--IN--\n")),
			want: nil},
		{name: "filenames", user: []byte(userMIME(
			"Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename=\"b.sh\"\n\n#!/bin/sh\necho b\n",
			"Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename=\"a.sh\"\n\n#!/bin/sh\necho a\n",
			"Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename*=utf-8''caf%C3%A9.sh\n\n#!/bin/sh\necho c\n")),
			want:  []leaf{{shellCT, "#!/bin/sh\necho b\n"}, {shellCT, "#!/bin/sh\necho a\n"}, {shellCT, "#!/bin/sh\necho c\n"}},
			names: []string{"b.sh", "a.sh", "café.sh"}},
		// cloud-init's get_filename: Content-Type's name without a
		// filename, and a filename that is not valid MIME syntax.
		{name: "filenames read leniently", user: []byte(userMIME(
			"Content-Type: text/x-shellscript; name=\"n.sh\"\n\n#!/bin/sh\necho n\n",
			"Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename=d/e.sh\n\n#!/bin/sh\necho e\n")),
			want:  []leaf{{shellCT, "#!/bin/sh\necho n\n"}, {shellCT, "#!/bin/sh\necho e\n"}},
			names: []string{"n.sh", "d/e.sh"}},
		// cloud-init decodes text parts as UTF-8 and cannot write the script.
		{name: "not UTF-8, base64", user: []byte(userMIME(b64Part(shellCT, []byte("#!/bin/sh\necho \xff\xfe\n")))), want: nil},
		{name: "bare script", user: []byte(script), want: []leaf{{shellCT, script}}, notMIME: true},
		{name: "bare script with --// and CRLF", user: []byte("#!/bin/sh\r\necho a\r\n--//\r\necho b\r\n"), want: []leaf{{shellCT, "#!/bin/sh\r\necho a\r\n--//\r\necho b\r\n"}}, notMIME: true},
	}
}

// ciJob is one user data document nodeboot wrote, to be read by
// cloud-init, and what the reading must give.
type ciJob struct {
	name    string
	user    []byte
	writer  ciWriter
	doc     []byte
	planned generate.Output
	err     error
	// want are the user's leaves, unless asOwn: they are then read from
	// the user's own user data (see ciCase.want).
	want  []leaf
	asOwn bool
	names []string
}

// writeAll runs every job's writer, several at a time.
func writeAll(t *testing.T, jobs []ciJob) {
	t.Helper()
	dir, err := builtNodeboot()
	if err != nil {
		t.Fatal(err)
	}
	bin, tmp := filepath.Join(dir, "nodeboot"), t.TempDir()
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i := range jobs {
		wg.Add(1)
		go func(j *ciJob, userFile string) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if j.err = os.WriteFile(userFile, j.user, 0o644); j.err != nil {
				return
			}
			if j.doc, j.err = j.writer.write(t.Context(), bin, userFile); j.err == nil {
				j.planned, j.err = j.writer.planned(j.user)
			}
		}(&jobs[i], filepath.Join(tmp, fmt.Sprintf("user-data-%d", i)))
	}
	wg.Wait()
}

// TestCloudInitReadsUserParts writes user data around each case's with
// every writer (userdata generate and merge, each producer and Amazon
// Linux family) and reads it with the real cloud-init: its handlers must
// get exactly the user's parts, byte for byte and with their types, and
// the generated parts as generated; nothing split, swallowed or added.
func TestCloudInitReadsUserParts(t *testing.T) {
	t.Parallel()
	requireCloudInit(t)
	var jobs []ciJob
	for _, tc := range ciCases(t) {
		for _, w := range ciWriters {
			if !tc.notMIME || w.producer != generate.ProducerEKS {
				jobs = append(jobs, ciJob{name: tc.name + "/" + w.name, user: tc.user, writer: w, want: tc.want, asOwn: tc.want == nil, names: tc.names})
			}
		}
	}
	writeAll(t, jobs)
	runJobs(t, jobs)
}

// runJobs reads every job's document (and, for a job without want, the
// user's own) with cloud-init in one process, then checks each.
func runJobs(t *testing.T, jobs []ciJob) {
	t.Helper()
	var docs [][]byte
	for _, j := range jobs {
		if j.err == nil {
			docs = append(docs, j.doc, j.user)
		}
	}
	results := readByCloudInit(t, docs...)
	for _, j := range jobs {
		var res, own ciResult
		if j.err == nil {
			res, own, results = results[0], results[1], results[2:]
		}
		t.Run(j.name, func(t *testing.T) {
			if j.err != nil {
				t.Fatal(j.err)
			}
			if res.Error != "" {
				t.Fatalf("cloud-init fails on the user data: %s\n%s", res.Error, j.doc)
			}
			if j.asOwn {
				checkAsUsersOwn(t, j.doc, res, own, j.planned)
				return
			}
			checkCloudInit(t, j.doc, res, wantLeaves(j.planned, j.want))
			if got := namedParts(res.Parts); !slices.Equal(got, j.names) {
				t.Errorf("cloud-init's part filenames %q, want %q\n%s", got, j.names, j.doc)
			}
		})
	}
}

// checkAsUsersOwn checks a case cloud-init cannot read as the user means
// it: it must read doc's user parts as it reads the user's own user data,
// payloads it cannot write included, and the generated parts as planned.
func checkAsUsersOwn(t *testing.T, doc []byte, res, own ciResult, planned generate.Output) {
	t.Helper()
	if own.Error != "" {
		t.Fatalf("cloud-init fails on the user's own user data: %s", own.Error)
	}
	if diff := leafDiff(ciLeaves(res.Parts), wantLeaves(planned, ciLeaves(own.Parts))); diff != "" {
		t.Errorf("cloud-init reads the user's parts otherwise than in the user's own user data:\n%s--- user data\n%s", diff, doc)
	}
	writable := func(parts []ciPart) (n int) {
		for _, p := range parts {
			if p.Writable {
				n++
			}
		}
		return n
	}
	if got, want := writable(res.Parts), writable(own.Parts)+len(res.Parts)-len(own.Parts); got != want {
		t.Errorf("cloud-init can write %d of %d parts, want %d", got, len(res.Parts), want)
	}
}

// checkCloudInit reads doc with cloud-init and compares its parts to want.
func checkCloudInit(t *testing.T, doc []byte, res ciResult, want []leaf) {
	t.Helper()
	if diff := leafDiff(ciLeaves(res.Parts), want); diff != "" {
		t.Errorf("cloud-init's parts are not the user's and the generated ones:\n%s--- user data\n%s", diff, doc)
	}
	if len(res.Warnings) > 0 {
		t.Errorf("cloud-init warns: %q", res.Warnings)
	}
	for i, p := range res.Parts {
		if !p.Writable {
			t.Errorf("part %d: cloud-init cannot write its payload (not UTF-8): %q", i+1, p.Payload)
		}
	}
}

// namedParts are the filenames of the parts cloud-init did not name
// itself (part-001, …).
func namedParts(parts []ciPart) []string {
	var names []string
	for _, p := range parts {
		if !strings.HasPrefix(p.Filename, "part-") {
			names = append(names, p.Filename)
		}
	}
	return names
}

// leafDiff describes how got differs from want, part by part ("" if not).
func leafDiff(got, want []leaf) string {
	var b strings.Builder
	if len(got) != len(want) {
		fmt.Fprintf(&b, "%d parts, want %d\n", len(got), len(want))
	}
	for i := range max(len(got), len(want)) {
		var g, w leaf
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			fmt.Fprintf(&b, "part %d:\n got %s\nwant %s\n", i+1, g, w)
		}
	}
	return b.String()
}

// convertInputs are the user data of the agent's cases and of the
// producers' corpus that `nodeboot convert` reads.
const convertInputs = "../../internal/node/agent/testdata/*/*/user-data"

// TestCloudInitReadsConverted runs `nodeboot convert --to nodeconfig` and
// `--to bootstrap-sh` (both write MIME) on the agent's case and producer
// user data and reads the output with the real cloud-init: it must get
// the one part written, with its type, and the same bytes as Go's
// mime/multipart (nodeadm's reader) reads, ending in the body's newline.
func TestCloudInitReadsConverted(t *testing.T) {
	t.Parallel()
	requireCloudInit(t)
	inputs, err := filepath.Glob(convertInputs)
	if err != nil || len(inputs) < 20 {
		t.Fatalf("convert inputs %s: %v, %d", convertInputs, err, len(inputs))
	}
	names, docs := convertAll(t, inputs)
	if len(docs) < 10 {
		t.Fatalf("only %d conversions", len(docs))
	}
	results := readByCloudInit(t, docs...)
	for i, res := range results {
		t.Run(names[i], func(t *testing.T) {
			_, goParts := mimetest.Parts(t, docs[i])
			want := []leaf{{media: convertTargets[path.Base(names[i])], body: string(goParts[0].Body)}}
			if diff := leafDiff(ciLeaves(res.Parts), want); diff != "" || res.Error != "" || !strings.HasSuffix(want[0].body, "\n") {
				t.Errorf("cloud-init's parts are not the one written (%s):\n%s--- user data\n%s", res.Error, diff, docs[i])
			}
		})
	}
}

// convertTargets are convert's MIME targets and the type of their part.
var convertTargets = map[string]string{"nodeconfig": "application/node.eks.aws", "bootstrap-sh": "text/x-shellscript"}

// convertAll converts each input to each target it converts to and
// returns the outputs, each named input/target.
func convertAll(t *testing.T, inputs []string) (names []string, docs [][]byte) {
	t.Helper()
	dir, err := builtNodeboot()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs {
		for to := range convertTargets {
			out, err := exec.CommandContext(t.Context(), filepath.Join(dir, "nodeboot"), "convert", "--to", to, in).Output()
			if err != nil {
				continue // not convertible (Bottlerocket, Windows, a NodeConfig already)
			}
			names, docs = append(names, filepath.Base(filepath.Dir(in))+"/"+to), append(docs, out)
		}
	}
	return names, docs
}

// cloudInitSeeds is how many userdatagen inputs TestCloudInitReadsGenerated
// runs; the seeds are fixed, so a failure names the one that reproduces it.
const cloudInitSeeds = 300

// TestCloudInitReadsGenerated merges generated user data
// (internal/testing/userdatagen: NodeConfig, shell, cloud-config and text
// parts with every boundary, line ending and encoding) into Karpenter's
// AL2023 user data and reads the output with the real cloud-init: its
// handlers must get each part as nodeboot read it from the input, then
// Karpenter's, byte for byte. Inputs nodeboot refuses are not written.
func TestCloudInitReadsGenerated(t *testing.T) {
	t.Parallel()
	requireCloudInit(t)
	generatorOnce.Do(func() { generator = userdatagen.New(selfSignedCA(t)) })
	w := ciWriter{name: "generate-al2023-karpenter", family: generate.FamilyAL2023, producer: generate.ProducerKarpenter}
	jobs := make([]ciJob, cloudInitSeeds)
	for seed := range jobs {
		in := generator.Generate(uint64(seed))
		jobs[seed] = ciJob{name: fmt.Sprintf("seed-%d", seed), user: in.UserData, writer: w}
	}
	writeAll(t, jobs)
	var written []ciJob
	for _, j := range jobs {
		if j.err == nil { // else near-valid input (a bad CA or CIDR) nodeboot refuses
			j.want = plannedLeaves(j.planned)
			written = append(written, j)
		}
	}
	if len(written) < cloudInitSeeds/2 {
		t.Fatalf("nodeboot wrote user data for only %d of %d inputs", len(written), cloudInitSeeds)
	}
	t.Logf("%d of %d generated inputs written (the rest refused) and read", len(written), cloudInitSeeds)
	runJobs(t, written)
}

// plannedLeaves are the user's parts of out as nodeboot read them.
func plannedLeaves(out generate.Output) []leaf {
	var user []leaf
	for _, p := range out.Parts {
		if p.Origin == generate.OriginUser {
			user = append(user, leaf{media: mediaOf(p.ContentType), body: string(p.Body)})
		}
	}
	return user
}
