// Package bundle writes the node's support bundle: a tar.gz with the doctor
// report, the kubelet, containerd and nodeboot logs of a time window (from
// the journal when there is one, else from log files), the rendered
// configuration and the user data, system facts and the container
// runtime's state — every item redacted (package redact) — plus
// manifest.json (what was collected, how, how big, whether truncated) and
// redactions.json (what was masked where, never the secret).
//
// It is bounded: each command 60 s, the whole run 10 minutes, each item and
// the whole bundle in size, and it refuses to run when the file system it
// writes to is short of space. The default path is under /var/log, so the
// kubelet serves it: kubectl get --raw
// /api/v1/nodes/NODE/proxy/logs/support/nodeboot-logs.tar.gz.
package bundle
