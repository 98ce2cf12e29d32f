// Package userdatagen generates user data for differential tests against
// nodeadm: valid and near-valid NodeConfig documents (YAML and JSON) with
// the fields nodeadm reads, kubelet flags in every spelling the kubelet's
// flag parser takes, unknown fields, and MIME messages of one to four parts
// in any order, with every boundary, line-ending, padding, preamble,
// epilogue, ending and transfer-encoding form Go's mime/multipart reader
// (nodeadm's) accepts, and some it does not. The same seed gives the same
// input.
package userdatagen

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Input is one generated user data document and the node it runs on.
type Input struct {
	// Name lists the choices made, for messages.
	Name string
	// UserData is the document.
	UserData []byte
	// KubeletVersion is the version the node's kubelet reports.
	KubeletVersion string
}

// Generator makes inputs; its CA is a real certificate.
type Generator struct {
	caPEM []byte
}

// New returns a generator whose documents carry caPEM (a PEM certificate)
// as the cluster CA.
func New(caPEM []byte) *Generator { return &Generator{caPEM: caPEM} }

// Generate returns the input for seed.
func (g *Generator) Generate(seed uint64) Input {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := &builder{r: r, g: g}
	kubelet := pick(r, "1.29.0", "1.31.4", "1.32.1", "1.33.0", "1.35.0")
	var data []byte
	switch n := r.IntN(10); {
	case n < 3:
		doc, format := b.nodeConfigDocument(b.plan(1)[0])
		b.note("single %s document", format)
		data = []byte(doc)
	default:
		data = b.mime()
	}
	return Input{Name: strings.Join(b.notes, "; "), UserData: data, KubeletVersion: kubelet}
}

// builder accumulates one input's choices.
type builder struct {
	r          *rand.Rand
	g          *Generator
	notes      []string
	hasCluster bool // a NodeConfig document with the cluster was made
}

func (b *builder) note(format string, args ...any) {
	b.notes = append(b.notes, fmt.Sprintf(format, args...))
}

func pick[T any](r *rand.Rand, options ...T) T { return options[r.IntN(len(options))] }

func (b *builder) chance(p float64) bool { return b.r.Float64() < p }

// mime builds a multipart message of one to four parts in random order.
func (b *builder) mime() []byte {
	boundary, quoted := b.boundary()
	eol := pick(b.r, "\n", "\n", "\r\n")
	var parts []string
	configs := 0
	for _, kind := range b.partKinds() {
		var p string
		switch kind {
		case "nodeconfig":
			p = b.nodeConfigPart(b.plan(0)[0], eol)
			configs++
		case "shell":
			p = b.textPart(pick(b.r, "text/x-shellscript", `text/x-shellscript; charset="us-ascii"`),
				"#!/bin/bash\nset -ex\necho \"hello from user data\" > /var/tmp/hello\n", eol)
		case "cloud-config":
			p = b.textPart("text/cloud-config", "#cloud-config\npackages:\n  - jq\n", eol)
		default:
			p = b.textPart("text/plain", "just some notes\n", eol)
		}
		parts = append(parts, p)
	}
	b.note("MIME, %d parts (%d NodeConfig), boundary %q (quoted %v), eol %q", len(parts), configs, boundary, quoted, eol)
	return []byte(b.assemble(parts, boundary, quoted, eol))
}

// partKinds picks one to four parts; most messages hold a NodeConfig.
func (b *builder) partKinds() []string {
	n := 1 + b.r.IntN(4)
	kinds := make([]string, n)
	for i := range kinds {
		kinds[i] = pick(b.r, "nodeconfig", "nodeconfig", "shell", "cloud-config", "text")
	}
	if !b.chance(0.1) {
		kinds[b.r.IntN(n)] = "nodeconfig"
	}
	return kinds
}

// boundary picks a boundary and whether the parameter is quoted: quoting
// is required for most of the characters RFC 2046 allows (tspecials), and
// an unquoted one that needs it is a near-valid input.
func (b *builder) boundary() (string, bool) {
	s := pick(b.r, "//", "==MYBOUNDARY==", "BOUNDARY", "MIMEBOUNDARY", "b1_"+b.word(12), "a'()+_,-./:=?", "===============123456789==")
	needsQuotes := strings.ContainsAny(s, `()<>@,;:\"/[]?= '`)
	quoted := needsQuotes || b.chance(0.5)
	if needsQuotes && b.chance(0.08) {
		quoted = false
	}
	return s, quoted
}

func (b *builder) word(n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	out := make([]byte, n)
	for i := range out {
		out[i] = letters[b.r.IntN(len(letters))]
	}
	return string(out)
}

// assemble writes the message around the parts.
func (b *builder) assemble(parts []string, boundary string, quoted bool, eol string) string {
	var w strings.Builder
	param := boundary
	if quoted {
		param = `"` + boundary + `"`
	}
	header := []string{"MIME-Version: 1.0", "Content-Type: multipart/mixed; boundary=" + param}
	if b.chance(0.3) {
		header[1] = pick(b.r, "content-type: multipart/mixed; boundary=", "Content-Type: multipart/mixed;\n boundary=") + param
	}
	if b.chance(0.2) {
		header = header[1:]
	} else if b.chance(0.3) {
		header[0], header[1] = header[1], header[0]
	}
	for _, h := range header {
		w.WriteString(strings.ReplaceAll(h, "\n", eol) + eol)
	}
	w.WriteString(eol)
	if b.chance(0.2) {
		w.WriteString("This is a multi-part message in MIME format." + eol + eol)
		b.note("preamble")
	}
	for _, p := range parts {
		w.WriteString("--" + boundary + b.padding() + eol + p)
	}
	b.ending(&w, boundary, eol)
	return w.String()
}

// padding is the transport padding RFC 2046 allows after a delimiter.
func (b *builder) padding() string {
	if b.chance(0.1) {
		return pick(b.r, " ", "\t", "  ")
	}
	return ""
}

// ending writes one of the endings seen in the field.
func (b *builder) ending(w *strings.Builder, boundary, eol string) {
	switch n := b.r.IntN(20); {
	case n < 12:
		w.WriteString("--" + boundary + "--" + b.padding() + eol)
	case n < 14:
		w.WriteString("--" + boundary + "--")
		b.note("no newline after the closing delimiter")
	case n < 16:
		w.WriteString("--" + boundary + "--" + eol + "epilogue text" + eol)
		b.note("epilogue")
	case n < 18:
		w.WriteString("--" + boundary + eol)
		b.note("ends on an opening delimiter")
	default:
		b.note("no closing delimiter")
	}
}

// textPart is a part that is not node configuration.
func (b *builder) textPart(contentType, body, eol string) string {
	return "Content-Type: " + contentType + eol + eol + strings.ReplaceAll(body, "\n", eol) + eol
}

// nodeConfigPart is a NodeConfig part, encoded one of the ways users and
// tools encode it.
func (b *builder) nodeConfigPart(doc docPlan, eol string) string {
	body, format := b.nodeConfigDocument(doc)
	ct := pick(b.r, "application/node.eks.aws", `application/node.eks.aws; charset="us-ascii"`, "application/node.eks.aws; charset=utf-8")
	headers := []string{"Content-Type: " + ct}
	if b.chance(0.15) {
		headers = append(headers, "MIME-Version: 1.0")
	}
	switch n := b.r.IntN(10); {
	case n == 0:
		headers = append(headers, "Content-Transfer-Encoding: base64")
		body = wrap(base64.StdEncoding.EncodeToString([]byte(body)), 76) + "\n"
		b.note("%s part, base64", format)
	case n == 1:
		body = base64.StdEncoding.EncodeToString(gzipped(body)) + "\n"
		b.note("%s part, gzip and base64 without a header", format)
	case n == 2:
		headers = append(headers, "Content-Transfer-Encoding: 7bit")
		b.note("%s part, 7bit", format)
	default:
		b.note("%s part", format)
	}
	return strings.Join(headers, eol) + eol + eol + strings.ReplaceAll(body, "\n", eol) + eol
}

func wrap(s string, width int) string {
	var lines []string
	for len(s) > width {
		lines = append(lines, s[:width])
		s = s[width:]
	}
	return strings.Join(append(lines, s), "\n")
}

func gzipped(s string) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte(s))
	w.Close()
	return buf.Bytes()
}
