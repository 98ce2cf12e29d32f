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
//   - hand-written user data (handwritten_*_test.go), the forms people
//     write that neither the generator nor nodeadm's cases produce, runs
//     through both with the same rules, or shows one of the documented
//     outcome differences (one agent boots it, the other not);
//   - the MIME user data `nodeboot userdata generate`, `merge` and
//     `convert` write is read by the real cloud-init (Debian's package,
//     through testdata/cloudinit_parts.py): its part handlers must get
//     the user's parts byte for byte, the generated ones as generated,
//     and nothing else (cloudinit_test.go);
//   - the user data the real eksctl (its pkg/nodebootstrap, built by
//     test/e2e/scripts/build-eksctl.sh) writes for self-managed and
//     managed node groups of every Linux family is booted by nodeboot and
//     carries the group's settings onto the kubelet; AL2023's also
//     through nodeadm, to the same node (eksctl_boot_test.go);
//   - aws-auth ConfigMaps, named realistic and tricky ones
//     (awsauth_cases_test.go) and generated ones (awsauth_gen_test.go),
//     go through EKS's authenticator's own code (its EKSConfigMap backend,
//     ARN canonicalisation and mapping order, run as
//     test/tools/authenticator/awsauthoracle, built with that module's
//     pins) and through nodeboot's (internal/config/awsauth and `nodeboot
//     access check --role`): the same entries kept and dropped, the same
//     canonical ARNs, the same username and groups for every principal and
//     node role (awsauth_test.go; no root needed);
//   - username and group templates: the authenticator's real webhook
//     server (test/tools/authenticator/authserveroracle, in process, STS
//     and EC2 as local stubs over HTTPS) answers TokenReviews for 19
//     templated mappings × 12 callers with the user awsauth.Render
//     predicts, and `nodeboot access check`'s node verdicts match it
//     (awsauth_template_test.go; no root needed).
//
// Every difference between the two nodes must be one of the deliberate
// differences in differences.go (each documented for users); any other is
// a failure; likewise for aws-auth with awsAuthExempt. Needs root (make
// oracle); built with the oracle tag.
package oracle
