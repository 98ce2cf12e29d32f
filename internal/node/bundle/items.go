package bundle

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/render/containerd"
	"github.com/nodeboot/nodeboot/internal/node/render/kubelet"
	"github.com/nodeboot/nodeboot/internal/node/render/system"
)

// Node paths of the nodeboot units and caches.
const (
	nodeadmConfigCache = "/run/eks/nodeadm/config.json"
	criSocket          = "/run/containerd/containerd.sock"
)

// configFiles are the rendered configuration and the agent's state, each
// collected redacted (the cluster CA stays: it is public).
var configFiles = []string{
	kubelet.EnvironmentPath, kubelet.ConfigPath, kubelet.KubeconfigPath, kubelet.BootstrapKubeconfigPath,
	kubelet.CACertPath, kubelet.CredentialProviderConfigPath, containerd.ConfigPath, containerd.BaseRuntimeSpecPath,
	system.ManagerEnvironmentPath, system.ResolvedDropInPath, "/etc/eks/kubelet-version.txt", "/etc/eks/containerd-version.txt",
	nodeadmConfigCache,
}

// configGlobs are directories of drop-ins and state.
var configGlobs = []string{
	kubelet.ConfigDir + "/*", "/etc/systemd/system/kubelet.service.d/*", "/etc/systemd/system/containerd.service.d/*",
	"/etc/systemd/system/nodeboot-*.service", "/etc/eks/nodeadm.d/*", "/var/lib/nodeboot/*",
}

// kubeletCerts are the kubelet's certificate files; only their
// certificates are collected, never the keys stored with them.
var kubeletCerts = []string{"kubelet-server-current.pem", "kubelet-client-current.pem"}

// logFiles are read when there is no journal (Node Log Query's paths).
var logFiles = []string{
	"/var/log/kubelet.log", "/var/log/kubelet/kubelet.log", "/var/log/containerd.log", "/var/log/containerd/containerd.log",
	"/var/log/nodeboot.log", "/var/log/cloud-init.log", "/var/log/cloud-init-output.log", "/var/log/messages", "/var/log/syslog",
}

// journalUnits are read from the journal when there is one.
var journalUnits = []string{"kubelet.service", "containerd.service", "nodeboot-config.service", "nodeboot-run.service", "cloud-final.service", "kernel"}

// systemFiles are system facts read as files.
var systemFiles = []string{"/proc/version", "/etc/os-release", "/proc/cmdline", "/proc/mounts", "/proc/meminfo", "/proc/loadavg",
	"/proc/uptime", "/proc/cgroups", "/etc/resolv.conf", "/etc/hosts", "/etc/hostname"}

// collectors lists everything a bundle holds, in archive order.
func collectors(journal bool) []collector {
	var cs []collector
	cs = append(cs, logCollectors(journal)...)
	cs = append(cs, configCollectors()...)
	cs = append(cs, systemCollectors()...)
	return append(cs, runtimeCollectors()...)
}

// logCollectors read the journal's units, or without one the log files.
func logCollectors(journal bool) []collector {
	var cs []collector
	if journal {
		for _, u := range journalUnits {
			cs = append(cs, journalCollector(u))
		}
		return cs
	}
	for _, p := range logFiles {
		cs = append(cs, logFile(p, "logs"+p))
	}
	return cs
}

// configCollectors read the rendered configuration and the agent's state,
// and the kubelet's certificates without their keys.
func configCollectors() []collector {
	var cs []collector
	for _, p := range configFiles {
		cs = append(cs, file(KindConfig, p, "config"+p))
	}
	for _, g := range configGlobs {
		cs = append(cs, glob(KindConfig, g, "config"))
	}
	for _, c := range kubeletCerts {
		cs = append(cs, generated(KindConfig, "config/var/lib/kubelet/pki/"+strings.TrimSuffix(c, ".pem")+".crt.txt", certificatesOnly("/var/lib/kubelet/pki/"+c)))
	}
	return cs
}

// systemCollectors read system facts from files and host commands.
func systemCollectors() []collector {
	var cs []collector
	for _, p := range systemFiles {
		cs = append(cs, file(KindSystem, p, "system"+p))
	}
	return append(cs,
		generated(KindSystem, "system/cgroup-version.txt", cgroupVersion),
		generated(KindSystem, "system/sysctls.txt", readSysctls),
		command(KindSystem, "system/uname.txt", "uname", "-a"),
		command(KindSystem, "system/df.txt", "df", "-h"),
		command(KindSystem, "system/df-inodes.txt", "df", "-i"),
		command(KindSystem, "system/ip-address.txt", "ip", "-d", "address"),
		command(KindSystem, "system/ip-route.txt", "ip", "route", "show", "table", "all"),
		command(KindSystem, "system/ip6-route.txt", "ip", "-6", "route", "show", "table", "all"),
		command(KindSystem, "system/ip-rule.txt", "ip", "rule"),
		command(KindSystem, "system/iptables.txt", "iptables-save"),
		command(KindSystem, "system/ip6tables.txt", "ip6tables-save"),
		command(KindSystem, "system/nftables.txt", "nft", "list", "ruleset"),
		// Process names only: command lines and environments hold secrets.
		command(KindSystem, "system/processes.txt", "ps", "-eo", "pid,ppid,user,stat,etime,rss,comm"),
		command(KindSystem, "system/failed-units.txt", "systemctl", "list-units", "--failed", "--no-pager"),
	)
}

// runtimeCollectors ask containerd (ctr) and the CRI (crictl).
func runtimeCollectors() []collector {
	return []collector{
		command(KindRuntime, "runtime/ctr-version.txt", "ctr", "--address", criSocket, "version"),
		command(KindRuntime, "runtime/ctr-plugins.txt", "ctr", "--address", criSocket, "plugins", "ls"),
		command(KindRuntime, "runtime/ctr-containers.txt", "ctr", "--address", criSocket, "-n", "k8s.io", "containers", "ls"),
		command(KindRuntime, "runtime/ctr-tasks.txt", "ctr", "--address", criSocket, "-n", "k8s.io", "tasks", "ls"),
		command(KindRuntime, "runtime/ctr-images.txt", "ctr", "--address", criSocket, "-n", "k8s.io", "images", "ls"),
		command(KindRuntime, "runtime/crictl-pods.txt", "crictl", "pods"),
		command(KindRuntime, "runtime/crictl-ps.txt", "crictl", "ps", "-a"),
		command(KindRuntime, "runtime/crictl-info.txt", "crictl", "info"),
	}
}

func journalCollector(unit string) collector {
	name := "logs/journal/" + strings.TrimSuffix(unit, ".service") + ".log"
	return journal(unit, name)
}

// maxCertFile bounds a certificate file read whole.
const maxCertFile = 1 << 20

// certificatesOnly summarises and copies the CERTIFICATE blocks of a PEM
// file, leaving every other block (the private key) out.
func certificatesOnly(nodePath string) func(r *runner) ([]byte, error) {
	return func(r *runner) ([]byte, error) {
		data, err := r.root.ReadFile(nodePath, maxCertFile)
		if err != nil {
			return nil, notPresent(err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "# certificates of %s (its private key is not collected)\n", nodePath)
		for {
			var block *pem.Block
			block, data = pem.Decode(data)
			if block == nil {
				break
			}
			if block.Type != "CERTIFICATE" {
				continue
			}
			if c, err := x509.ParseCertificate(block.Bytes); err == nil {
				names := append([]string{}, c.DNSNames...)
				for _, ip := range c.IPAddresses {
					names = append(names, ip.String())
				}
				fmt.Fprintf(&b, "# subject %s, issuer %s, valid %s to %s, names %s\n", c.Subject, c.Issuer,
					c.NotBefore.UTC().Format(time.RFC3339), c.NotAfter.UTC().Format(time.RFC3339), strings.Join(names, ", "))
			}
			b.Write(pem.EncodeToMemory(block))
		}
		return []byte(b.String()), nil
	}
}
