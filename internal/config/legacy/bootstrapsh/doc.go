// Package bootstrapsh reads Amazon Linux 2 user data that calls
// /etc/eks/bootstrap.sh and converts the call into a hub.Spec, giving every
// bootstrap.sh option its exact meaning (legacy-formats.md §A).
//
// # The shell script
//
// ParseScript reads a shell script without running any of it. The script
// is parsed as bash by mvdan.cc/sh/v3/syntax (lists, pipelines, && and ||,
// if/for/while/until/case, { }, ( ), functions, here-documents, quotes,
// escapes, line continuations and comments); nodeboot then walks the
// commands in execution order, tracking variables as bash would assign
// them:
//
//   - NAME=value, export/readonly/declare/typeset NAME=value, NAME+=value,
//     unset, set -a; values may use $NAME, ${NAME}, ${NAME:-default},
//     ${NAME-default}, ${NAME:=default} and ${NAME=default};
//   - a variable assigned inside if/for/while/until/case, a function, or
//     after && / ||, or set from a command substitution, read, an array…
//     has no known value; using it in the call is an error saying why;
//   - a variable the script never sets (one from the environment) is an
//     error when the call uses it without a default;
//   - unquoted expansions are split into words on blanks, and an empty one
//     vanishes, exactly as bash does (quoted parts of a default word, as
//     in ${NAME:-"a b"}, are not split);
//   - variables set by `source FILE` are unknown; known values are assumed
//     to survive it.
//
// A script that never names bootstrap.sh (nor one of the AL2 files whose
// edits are reported) is not read at all. User data is untrusted, so the
// work is bounded: a script over 128 KiB, or with more than 4,096 of the
// characters ( { [ ` ! ? ~ (each may open a nesting level of the parser),
// is an error when it names /etc/eks/bootstrap.sh and otherwise not read;
// variable expansion stops with one error once it has produced 1 MiB of
// text (X="$X$X" repeated doubles on every line); messages quote at most
// 60 bytes of a value; at most diag.MaxProblems problems are reported.
//
// The call is the command /etc/eks/bootstrap.sh (any spelling of that path),
// possibly behind sudo, env, exec, command, nohup, time, nice, bash or sh,
// or run with source/. . Its environment is the script's exported
// variables plus NAME=value prefixes, minus what sudo (without -E), env -i
// and exec -c clear: bootstrap.sh reads an absent option from its variable
// (USE_MAX_PODS, KUBELET_EXTRA_ARGS, …), so those count too.
//
// Errors: the call inside if/loops/case/functions or after && / ||; command
// substitution, arithmetic, positional parameters or unknown variables in
// its arguments; a call inside bash -c, eval, or a here-document or pipe
// fed to a shell; more than one call; a shell syntax error in a script
// that mentions bootstrap.sh. Warnings: the call in a pipeline, in the
// background, negated or followed by && / ||; a here-document given to the
// call; commands that edit bootstrap.sh or the AL2 kubelet and containerd
// files; wrappers nodeboot does not know;
// CRLF line endings. A script that never calls bootstrap.sh is not
// bootstrap.sh user data: Found is false and nothing is reported except
// about mentions of bootstrap.sh that look like missed calls.
//
// One edit of bootstrap.sh is understood: eksctl's max-pods sed patch
// (sed -i 's/KUBELET_EXTRA_ARGS=$2/KUBELET_EXTRA_ARGS="$2 FLAGS"/'
// /etc/eks/bootstrap.sh, in AL2 managed node groups' user data) is
// returned as Result.ExtraArgsPatch, and ParseScriptAfter appends FLAGS to
// the --kubelet-extra-args of a later document's call, as the patched
// bootstrap.sh does.
//
// Every problem carries the absolute line in the user data: the document's
// Source.Line plus the line in the script, minus one.
//
// # The command line
//
// ParseArgs reads the arguments as bootstrap.sh's option loop does: every
// option takes the next argument as its value (even one that starts with
// --, which is reported when it is itself an option), the first other
// argument is the cluster name, later ones are ignored (warning), the last
// of a repeated option wins (warning), and an empty value means the option
// is absent (bootstrap.sh applies its defaults with ${VAR:-default}).
// nodeboot is stricter where bootstrap.sh silently misbehaves (unknown
// options, with a "did you mean") and more lenient where it is safe
// (--flag=value, which bootstrap.sh takes as the cluster name, is read as
// the option with a warning).
//
// Mapping to hub.Spec: the cluster name, --apiserver-endpoint,
// --b64-cluster-ca (decoded), --service-ipv4-cidr/--service-ipv6-cidr
// (cluster.cidr; an IPv6 one wins and conflicts with --ip-family ipv4),
// --ip-family (lower-cased), --dns-cluster-ip (kubelet.config.clusterDNS,
// comma-separated; a piece that is no IP address, such as the empty one
// after a trailing comma, is left out with a warning, since the kubelet
// skips it and the AL2 node boots), --use-max-pods (maxPods.set; only "true" is true),
// --enable-local-outpost and --cluster-id, --local-disks (localStorage
// strategy raid0→RAID0, raid10→RAID10, mount→Mount, none→nothing) and
// --kubelet-extra-args: its words (see KubeletExtraArgs) become
// kubelet.flags in order, except --max-pods (kubelet.config.maxPods),
// --node-labels (merged into one flag, checked as the kubelet does) and
// --register-with-taints (the last one, checked); a value mentioning
// --reserved-cpus unsets systemReservedCgroup and kubeReservedCgroup in
// kubelet.config, as bootstrap.sh does. Endpoint, CA and CIDR stay empty
// when not given: discovery with eks:DescribeCluster happens later.
//
// Not expressible, reported as warnings naming the option:
// --pause-container-account/-version, --aws-api-retry-attempts,
// --containerd-config-file, --enable-docker-bridge true,
// --docker-config-json, --mount-bpf-fs false and PAUSE_CONTAINER_IMAGE.
// --container-runtime dockerd is an error.
package bootstrapsh
