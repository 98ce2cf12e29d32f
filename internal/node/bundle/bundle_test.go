package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/inroot"
	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
	"github.com/nodeboot/nodeboot/internal/node/doctor"
	"github.com/nodeboot/nodeboot/internal/testing/pkitest"
)

// Secrets planted on the fake node.
const (
	bootstrapToken = "abcdef.0123456789abcdef"
	execToken      = "k8s-aws-v1.ZXhlYy1jcmVkZW50aWFsLXRva2VuLWZvci10aGUtYnVuZGxl"
	proxyPassword  = "Pr0xy-S3cret"
	awsSecret      = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

func write(t *testing.T, root, p, data string) {
	t.Helper()
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// fakeNode writes a node's files with secrets in every place they occur.
func fakeNode(t *testing.T, now time.Time) (root string, caPEM, keyPEM []byte) {
	root = t.TempDir()
	caPEM = pkitest.NewCA(t, "cluster-ca").PEM
	client := pkitest.SelfSigned(t, pkitest.Spec{CN: "system:node:node-1", DNS: []string{"node-1"}})
	clientCert, clientKey := client.CertPEM, client.KeyPEM
	keyPEM = clientKey
	old := now.Add(-48 * time.Hour).Format("0102 15:04:05.000000")
	recent := now.Add(-time.Minute).Format("0102 15:04:05.000000")
	for p, data := range map[string]string{
		"/etc/eks/kubelet/environment":                           "NODEADM_KUBELET_ARGS=--hostname-override=node-1 --kubeconfig=/var/lib/kubelet/kubeconfig\n",
		"/etc/kubernetes/pki/ca.crt":                             string(caPEM),
		"/var/lib/kubelet/bootstrap-kubeconfig":                  "users:\n- name: kubelet-bootstrap\n  user:\n    token: " + bootstrapToken + "\n",
		"/var/lib/kubelet/pki/kubelet-client-current.pem":        string(clientCert) + string(clientKey),
		"/etc/systemd/system.conf.d/environment.conf":            "[Manager]\nDefaultEnvironment=\"HTTPS_PROXY=http://ops:" + proxyPassword + "@proxy:3128\"\n",
		"/etc/systemd/system/kubelet.service.d/environment.conf": "[Service]\nEnvironment=\"AWS_SECRET_ACCESS_KEY=" + awsSecret + "\"\n",
		"/run/eks/nodeadm/config.json":                           `{"userSpec":{"identity":{"mode":"BootstrapToken","bootstrapToken":{"token":"` + bootstrapToken + `"}}}}`,
		"/var/log/kubelet.log":                                   "I" + old + " 1 a.go:1] yesterday\nE" + recent + " 1 a.go:1] \"Unauthorized\" token=\"" + execToken + "\"\n",
		"/var/lib/nodeboot/cluster-c.json":                       `{"endpoint":"https://10.0.0.1","certificateAuthority":"` + strings.ReplaceAll(string(caPEM), "\n", `\n`) + `"}`,
	} {
		write(t, root, p, data)
	}
	return root, caPEM, keyPEM
}

// unpack returns every archive entry by name.
func unpack(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string][]byte{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out[hdr.Name] = b
	}
}

func TestWrite(t *testing.T) {
	now := time.Now()
	root, caPEM, keyPEM := fakeNode(t, now)
	b := Bundle{
		Root: root, Since: time.Hour, Tool: "nodeboot test", Commands: failRunner{t},
		Report: func(context.Context) doctor.Report {
			return doctor.Report{Node: "node-1", Checks: []doctor.Result{{ID: doctor.CheckCredential, Verdict: doctor.Fail,
				Summary: "plugin failed", Evidence: []string{"its standard error: token " + execToken}}}}
		},
		UserData: func(context.Context) ([]userdata.Document, error) {
			return []userdata.Document{
				{Source: diag.Source{URI: "imds://user-data", Part: 1}, Format: userdata.FormatShell, Data: []byte("#!/bin/sh\nexport AWS_SECRET_ACCESS_KEY=" + awsSecret + "\n")},
				{Source: diag.Source{URI: "imds://user-data", Part: 2}, Format: userdata.FormatNodeConfig, Data: []byte("spec:\n  identity:\n    bootstrapToken:\n      token: " + bootstrapToken + "\n")},
			}, nil
		},
		FreeBytes: func(string) (uint64, error) { return 10 << 30, nil },
	}
	res, err := b.Write(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != filepath.Join(root, DefaultPath) {
		t.Errorf("written to %s", res.Path)
	}
	files := unpack(t, res.Path)
	// No secret anywhere in the archive, however it was stored.
	raw, _ := os.ReadFile(res.Path)
	for name, data := range files {
		for _, secret := range []string{bootstrapToken, execToken, proxyPassword, awsSecret, "PRIVATE KEY-----\nM", string(pemBody(keyPEM))} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds secret %q", name, secret)
			}
		}
	}
	if bytes.Contains(raw, []byte(bootstrapToken)) {
		t.Error("the compressed archive holds the bootstrap token")
	}
	if !bytes.Contains(files["nodeboot-logs/config/etc/kubernetes/pki/ca.crt"], pemBody(caPEM)) {
		t.Error("the cluster CA was not kept")
	}
	for _, name := range []string{"doctor/report.txt", "doctor/report.json", "logs/var/log/kubelet.log", "config/var/lib/kubelet/bootstrap-kubeconfig",
		"config/run/eks/nodeadm/config.json", "config/var/lib/kubelet/pki/kubelet-client-current.crt.txt", "config/var/lib/nodeboot/cluster-c.json",
		"config/etc/systemd/system/kubelet.service.d/environment.conf", "userdata/01-shell.txt", "userdata/02-NodeConfig.txt",
		"system/sysctls.txt", "manifest.json", "redactions.json"} {
		if _, ok := files[archiveDir+name]; !ok {
			t.Errorf("archive lacks %s", name)
		}
	}
	if log := string(files[archiveDir+"logs/var/log/kubelet.log"]); strings.Contains(log, "yesterday") || !strings.Contains(log, "Unauthorized") {
		t.Errorf("kubelet log window not applied:\n%s", log)
	}
	assertManifest(t, files)
}

func pemBody(p []byte) []byte {
	block, _ := pem.Decode(p)
	return bytes.TrimSpace(pem.EncodeToMemory(&pem.Block{Type: "X", Bytes: block.Bytes})[len("-----BEGIN X-----\n"):][:64])
}

func assertManifest(t *testing.T, files map[string][]byte) {
	t.Helper()
	var m Manifest
	if err := json.Unmarshal(files[archiveDir+"manifest.json"], &m); err != nil {
		t.Fatal(err)
	}
	if m.Node != "node-1" || m.Tool != "nodeboot test" || !strings.Contains(m.Logs, "no systemd journal") || len(m.Notes) == 0 ||
		m.Limits.CommandTimeout != "1m0s" || m.Limits.RunTimeout != "10m0s" || m.Limits.MinFreeBytes != DefaultMinFreeBytes {
		t.Errorf("manifest header %+v", m)
	}
	byName := map[string]Item{}
	for _, it := range m.Items {
		if it.Name != "" {
			byName[it.Name] = it
			if it.Size != len(files[it.Name]) {
				t.Errorf("%s: manifest size %d, archive %d", it.Name, it.Size, len(files[it.Name]))
			}
		}
		if it.Command != "" {
			t.Errorf("host command %q run under a scratch root", it.Command)
		}
	}
	if it := byName[archiveDir+"config/var/lib/kubelet/bootstrap-kubeconfig"]; it.Redactions != 1 || it.Source != "/var/lib/kubelet/bootstrap-kubeconfig" || it.Kind != KindConfig {
		t.Errorf("bootstrap kubeconfig item %+v", it)
	}
	if it := byName[archiveDir+"userdata/02-NodeConfig.txt"]; !strings.Contains(it.Source, "imds://user-data part 2") || it.Redactions == 0 {
		t.Errorf("user data item %+v", it)
	}
	var missing bool
	for _, it := range m.Items {
		missing = missing || it.Source == "/etc/containerd/config.toml" && it.Error == "not present"
	}
	if !missing {
		t.Error("an absent file is not listed as looked for")
	}
	var reds []Redaction
	if err := json.Unmarshal(files[archiveDir+"redactions.json"], &reds); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range reds {
		found = found || r.Item == archiveDir+"config/var/lib/kubelet/bootstrap-kubeconfig" && r.Line == 4 && r.Field == "token"
	}
	if !found {
		t.Errorf("redactions.json lacks the bootstrap kubeconfig's token: %+v", reds)
	}
}

// failRunner fails the test if a host command is run.
type failRunner struct{ t *testing.T }

func (f failRunner) Run(_ context.Context, c cmdrun.Cmd) cmdrun.Result {
	f.t.Errorf("ran %s under a scratch root", c)
	return cmdrun.Result{Err: errors.New("no")}
}

func TestWriteRefusesBelowTheFreeSpaceFloor(t *testing.T) {
	root := t.TempDir()
	b := Bundle{Root: root, Commands: failRunner{t}, FreeBytes: func(string) (uint64, error) { return 100 << 20, nil }}
	_, err := b.Write(context.Background())
	if !errors.Is(err, ErrLowSpace) || !strings.Contains(err.Error(), "100 MiB free") || !strings.Contains(err.Error(), "1024 MiB needed") {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "var")); err == nil {
		t.Error("something was written below the floor")
	}
}

func TestWriteLimits(t *testing.T) {
	root := t.TempDir()
	write(t, root, "/var/log/kubelet.log", strings.Repeat("I1122 line without a date in range\n", 100))
	write(t, root, "/etc/hosts", strings.Repeat("127.0.0.1 localhost\n", 100))
	b := Bundle{Root: root, Out: "/tmp/out/b.tgz", Commands: failRunner{t}, MaxItemBytes: 64, MaxTotalBytes: 100,
		FreeBytes: func(string) (uint64, error) { return 10 << 30, nil }}
	res, err := b.Write(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	files := unpack(t, res.Path)
	total := 0
	for name, data := range files {
		if !strings.HasSuffix(name, ".json") {
			total += len(data)
		}
	}
	// The item keeps the log's last 64 bytes: a cut line, masked whole (it
	// may be the end of a secret whose key was cut off), and a whole line.
	log := res.Manifest.Items[0]
	if total > 100 || !log.Truncated || log.Redactions != 1 || string(files[log.Name]) != "REDACTED\nI1122 line without a date in range\n" {
		t.Errorf("total %d, log item %+v: %q", total, log, files[log.Name])
	}
}

// scriptRunner answers host commands like a real host would.
type scriptRunner struct{ seen []string }

func (s *scriptRunner) Run(_ context.Context, c cmdrun.Cmd) cmdrun.Result {
	s.seen = append(s.seen, c.String())
	switch c.Name {
	case "journalctl":
		return cmdrun.Result{Stdout: []byte("2026-11-22T10:00:00.000000+0000 node kubelet[1]: Authorization: Bearer sekret-bearer-token\n")}
	case "iptables-save":
		return cmdrun.Result{ExitCode: 1, Stderr: []byte("iptables-save: permission denied")}
	case "crictl":
		return cmdrun.Result{ExitCode: -1, Err: errors.New("crictl: " + cmdrun.ErrNotInstalled.Error())}
	}
	return cmdrun.Result{Stdout: []byte(c.String() + " output\n")}
}

func TestHostCollectors(t *testing.T) {
	run := &scriptRunner{}
	b := Bundle{Commands: run, Root: "/"}.withDefaults()
	_, raw := tempSpools(t)
	r := &runner{b: b, raw: raw, now: time.Now(), since: time.Now().Add(-time.Hour)}
	for _, c := range collectors(true) {
		if !c.host {
			continue
		}
		c.run(context.Background(), r, func(p entry) {
			var data []byte
			if p.body != nil {
				data, _ = io.ReadAll(p.body)
			}
			switch {
			case p.command == "iptables-save" && (p.exitCode == nil || *p.exitCode != 1 || !strings.Contains(string(data), "--- standard error ---\niptables-save: permission denied")):
				t.Errorf("iptables item %+v: %q", p, data)
			case strings.HasPrefix(p.command, "crictl") && (p.err == nil || p.exitCode != nil):
				t.Errorf("crictl item %+v", p)
			case strings.HasPrefix(p.command, "journalctl") && !strings.Contains(p.command, "--since @"):
				t.Errorf("journal item without the window: %s", p.command)
			}
		})
	}
	seen := strings.Join(run.seen, "\n")
	for _, want := range []string{"journalctl --no-pager -o short-iso-precise --since @", "-u kubelet.service", "-u containerd.service", "-u nodeboot-run.service", " -k",
		"ps -eo pid,ppid,user,stat,etime,rss,comm", "ip route show table all", "ctr --address /run/containerd/containerd.sock -n k8s.io containers ls"} {
		if !strings.Contains(seen, want) {
			t.Errorf("no command with %q in:\n%s", want, seen)
		}
	}
}

func TestHasJournal(t *testing.T) {
	booted := t.TempDir()
	if err := os.MkdirAll(filepath.Join(booted, "run/systemd/system"), 0o755); err != nil {
		t.Fatal(err)
	}
	notBooted := t.TempDir() // a /var/log/journal directory alone is not a journal
	if err := os.MkdirAll(filepath.Join(notBooted, "var/log/journal"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		root string
		run  cmdrun.Runner
		want bool
	}{
		{"booted with systemd", booted, &scriptRunner{}, true},
		{"journalctl missing", booted, notInstalledRunner{}, false},
		{"not booted with systemd", notBooted, &scriptRunner{}, false},
	} {
		b := Bundle{Root: tc.root, Commands: tc.run}.withDefaults()
		if got := b.hasJournal(context.Background()); got != tc.want {
			t.Errorf("%s: hasJournal = %v", tc.name, got)
		}
	}
}

type notInstalledRunner struct{}

func (notInstalledRunner) Run(_ context.Context, c cmdrun.Cmd) cmdrun.Result {
	return cmdrun.Result{ExitCode: -1, Err: errors.New(c.Name + ": " + cmdrun.ErrNotInstalled.Error())}
}

// TestWriteTailCutAtALineStart keeps a log's end cut where a line starts,
// or just after lines the window drops: the first line kept is whole, so
// it is not masked as a cut line.
func TestWriteTailCutAtALineStart(t *testing.T) {
	now := time.Date(2026, 11, 28, 21, 0, 0, 0, time.UTC)
	line := "I1128 20:59:00.000000 1 ok.go:1\n" // 32 bytes: the 64-byte tail starts a line
	// A journal line whose cut end reads as a klog line before the window.
	old := "2026-11-28T10:00:00.000000+0000 node kubelet[1]: I1128 10:00:00.000000 1 old.go:1\n"
	for _, tc := range []struct {
		name, log, want string
		limit           int
	}{
		{"cut at a line start", strings.Repeat(line, 100), line + line, 64},
		{"cut line dropped by the window", strings.Repeat(old, 100) + line, line, 33 + 32},
		{"cut mid-line", strings.Repeat(line, 100) + "x", "REDACTED\n" + line + "x", 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, "/var/log/kubelet.log", tc.log)
			b := Bundle{Root: root, Out: "/tmp/out/b.tgz", Commands: failRunner{t}, MaxItemBytes: tc.limit, MaxTotalBytes: 1000, Since: time.Hour,
				Now: func() time.Time { return now }, FreeBytes: func(string) (uint64, error) { return 10 << 30, nil }}
			res, err := b.Write(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			log := res.Manifest.Items[0]
			if got := string(unpack(t, res.Path)[log.Name]); !strings.HasSuffix(got, tc.want) || strings.Count(got, "REDACTED") != strings.Count(tc.want, "REDACTED") {
				t.Errorf("log item %+v: %q, want it to end in %q", log, got, tc.want)
			}
		})
	}
}

// TestSpoolTailKnowsALineStart writes a command's output through the
// spool's tail (compacted as it grows) and checks that it says whether
// what it kept starts a line.
func TestSpoolTailKnowsALineStart(t *testing.T) {
	for _, tc := range []struct {
		limit int64
		want  bool
	}{{64, true}, {96, true}, {60, false}, {65, false}} {
		f, err := os.CreateTemp(t.TempDir(), "spool")
		if err != nil {
			t.Fatal(err)
		}
		s := &spool{f: f}
		if err := s.reset(tc.limit, true); err != nil {
			t.Fatal(err)
		}
		for range 50 {
			if _, err := s.Write([]byte("I1128 20:59:00.000000 1 ok.go:1\n")); err != nil {
				t.Fatal(err)
			}
		}
		kept, _ := io.ReadAll(s.reader())
		if int64(len(kept)) != tc.limit || !s.dropped || s.lineStart != tc.want {
			t.Errorf("limit %d: kept %q, dropped %v, lineStart %v, want %v", tc.limit, kept, s.dropped, s.lineStart, tc.want)
		}
		f.Close()
	}
}

// tempSpools opens a scratch directory as the bundle's root and the spools
// for raw command output in it; both are closed when the test ends.
func tempSpools(t *testing.T) (*inroot.Root, *spool) {
	t.Helper()
	dir, err := inroot.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dir.Close() })
	d, err := dir.Dir("/")
	if err != nil {
		t.Fatal(err)
	}
	raw, _, err := spools(d)
	if err != nil {
		t.Fatal(err)
	}
	return dir, raw
}
