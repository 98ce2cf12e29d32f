// Package kubeletflag is the one home of the rules for kubelet command-line
// flags: how the words reach the kubelet, how its flag parser reads them,
// and what a repeated flag ends up as. The agent's renderer, validation,
// the bootstrap.sh reader, converters, the merge preview and the doctor all
// call it; none keeps a copy.
//
// How flags reach the kubelet on nodeadm and nodeboot nodes: the items of
// kubelet.flags are joined with spaces into NODEADM_KUBELET_ARGS in an
// environment file, and systemd splits that value into words (SystemdWords)
// when it starts the kubelet. An item is therefore a flag only when it is
// one word after that split (NotOneWord), and the quotes of
// --node-labels="a=b" are gone by the time the kubelet sees it (Unquote).
//
// How the kubelet reads the words (spf13/pflag, as the kubelet sets it up;
// every rule here was checked against the real kubelet, see
// test/kubeletcompat):
//   - --name=value, or --name value: the next word is the value whatever it
//     looks like (--node-labels --v=2 sets node labels to "--v=2"), except
//     for boolean flags (IsBool), which take no separate value: a word after
//     one is a stray argument and the kubelet refuses to start.
//   - Names are normalised: --max_pods is --max-pods (Normalize).
//   - The only short flags are -v (-v 2, -v=2, -v2) and -h; -max-pods=5 is
//     an unknown shorthand, refused.
//   - -- ends the flags; any word after it, or any word that is not a flag,
//     is an unknown command, refused.
//   - A flag given twice: the last value wins (Value), except map and list
//     flags, which accumulate (Accumulates): --node-labels=a=b
//     --node-labels=c=d gives both labels, a later key replacing an earlier
//     one, keys and values trimmed of spaces, empty items skipped (Pairs);
//     --cluster-dns=a --cluster-dns=b gives both addresses.
package kubeletflag
