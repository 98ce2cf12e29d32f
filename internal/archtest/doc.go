// Package archtest holds no code: its tests enforce the architecture the
// repository promises (README.md, docs/architecture.md): the floors below,
// and functions short enough to read (function_test.go).
//
//   - internal/config, the pure core: user data in, configuration out. It
//     imports only itself, the API types (api/...), internal/k8sapi and
//     internal/lazyregexp, and never os, os/exec, net, syscall or path/filepath (io/fs interfaces are fine: the caller opens the files).
//   - internal/author, operator tooling (generate, convert, provenance,
//     target, nodegroup, tomlwrite): the core and the API types, pure too.
//   - internal/node, what runs on the worker node; internal/aws, the AWS
//     clients; internal/inroot, file access under --root.
//   - internal/cluster, what runs against the cluster's API server.
//   - internal/cli and cmd/..., the wiring on top.
//
// No floor imports one above it, node and cluster never import each other,
// and nothing but the wiring imports internal/cli.
package archtest
