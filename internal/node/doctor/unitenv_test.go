package doctor

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestUnitEnvironment builds kubelet.service's environment the way systemd
// does, from files placed the ways operators and AWS's own guides place
// them: a proxy in a drop-in other than nodeboot's, in an EnvironmentFile=
// (AWS's proxy guide: EnvironmentFile=/etc/environment), a drop-in of the
// same name in /run hidden by /etc, the type-wide service.d, and
// UnsetEnvironment=.
func TestUnitEnvironment(t *testing.T) {
	root := t.TempDir()
	for p, data := range map[string]string{
		"/etc/systemd/system.conf":                               "[Manager]\nDefaultEnvironment=\"HTTP_PROXY=http://default:3128\" LANG=C\n",
		"/etc/systemd/system.conf.d/10-env.conf":                 "[Manager]\nDefaultEnvironment=\"NO_PROXY=from-manager\"\n",
		"/usr/lib/systemd/system/kubelet.service":                "[Unit]\nDescription=kubelet\n[Service]\nEnvironment=FROM_FRAGMENT=1 \"NO_PROXY=from-fragment\"\nExecStart=/usr/bin/kubelet\n",
		"/etc/systemd/system/kubelet.service.d/10-nodeboot.conf": "[Service]\nEnvironment=\"AWS_REGION=us-west-2\"\n",
		"/etc/systemd/system/kubelet.service.d/http-proxy.conf":  "[Service]\nEnvironmentFile=/etc/environment\nEnvironmentFile=-/etc/sysconfig/optional-missing\n",
		"/run/systemd/system/kubelet.service.d/http-proxy.conf":  "[Service]\nEnvironment=HIDDEN=1\n",
		"/usr/lib/systemd/system/service.d/50-all.conf":          "[Service]\nEnvironment=ALL_SERVICES=yes\n",
		"/etc/systemd/system/kubelet.service.d/zz-unset.conf":    "[Service]\nUnsetEnvironment=LANG\nEnvironment=\\\n  \"CONTINUED=a b\"\n",
		"/etc/environment": "# AWS guide\nHTTPS_PROXY=http://proxy.internal:3128\nNO_PROXY=\"localhost,127.0.0.1,169.254.169.254,.internal\"\nexport_ignored\n",
	} {
		write(t, root, p, data)
	}
	env := unitEnvironment(Files{Root: root}, "kubelet.service")
	want := map[string]string{
		"PATH": systemdDefaultPath, "HTTP_PROXY": "http://default:3128", "FROM_FRAGMENT": "1", "AWS_REGION": "us-west-2",
		"ALL_SERVICES": "yes", "HTTPS_PROXY": "http://proxy.internal:3128", "NO_PROXY": "localhost,127.0.0.1,169.254.169.254,.internal",
		"CONTINUED": "a b",
	}
	got := map[string]string{}
	for k, v := range env.Vars {
		got[k] = v.Value
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("environment\n got %q\nwant %q", got, want)
	}
	if src := env.Vars["HTTPS_PROXY"].Source; src != "/etc/environment (EnvironmentFile= in /etc/systemd/system/kubelet.service.d/http-proxy.conf)" {
		t.Errorf("HTTPS_PROXY source %q", src)
	}
	wantFiles := []string{"/usr/lib/systemd/system/kubelet.service", "/etc/systemd/system/kubelet.service.d/10-nodeboot.conf",
		"/usr/lib/systemd/system/service.d/50-all.conf", "/etc/systemd/system/kubelet.service.d/http-proxy.conf", "/etc/systemd/system/kubelet.service.d/zz-unset.conf"}
	if !reflect.DeepEqual(env.Files, wantFiles) {
		t.Errorf("files %q, want %q", env.Files, wantFiles)
	}
	if len(env.Problems) != 0 {
		t.Errorf("problems %q", env.Problems)
	}

	write(t, root, "/etc/systemd/system/kubelet.service.d/http-proxy.conf", "[Service]\nEnvironmentFile=/etc/sysconfig/kubelet-proxy\n")
	env = unitEnvironment(Files{Root: root}, "kubelet.service")
	if len(env.Problems) != 1 || !strings.Contains(env.Problems[0], "EnvironmentFile=/etc/sysconfig/kubelet-proxy") {
		t.Errorf("a missing required EnvironmentFile= is not a problem: %q", env.Problems)
	}
}

// TestStaleProxyOfARunningKubelet: a proxy added to (or changed in) the
// kubelet's unit without a restart is not the running kubelet's, and the
// evidence says the next start will use it.
func TestStaleProxyOfARunningKubelet(t *testing.T) {
	root := t.TempDir()
	write(t, root, "/var/lib/kubelet/kubeconfig", "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://api.cluster.test\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {}\n")
	unitEnv := ServiceEnv{Vars: map[string]EnvVar{"HTTPS_PROXY": {Value: "http://proxy.internal:3128", Source: "/etc/environment"}}}
	cases := []struct {
		name    string
		process map[string]string
		stale   []string
	}{
		{name: "not restarted since the proxy was added", process: map[string]string{"PATH": systemdDefaultPath}, stale: []string{"HTTPS_PROXY"}},
		{name: "restarted", process: map[string]string{"HTTPS_PROXY": "http://proxy.internal:3128"}},
		{name: "proxy changed since", process: map[string]string{"HTTPS_PROXY": "http://old:3128", "NO_PROXY": "x"}, stale: []string{"HTTPS_PROXY", "NO_PROXY"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := KubeletFacts{Kubeconfig: "/var/lib/kubelet/kubeconfig", UnitEnv: unitEnv, PID: 42, ProcessEnv: tc.process}
			c := kubeletConnection(Files{Root: root}, k)
			if c.Err != nil {
				t.Fatal(c.Err)
			}
			if !reflect.DeepEqual(c.StaleProxyVars, tc.stale) {
				t.Errorf("stale %q, want %q", c.StaleProxyVars, tc.stale)
			}
			ev := proxyEvidence(EndpointEvidence{Conn: c, Host: "api.cluster.test"})
			if got := strings.Contains(ev, "restart the kubelet"); got != (len(tc.stale) > 0) {
				t.Errorf("evidence %q", ev)
			}
		})
	}
}

// TestUnitEnvironmentSystemdRules: what systemd does with the usual ways
// of writing a proxy into kubelet.service, each checked against the real
// systemd by test/oracle's TestUnitEnvironmentReadsAsSystemd.
func TestUnitEnvironmentSystemdRules(t *testing.T) {
	const unit = "/usr/lib/systemd/system/kubelet.service"
	const dropIn = "/etc/systemd/system/kubelet.service.d/http-proxy.conf"
	cases := []struct {
		name  string
		files map[string]string
		want  map[string]string // variables checked ("" for unset)
	}{
		{name: "percent-encoded password: an unknown specifier drops the assignment",
			files: map[string]string{dropIn: "[Service]\nEnvironment=\"HTTPS_PROXY=http://ops:p%40ss@proxy:3128\" \"HTTP_PROXY=http://ops:p%%40ss@proxy:3128\"\n"},
			want:  map[string]string{"HTTPS_PROXY": "", "HTTP_PROXY": "http://ops:p%40ss@proxy:3128"}},
		{name: "empty Environment= resets the unit's earlier ones",
			files: map[string]string{unit: "[Service]\nEnvironment=HTTPS_PROXY=http://old:1 KEEP=no\n", dropIn: "[Service]\nEnvironment=\nEnvironment=NO_PROXY=.internal\n"},
			want:  map[string]string{"HTTPS_PROXY": "", "KEEP": "", "NO_PROXY": ".internal"}},
		{name: "continuation with a comment line inside",
			files: map[string]string{dropIn: "[Service]\nEnvironment=\"HTTPS_PROXY=http://p:3128\" \\\n# the exemptions\n  \"NO_PROXY=a,b\"\n"},
			want:  map[string]string{"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "a,b"}},
		{name: "a bad escape ignores the rest of the line",
			files: map[string]string{dropIn: "[Service]\nEnvironment=HTTPS_PROXY=http://p:3128 CA=C:\\certs NO_PROXY=.internal\n"},
			want:  map[string]string{"HTTPS_PROXY": "http://p:3128", "CA": "", "NO_PROXY": ""}},
		{name: "escapes outside quotes",
			files: map[string]string{dropIn: "[Service]\nEnvironment=NO_PROXY=a,\\x2einternal\n"},
			want:  map[string]string{"NO_PROXY": "a,.internal"}},
		{name: "UnsetEnvironment= applies after EnvironmentFile=",
			files: map[string]string{dropIn: "[Service]\nUnsetEnvironment=http_proxy\nEnvironmentFile=/etc/environment\n", "/etc/environment": "http_proxy=http://p:3128\nHTTPS_PROXY=http://p:3128\n"},
			want:  map[string]string{"http_proxy": "", "HTTPS_PROXY": "http://p:3128"}},
		{name: "EnvironmentFile= glob reads every match in order",
			files: map[string]string{dropIn: "[Service]\nEnvironmentFile=/etc/kubelet.d/*.env\n", "/etc/kubelet.d/10-proxy.env": "HTTPS_PROXY=http://a:1\nNO_PROXY=x\n", "/etc/kubelet.d/20-proxy.env": "HTTPS_PROXY=http://b:2\n"},
			want:  map[string]string{"HTTPS_PROXY": "http://b:2", "NO_PROXY": "x"}},
		{name: "invalid names are dropped, in environment files too",
			files: map[string]string{dropIn: "[Service]\nEnvironment=no-proxy=x\nEnvironmentFile=/etc/environment\n", "/etc/environment": "https.proxy=y\n"},
			want:  map[string]string{"no-proxy": "", "https.proxy": ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if _, ok := tc.files[unit]; !ok {
				tc.files[unit] = "[Service]\nExecStart=/usr/bin/kubelet\n"
			}
			for p, data := range tc.files {
				write(t, root, p, data)
			}
			env := unitEnvironment(Files{Root: root}, "kubelet.service")
			for k, want := range tc.want {
				if got := env.Get(k); got != want {
					t.Errorf("%s = %q, want %q (environment %q)", k, got, want, env.List())
				}
			}
		})
	}
}

// TestIgnoredAssignmentsNamed: what systemd ignores is listed with its
// file and why, a password masked.
func TestIgnoredAssignmentsNamed(t *testing.T) {
	root := t.TempDir()
	write(t, root, "/usr/lib/systemd/system/kubelet.service", "[Service]\nEnvironment=\"HTTPS_PROXY=http://ops:p%40ss@proxy:3128\"\nEnvironmentFile=etc/environment\n")
	env := unitEnvironment(Files{Root: root}, "kubelet.service")
	all := strings.Join(env.Ignored, "\n")
	for _, want := range []string{"kubelet.service Environment=HTTPS_PROXY=http://ops:xxxxx@proxy:3128: unknown specifier %4", "%%", "EnvironmentFile=etc/environment: not an absolute path"} {
		if !strings.Contains(all, want) {
			t.Errorf("ignored lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "p%40ss") {
		t.Errorf("the password shows:\n%s", all)
	}
}

// TestIgnoredProxyShownInEvidence: a proxy systemd drops (a
// percent-encoded password) is named in the API endpoint's evidence, not
// silently taken as set.
func TestIgnoredProxyShownInEvidence(t *testing.T) {
	root := t.TempDir()
	write(t, root, "/var/lib/kubelet/kubeconfig", "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://api.cluster.test\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {}\n")
	write(t, root, "/etc/systemd/system/kubelet.service.d/http-proxy.conf", "[Service]\nEnvironment=\"HTTPS_PROXY=http://ops:p%40ss@proxy:3128\"\n")
	k := KubeletFacts{Kubeconfig: "/var/lib/kubelet/kubeconfig", UnitEnv: unitEnvironment(Files{Root: root}, "kubelet.service")}
	c := kubeletConnection(Files{Root: root}, k)
	r := endpointVerdict(EndpointEvidence{Conn: c, Host: "api.cluster.test", ProxyErr: errors.New("stop here")}, time.Now())
	ev := strings.Join(r.Evidence, "\n")
	if len(c.ProxyVars) != 0 || !strings.Contains(ev, "systemd ignores or fails on /etc/systemd/system/kubelet.service.d/http-proxy.conf Environment=HTTPS_PROXY=http://ops:xxxxx@proxy:3128: unknown specifier %4") {
		t.Errorf("proxy vars %v; evidence:\n%s", c.ProxyVars, ev)
	}
}
