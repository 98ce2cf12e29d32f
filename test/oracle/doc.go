// Package oracle tests nodeboot against the real nodeadm, built from its Go
// module at the version pinned in test/tools/nodeadm, and against the real
// cloud-init:
//
//   - every e2e case nodeadm ships in its module (test/e2e/cases/*, read
//     from the module cache at test time) runs through both agents, step by
//     step as the case's run.sh runs it, each agent on a node of its own
//     (internal/testing/isoroot); after every step the two nodes are
//     compared for what the kubelet, containerd and systemd will read
//     (internal/testing/nodeview), and nodeadm's own expectations are
//     checked on nodeadm's node, proving the harness reproduces its e2e
//     environment;
//   - generated user data, valid and near-valid (internal/testing/userdatagen),
//     runs through both: what nodeadm boots nodeboot must boot, what
//     nodeadm refuses nodeboot must refuse;
//   - the MIME user data `nodeboot userdata generate`, `merge` and
//     `convert` write is read by the real cloud-init (Debian's package,
//     through testdata/cloudinit_parts.py): its part handlers must get
//     the user's parts byte for byte, the generated ones as generated,
//     and nothing else (cloudinit_test.go).
//
// Every difference between the two nodes must be one of the deliberate
// differences in differences.go (each documented for users); any other is
// a failure. Needs root (make oracle); built with the oracle tag.
package oracle
