// Package maxpods decides the kubelet's maxPods and kubeReserved values of an
// EC2 node, the way the AWS VPC CNI, AL2 bootstrap.sh, max-pods-calculator.sh
// and nodeadm do, with two deliberate fixes (#1698 and #2580 below).
//
// # Max pods (Compute)
//
// Precedence: a user's kubelet.config.maxPods ("user") wins over
// kubelet.maxPodsExpression ("expression"), which wins over the ENI formula
// ("formula"); when the instance type's network limits are unknown the value
// is the kubelet default 110 ("default").
//
// Standard formula (AL2 eni-max-pods.txt, nodeadm): ENIs × (IPv4 per ENI − 1)
// + 2, where ENIs are those of the default network card only (the first
// address of every ENI is the ENI's own, and 2 pods use host networking).
// m5.large: 3 × 9 + 2 = 29; p5.48xlarge: 2 × 49 + 2 = 100.
//
// Policy (max-pods-calculator.sh options, nodeboot extension of the config):
//   - MaxENIs > 0 limits the ENIs: ENIs = min(MaxENIs, default-card ENIs).
//   - CustomNetworking removes the primary ENI: ENIs − 1, floor 0 (m5.large
//     → 2 × 9 + 2 = 20).
//   - PrefixDelegation counts a /28 prefix (16 addresses) per secondary slot:
//     ENIs × ((IPv4 per ENI − 1) × 16) + 2 (m5.large → 434). It applies only
//     where the VPC CNI can use prefixes: Nitro instances and bare-metal types
//     (EC2 reports hypervisor "unknown" for metal, which is Nitro hardware; the
//     VPC CNI's IsPrefixDelegationSupported accepts both, while
//     max-pods-calculator.sh checks only "nitro"). Elsewhere it is ignored with
//     a warning.
//   - Cap applies the recommended ceiling: min(v, 250) above 30 vCPUs,
//     otherwise min(v, 110) (m5.large PD → 110, m5.8xlarge PD → 250). With an
//     unknown vCPU count (0) the ceiling is 110.
//
// Expression: a CEL expression (nodeadm's kubelet.maxPodsExpression) with int
// variables default_enis and ips_per_eni (raw table values) and max_pods (the
// standard value, not the policy value). Its result must convert to an int in
// (0, MaxInt32]: int, uint, double (truncated) and numeric strings do, as in
// nodeadm (CEL's int() conversion). Policy and Cap do not apply to it: the
// expression is the user's own formula. If it fails to compile or evaluate,
// Compute keeps the formula value and adds a warning, as nodeadm does, and
// also returns the error (wrapping ErrBadExpression) so validation can report
// it. With unknown limits the expression is not evaluated (nodeadm uses 110
// then too), only checked.
//
// Windows nodes use one ENI: WindowsMaxPods = IPv4 per ENI − 1 (m5.large → 9).
//
// # Reserved resources (KubeReserved)
//
// CPU, in millicores, from the total T = vCPUs × 1000: 6 % of 0–1000, 1 % of
// 1000–2000, 0.5 % of 2000–4000 and 0.25 % above 4000, each band computed as
// (min(T, end) − start) × pct×100 / 100 / 100 in integer arithmetic (AL2,
// nodeadm, Bottlerocket and Karpenter agree): 1 → 60m, 2 → 70m, 4 → 80m,
// 5 → 82m, 48 → 190m, 96 → 310m.
//
// Memory: 11 MiB × maxPods + 255 MiB, from the EFFECTIVE maxPods, i.e. the
// value the kubelet really gets, including a user's kubelet.config.maxPods.
// nodeadm uses its computed/expression value even when the user overrides
// maxPods (#1698): with expression "max_pods + 2" on m4.xlarge (60) and user
// maxPods 1, nodeadm reserves 915Mi, nodeboot 266Mi.
//
// Memory ceiling (#2580): prefix delegation and expressions can yield
// thousands of pods, and 11 MiB each would reserve most of a small node
// (m5.large PD: 434 pods → 5029Mi of 8Gi). When the node's memory is known,
// the reservation is limited to
//
//	max(25 % of node memory, 11 × min(maxPods, 110) + 255)
//
// The second term means nodes with at most 110 pods — every node sized by the
// standard formula's common cases and every capped policy — reserve exactly
// what AL2 and nodeadm reserve, however small the node (t3.nano: 4 pods →
// 299Mi of 512Mi). Only above 110 pods can the ceiling apply, and it never
// drops below the reservation of a 110-pod node (1465Mi). Large nodes are
// unaffected (m5.24xlarge: 737 pods → 8362Mi, well under 25 % of 384Gi).
// Ephemeral storage is always 1Gi.
//
// Expressions are compiled and evaluated with cel-go (package celexpr). Built
// with the celexec tag, as `make build` builds the node agent, this package
// does not link cel-go: it runs the nodeboot-cel helper (HelperName, next to
// the executable or in PATH) for each check and evaluation, so that nodes
// whose config has no expression never load cel-go's code and protobuf
// descriptors. Without the tag (tests, `go install`) cel-go runs in process.
//
// All functions are deterministic. The CEL environment is built on first use,
// never at package init, and the last successfully compiled (celexec: checked)
// expression is cached.
package maxpods
