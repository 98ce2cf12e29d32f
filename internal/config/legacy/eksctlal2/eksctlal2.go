// Package eksctlal2 reads the Amazon Linux 2 user data eksctl writes for a
// self-managed node group: a #cloud-config (eksctl gzips and base64-encodes
// it; package userdata undoes both) whose write_files hold
// /etc/eksctl/kubelet.env (the cluster, the group's labels, taints, max
// pods and cluster DNS address as KEY=value lines), /etc/eksctl/kubelet-extra.json
// (the group's kubeletExtraConfig) and eksctl's scripts, and whose runcmd
// runs /var/lib/cloud/scripts/eksctl/bootstrap.al2.sh.
//
// That script sources kubelet.env, calls /etc/eks/bootstrap.sh with the
// cluster name, --apiserver-endpoint, --b64-cluster-ca, --dns-cluster-ip,
// --container-runtime and --kubelet-extra-args "--node-labels=NODE_LABELS
// [--register-with-taints=NODE_TAINTS] [--max-pods=MAX_PODS]" (each flag
// only when its variable is set), then merges kubelet-extra.json into the
// kubelet config bootstrap.sh wrote (jq's recursive merge). Decode builds
// the same call, reads it with bootstrapsh.ParseArgs, and merges the
// kubelet config over it, except that a --max-pods the call passes stays
// (the kubelet's command line wins over its config file). The labels the
// script adds from instance metadata at boot (node-lifecycle,
// alpha.eksctl.io/instance-id) are not in the user data: Decode sets
// Spec.Kubelet.EksctlIMDSLabels, the agent reads instance-life-cycle for
// it, and the kubelet's renderer appends NodeLabels to the call's
// --node-labels, where the script appends them.
//
// eksctl v0.215.0 writes this layout (test/oracle/eksctl_boot_test.go runs
// the real eksctl's output through the agent). Any other cloud-config is
// not eksctl's: Found is false and nothing is reported.
package eksctlal2

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
	"sigs.k8s.io/yaml"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bootstrapsh"
	"github.com/nodeboot/nodeboot/internal/config/merge"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// FormatName is the diag.Source Format of what Decode reads.
const FormatName = "eksctl AL2 cloud-config"

// The paths of eksctl's AL2 layout.
const (
	EnvPath         = "/etc/eksctl/kubelet.env"
	ExtraConfigPath = "/etc/eksctl/kubelet-extra.json"
	ScriptPath      = "/var/lib/cloud/scripts/eksctl/bootstrap.al2.sh"
	HelperPath      = "/var/lib/cloud/scripts/eksctl/bootstrap.helper.sh"
)

// Labels eksctl's script adds from instance metadata at boot: the
// instance's instance-life-cycle and its instance ID.
const (
	LabelLifecycle  = "node-lifecycle"
	LabelInstanceID = "alpha.eksctl.io/instance-id"
)

// maxSize bounds the cloud-config read (user data is at most 16 KiB
// gzipped; unzipped, a generous bound).
const maxSize = 1 << 20

// Result is what eksctl's AL2 cloud-config says.
type Result struct {
	// Found is set when the document is eksctl's AL2 layout.
	Found bool
	// Spec is the node's configuration; with errors among the problems it
	// must not be applied. Its Kubelet.EksctlIMDSLabels is set when the
	// script adds LabelLifecycle and LabelInstanceID from instance metadata.
	Spec hub.Spec
}

// cloudConfig is the part of a #cloud-config eksctl's layout uses.
type cloudConfig struct {
	RunCmd     []any `json:"runcmd"`
	WriteFiles []struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	} `json:"write_files"`
}

// Decode reads doc as eksctl's AL2 cloud-config.
func Decode(doc userdata.Document) (Result, diag.List) {
	if len(doc.Data) > maxSize || !bytes.Contains(doc.Data, []byte(EnvPath)) {
		return Result{}, nil
	}
	var cc cloudConfig
	if err := yaml.Unmarshal(doc.Data, &cc); err != nil {
		return Result{}, nil // cloud-init's to read; not eksctl's layout
	}
	files := map[string]string{}
	for _, f := range cc.WriteFiles {
		files[f.Path] = f.Content
	}
	env, hasEnv := files[EnvPath]
	if !hasEnv || !runsScript(cc.RunCmd) {
		return Result{}, nil
	}
	src := doc.Source
	src.Format = FormatName
	src.Line = lineOf(doc, env)
	vars, err := readEnv(env)
	if err != nil {
		return Result{Found: true}, diag.List{errorAt(src, "", fmt.Sprintf("%s: %v", EnvPath, err))}
	}
	spec, problems := bootstrapsh.ParseArgs(bootstrapArgs(vars), src)
	extra, p := extraConfig(files[ExtraConfigPath], src)
	problems = append(problems, p...)
	spec, err = withExtraConfig(spec, extra)
	if err != nil {
		problems = append(problems, errorAt(src, "spec.kubelet.config", err.Error()))
	}
	spec.Kubelet.EksctlIMDSLabels = strings.Contains(files[HelperPath], "instance-life-cycle")
	return Result{Found: true, Spec: spec}, problems
}

// NodeLabels is what eksctl's script appends to NODE_LABELS from instance
// metadata, ",node-lifecycle=LIFECYCLE,alpha.eksctl.io/instance-id=ID"
// without its leading comma. A label whose value is empty is left out:
// the script would have failed before the kubelet started (see
// docs/user-data.md), the agent warns and boots without it.
func NodeLabels(st hub.InstanceStatus) string {
	var labels []string
	if st.Lifecycle != "" {
		labels = append(labels, LabelLifecycle+"="+st.Lifecycle)
	}
	if st.ID != "" {
		labels = append(labels, LabelInstanceID+"="+st.ID)
	}
	return strings.Join(labels, ",")
}

// runsScript reports whether a runcmd entry runs eksctl's AL2 script.
func runsScript(runcmd []any) bool {
	for _, c := range runcmd {
		switch c := c.(type) {
		case string:
			if strings.Contains(c, ScriptPath) {
				return true
			}
		case []any:
			if len(c) > 0 && fmt.Sprint(c[0]) == ScriptPath {
				return true
			}
		}
	}
	return false
}

// readEnv reads kubelet.env as bash's `source` assigns it: each line a
// NAME=value assignment, later ones seeing earlier ones. Anything else in
// the file is an error (eksctl writes nothing else).
func readEnv(content string) (map[string]string, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(content), EnvPath)
	if err != nil {
		return nil, err
	}
	vars := map[string]string{}
	cfg := &expand.Config{Env: expand.FuncEnviron(func(name string) string { return vars[name] })}
	for _, st := range f.Stmts {
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) > 0 || len(call.Assigns) == 0 {
			return nil, fmt.Errorf("line %d: not a NAME=value assignment", st.Pos().Line())
		}
		for _, a := range call.Assigns {
			if a.Value == nil {
				vars[a.Name.Value] = ""
				continue
			}
			v, err := expand.Literal(cfg, a.Value)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", a.Pos().Line(), err)
			}
			vars[a.Name.Value] = v
		}
	}
	return vars, nil
}

// bootstrapArgs is the bootstrap.sh call eksctl's script makes from the
// variables of kubelet.env (bootstrap.helper.sh's defaults applied).
func bootstrapArgs(v map[string]string) []string {
	extra := []string{"--node-labels=" + v["NODE_LABELS"]}
	if v["NODE_TAINTS"] != "" {
		extra = append(extra, "--register-with-taints="+v["NODE_TAINTS"])
	}
	if v["MAX_PODS"] != "" {
		extra = append(extra, "--max-pods="+v["MAX_PODS"])
	}
	runtime := v["CONTAINER_RUNTIME"]
	if runtime == "" {
		runtime = "dockerd"
	}
	args := []string{v["CLUSTER_NAME"],
		"--apiserver-endpoint", v["API_SERVER_URL"],
		"--b64-cluster-ca", v["B64_CLUSTER_CA"],
		"--dns-cluster-ip", v["CLUSTER_DNS"],
		"--kubelet-extra-args", strings.Join(extra, " "),
		"--container-runtime", runtime,
	}
	if v["ENABLE_LOCAL_OUTPOST"] != "" {
		args = append(args, "--enable-local-outpost", v["ENABLE_LOCAL_OUTPOST"])
	}
	if v["CLUSTER_ID"] != "" {
		args = append(args, "--cluster-id", v["CLUSTER_ID"])
	}
	return args
}

// extraConfig reads kubelet-extra.json (absent or empty: nothing).
func extraConfig(content string, src diag.Source) (map[string]json.RawMessage, diag.List) {
	if strings.TrimSpace(content) == "" {
		return nil, nil
	}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &cfg); err != nil {
		return nil, diag.List{errorAt(src, "spec.kubelet.config", fmt.Sprintf("%s is not a JSON object: %v", ExtraConfigPath, err))}
	}
	return cfg, nil
}

// withExtraConfig merges the kubelet config over the call's spec, as jq's
// `.[0] * .[1]` merges it over bootstrap.sh's kubelet-config.json; a
// --max-pods on the call's command line still wins.
func withExtraConfig(spec hub.Spec, extra map[string]json.RawMessage) (hub.Spec, error) {
	if len(extra) == 0 {
		return spec, nil
	}
	byFlag, hasFlag := spec.Kubelet.Config["maxPods"]
	merged, err := merge.Specs(spec, hub.Spec{Kubelet: hub.Kubelet{Config: extra}})
	if err != nil {
		return spec, err
	}
	if hasFlag {
		merged.Kubelet.Config["maxPods"] = byFlag
	}
	return merged, nil
}

// lineOf is the line of the user data on which content's first line
// stands (the document's first line when it cannot be found).
func lineOf(doc userdata.Document, content string) int {
	base := max(doc.Source.Line, 1)
	first, _, _ := strings.Cut(content, "\n")
	i := bytes.Index(doc.Data, []byte(first))
	if first == "" || i < 0 {
		return base
	}
	return base + bytes.Count(doc.Data[:i], []byte("\n"))
}

func errorAt(src diag.Source, field, msg string) diag.Problem {
	return diag.Problem{Severity: diag.SeverityError, Source: src, Field: field, Message: msg}
}
