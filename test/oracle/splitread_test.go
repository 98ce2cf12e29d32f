//go:build oracle

package oracle

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/userdatagen"
)

// splitInput is user data a user hands nodeboot, named.
type splitInput struct {
	name string
	user []byte
}

// splitInputs are the user's documents of the cloud-init oracle: the named
// cases of ciCases and the generated inputs of TestCloudInitReadsGenerated
// (the same fixed seeds).
func splitInputs(t *testing.T) []splitInput {
	var in []splitInput
	for _, tc := range ciCases(t) {
		in = append(in, splitInput{name: tc.name, user: tc.user})
	}
	generatorOnce.Do(func() { generator = userdatagen.New(selfSignedCA(t)) })
	for seed := range cloudInitSeeds {
		in = append(in, splitInput{name: fmt.Sprintf("seed-%d", seed), user: generator.Generate(uint64(seed)).UserData})
	}
	return in
}

// splitLeaf is one part as userdata.Split reads it.
type splitLeaf struct {
	media    string
	format   userdata.Format
	filename string
	body     []byte
}

func (l splitLeaf) String() string {
	return fmt.Sprintf("%s (%s) filename %q %q", l.media, l.format, l.filename, l.body)
}

// splitLeaves reads user with userdata.Split, descending the nested
// multiparts Split lists whole (counted under exemption
// nested-multipart-listed-whole), and reports whether Split read it as
// MIME, and its problems.
func (tally *splitTally) splitLeaves(user []byte) (leaves []splitLeaf, isMIME bool, probs diag.List) {
	docs, probs := userdata.Split(diag.Source{URI: "file:///user-data"}, user)
	for _, d := range docs {
		if d.Source.ContentType == "" {
			continue // not MIME: one document sniffed by how it starts
		}
		isMIME = true
		if d.Boundary == "" {
			leaves = append(leaves, splitLeaf{media: d.Source.ContentType, format: d.Format, filename: d.Filename, body: d.Data})
			continue
		}
		tally.exempted[exemptNestedMultipart.id]++
		ct := mime.FormatMediaType(d.Source.ContentType, map[string]string{"boundary": d.Boundary})
		nested, _, nestedProbs := tally.splitLeaves(append([]byte("MIME-Version: 1.0\nContent-Type: "+ct+"\n\n"), d.Data...))
		leaves, probs = append(leaves, nested...), append(probs, nestedProbs...)
	}
	return leaves, isMIME, probs
}

// splitExemption is a documented difference between userdata.Split's
// reading of MIME user data and cloud-init's.
type splitExemption struct {
	id string
	// reason says why the readings differ (one line).
	reason string
	// doc is the file and a phrase of the text that records it.
	doc, docLine string
	// refusal, for a document Split refuses, is a phrase of its error.
	refusal string
}

// Exemptions of TestSplitReadsAsCloudInit. Anything else that differs is
// a failure.
var (
	// A document is read as MIME by Split, as one non-MIME part by cloud-init.
	exemptNoMIMEVersion = splitExemption{
		id:     "mime-without-mime-version",
		reason: "Split reads MIME from a first header block holding Content-Type; cloud-init only when \"mime-version:\" is in the first 4096 bytes",
		doc:    "internal/config/userdata/split.go", docLine: "non-blank line is a MIME-Version or Content-Type header is split as MIME",
	}
	exemptBase64UserData = splitExemption{
		id:     "base64-user-data",
		reason: "Split undoes base64 of the whole payload (as nodeadm does); cloud-init reads the base64 text as one part",
		doc:    "docs/user-data.md", docLine: "The whole payload may be base64 and/or gzip",
	}
	// A part's payload.
	exemptSniffedTransport = splitExemption{
		id:     "sniffed-base64-gzip-part",
		reason: "Split sniffs base64 and gzip in a part (as nodeadm does); cloud-init undoes only declared base64 and gzip media types",
		doc:    "docs/user-data.md", docLine: "so may each MIME part",
	}
	exemptUnencodedNonASCII = splitExemption{
		id:     "unencoded-non-ascii-garbled",
		reason: "cloud-init reads an unencoded part's UTF-8 text as ASCII and hands on its raw-unicode-escape bytes; Split keeps the bytes",
		doc:    "docs/userdata-generate.md", docLine: "reads an unencoded part as ASCII",
	}
	// A part's media type.
	exemptContentSniffing = splitExemption{
		id:     "content-typed-part",
		reason: "cloud-init retypes text/plain, text/x-shellscript and gunzipped parts by how they start; Split keeps the declared media type",
		doc:    "internal/config/userdata/detect.go", docLine: "classifies a text/plain MIME part the way cloud-init does",
	}
	exemptNestedMultipart = splitExemption{
		id:     "nested-multipart-listed-whole",
		reason: "Split lists a nested multipart as one document (its Boundary kept); the test descends it as cloud-init does",
		doc:    "docs/userdata-generate.md", docLine: "a nested multipart keeps its `boundary` parameter",
	}
	// Split refuses the document (nodeboot boots nothing from it), as nodeadm does; cloud-init reads it.
	exemptTruncatedPart = splitExemption{
		id:     "refused-truncated-last-part",
		reason: "a part running to the end of the data without a delimiter is an error for Split, as for nodeadm; cloud-init reads it",
		doc:    "docs/user-data.md", docLine: "may be truncated, and is an error, as it is for nodeadm",
		refusal: "not found by the end of the data",
	}
	exemptUnquotedBoundary = splitExemption{
		id:     "refused-unquoted-boundary-with-nodeconfig",
		reason: "an unquoted boundary=// is refused with a NodeConfig part (nodeadm cannot read it); cloud-init reads it",
		doc:    "docs/user-data.md", docLine: "has none (`boundary=//`) is read with a warning when the message holds only AL2 parts",
		refusal: "nodeadm cannot read this message",
	}
	// cloud-init reads one more part than Split.
	exemptEndsOnOpenDelimiter = splitExemption{
		id:     "ends-on-opening-delimiter",
		reason: "a message ending on an opening delimiter ends there for Split, as for Go's mime/multipart and nodeadm; cloud-init reads an empty last part",
		doc:    "docs/user-data.md", docLine: "A MIME message that ends on an opening delimiter",
	}
	splitExemptions = []splitExemption{exemptNoMIMEVersion, exemptBase64UserData, exemptSniffedTransport, exemptUnencodedNonASCII,
		exemptContentSniffing, exemptNestedMultipart, exemptTruncatedPart, exemptUnquotedBoundary, exemptEndsOnOpenDelimiter}
)

// splitTally counts what TestSplitReadsAsCloudInit compared and exempted.
type splitTally struct {
	docs, parts, notMIME int
	exempted             map[string]int
}

// TestSplitReadsAsCloudInit reads the user's documents of the cloud-init
// oracle (ciCases and the generated inputs) with userdata.Split and with
// the real cloud-init: for MIME user data, part by part, both must give
// the same payload bytes, the same filename and the same media type,
// except where an exemption (splitExemptions, each documented) covers the
// difference. Split's reading is what nodeboot's plans start from, so a
// Split bug is invisible to the tests that read nodeboot's output.
func TestSplitReadsAsCloudInit(t *testing.T) {
	t.Parallel()
	requireCloudInit(t)
	checkExemptionsDocumented(t)
	inputs := splitInputs(t)
	docs := make([][]byte, len(inputs))
	for i, in := range inputs {
		docs[i] = in.user
	}
	results := readByCloudInit(t, docs...)
	tally := splitTally{exempted: map[string]int{}}
	for i, in := range inputs {
		t.Run(in.name, func(t *testing.T) { tally.compare(t, in.user, results[i]) })
	}
	t.Logf("%d MIME documents, %d parts compared; %d documents not MIME for Split (not compared); exempted: %v", tally.docs, tally.parts, tally.notMIME, tally.exempted)
	if tally.docs < len(inputs)/2 {
		t.Errorf("only %d of %d documents compared", tally.docs, len(inputs))
	}
}

// compare checks Split's reading of user against cloud-init's (res).
func (tally *splitTally) compare(t *testing.T, user []byte, res ciResult) {
	leaves, isMIME, probs := tally.splitLeaves(user)
	if res.Error != "" {
		t.Fatalf("cloud-init fails on the user data: %s\n%q", res.Error, user)
	}
	if probs.HasErrors() {
		tally.refused(t, probs, user)
		return
	}
	asOne := readAsOnePart(user)
	if !isMIME {
		tally.notMIME++
		if asOne == nil {
			t.Errorf("Split reads one document that is not MIME, cloud-init reads MIME (%d parts)\n%q", len(res.Parts), user)
		}
		return
	}
	tally.docs++
	if asOne != nil {
		tally.exempted[asOne.id]++
		if len(res.Parts) != 1 || !bytes.Equal(res.Parts[0].Payload, gunzipped(user)) {
			t.Errorf("%s: cloud-init should read the user data as one part, reads %d parts\n%q", asOne.id, len(res.Parts), user)
		}
		return
	}
	tally.parts += len(leaves)
	if diff := tally.partDiff(leaves, res.Parts, endsOnOpenDelimiter(probs)); diff != "" {
		t.Errorf("Split's reading differs from cloud-init's:\n%s--- user data\n%q", diff, user)
	}
}

// refused checks that every error with which Split refuses user is one an
// exemption records (nodeadm refuses such user data too).
func (tally *splitTally) refused(t *testing.T, errs diag.List, user []byte) {
	for _, p := range errs {
		if p.Severity != diag.SeverityError {
			continue
		}
		i := slices.IndexFunc(splitExemptions, func(e splitExemption) bool {
			return e.refusal != "" && strings.Contains(p.Message, e.refusal)
		})
		if i < 0 {
			t.Errorf("Split refuses the user data, which cloud-init reads: %s\n%q", p.Message, user)
			continue
		}
		tally.exempted[splitExemptions[i].id]++
	}
}

// readAsOnePart is the exemption under which cloud-init reads user data
// Split reads as MIME as one non-MIME part, or nil: cloud-init reads MIME
// only when "mime-version:" is in the first 4096 bytes, gunzipped.
func readAsOnePart(user []byte) *splitExemption {
	head := gunzipped(user)
	head = head[:min(len(head), 4096)]
	switch {
	case bytes.Contains(bytes.ToLower(head), []byte("mime-version:")):
		return nil
	case base64Decoded(user) != nil:
		return &exemptBase64UserData
	}
	return &exemptNoMIMEVersion
}

// endsOnOpenDelimiter reports whether Split read a message that ends on an
// opening delimiter (it warns so).
func endsOnOpenDelimiter(probs diag.List) bool {
	return slices.ContainsFunc(probs, func(p diag.Problem) bool {
		return strings.Contains(p.Message, "with no part after it; read as the end of the message")
	})
}

// partDiff describes, part by part, how Split's leaves differ from
// cloud-init's parts beyond the exemptions ("" if not); endsOnOpen: the
// message ends on an opening delimiter.
func (tally *splitTally) partDiff(leaves []splitLeaf, parts []ciPart, endsOnOpen bool) string {
	var b strings.Builder
	if n := len(parts); endsOnOpen && n == len(leaves)+1 && len(parts[n-1].Payload) == 0 {
		tally.exempted[exemptEndsOnOpenDelimiter.id]++
		parts = parts[:n-1]
	}
	if len(leaves) != len(parts) {
		fmt.Fprintf(&b, "Split reads %d parts, cloud-init %d\n", len(leaves), len(parts))
	}
	for i := range max(len(leaves), len(parts)) {
		var s splitLeaf
		var c ciPart
		if i < len(leaves) {
			s = leaves[i]
		}
		if i < len(parts) {
			c = parts[i]
		}
		if what := tally.fieldDiffs(s, c); len(what) > 0 {
			fmt.Fprintf(&b, "part %d differs in %s:\n Split      %s\n cloud-init %s filename %q %q\n", i+1, strings.Join(what, ", "), s, c.ContentType, c.Filename, c.Payload)
		}
	}
	return b.String()
}

// fieldDiffs names the fields of one part in which the readings differ
// beyond the exemptions, counting the exemptions used.
func (tally *splitTally) fieldDiffs(s splitLeaf, c ciPart) []string {
	var what []string
	checks := []struct {
		field string
		same  bool
		e     *splitExemption
	}{
		{"payload", bytes.Equal(s.body, c.Payload), payloadExemption(s, c)},
		{"filename", s.filename == c.Filename || s.filename == "" && strings.HasPrefix(c.Filename, "part-"), nil},
		{"media type", s.media == mediaOf(c.ContentType), mediaExemption(s, c)},
	}
	for _, ch := range checks {
		switch {
		case ch.same:
		case ch.e != nil:
			tally.exempted[ch.e.id]++
		default:
			what = append(what, ch.field)
		}
	}
	return what
}

// payloadExemption is the exemption that covers a payload cloud-init
// reads otherwise than Split, or nil.
func payloadExemption(s splitLeaf, c ciPart) *splitExemption {
	raw := c.Payload
	if dec := base64Decoded(raw); dec != nil {
		raw = dec
	}
	switch {
	case bytes.Equal(gunzipped(raw), s.body):
		return &exemptSniffedTransport
	case !isASCII(s.body) && bytes.Equal(rawUnicodeEscape(s.body), c.Payload):
		return &exemptUnencodedNonASCII
	}
	return nil
}

// contentTypes are the media types cloud-init gives a part by how it
// starts (cloudinit.handlers.INCLUSION_TYPES_MAP), and the types it
// retypes so.
var (
	contentTypes = []string{"text/x-include-url", "text/x-include-once-url", "text/x-shellscript", "text/cloud-config",
		"text/part-handler", "text/cloud-boothook", "text/cloud-config-archive", "text/cloud-config-jsonp", "text/jinja2"}
	retyped = []string{"text/plain", "text/x-shellscript", "application/gzip", "application/x-gzip"}
)

// mediaExemption is the exemption that covers a media type cloud-init
// gives a part otherwise than Split, or nil.
func mediaExemption(s splitLeaf, c ciPart) *splitExemption {
	if slices.Contains(retyped, s.media) && slices.Contains(contentTypes, mediaOf(c.ContentType)) {
		return &exemptContentSniffing
	}
	return nil
}

// base64Decoded is b decoded, if it is all base64 (line breaks aside),
// else nil.
func base64Decoded(b []byte) []byte {
	s := strings.Join(strings.Fields(string(b)), "")
	dec, err := base64.StdEncoding.DecodeString(s)
	if err != nil || s == "" {
		return nil
	}
	return dec
}

// gunzipped is b inflated if it is gzip, else b.
func gunzipped(b []byte) []byte {
	if !userdata.IsGzip(b) {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return b
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return b
	}
	return out
}

// isASCII reports whether b is US-ASCII.
func isASCII(b []byte) bool {
	return !slices.ContainsFunc(b, func(c byte) bool { return c >= 0x80 })
}

// rawUnicodeEscape is UTF-8 text b as Python's email package hands on an
// unencoded part's text: str.encode("raw-unicode-escape").
func rawUnicodeEscape(b []byte) []byte {
	var out []byte
	for _, r := range string(b) {
		switch {
		case r < 0x100:
			out = append(out, byte(r))
		case r < 0x10000:
			out = fmt.Appendf(out, "\\u%04x", r)
		default:
			out = fmt.Appendf(out, "\\U%08x", r)
		}
	}
	return out
}

// checkExemptionsDocumented checks that every exemption names text that
// records it and gives a reason.
func checkExemptionsDocumented(t *testing.T) {
	t.Helper()
	for _, e := range splitExemptions {
		data, err := os.ReadFile("../../" + e.doc)
		switch {
		case err != nil:
			t.Errorf("%s: %v", e.id, err)
		case !strings.Contains(string(data), e.docLine):
			t.Errorf("%s: %s has no text %q", e.id, e.doc, e.docLine)
		case e.reason == "":
			t.Errorf("%s: no reason", e.id)
		}
	}
}
