package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/author/nodegroup"
	"github.com/nodeboot/nodeboot/internal/author/provenance"
	"github.com/nodeboot/nodeboot/internal/author/target"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/node/agent"
)

// Commands of the userdata group.
const (
	CmdUserDataGenerate = "userdata generate"
	CmdUserDataMerge    = "userdata merge"
)

// UserDataOptions are the options of `userdata generate|merge` and of
// config check's target checks.
type UserDataOptions struct {
	// NodeGroup is the NodeGroup file (-f, or --node-group for config check).
	NodeGroup string
	// Family is the AMI family; Producer who writes the user data.
	Family, Producer string
	// Target is config check's --target.
	Target string
	// UserData are generate's --user-data files.
	UserData []string
	// UserDataOut is where merge writes the merged user data.
	UserDataOut string
}

// errOverrides is returned by merge --strict when a user value is overridden.
var errOverrides = errors.New("user settings are overridden (see the warnings above); --strict makes that an error")

func parseUserData(args []string) (Invocation, error) {
	if len(args) == 0 {
		return Invocation{}, fmt.Errorf("%w: userdata needs a subcommand: generate or merge", ErrUsage)
	}
	inv := Invocation{Output: "text"}
	switch args[0] {
	case "generate":
		inv.Command = CmdUserDataGenerate
	case "merge":
		inv.Command = CmdUserDataMerge
	default:
		return inv, fmt.Errorf("%w: unknown userdata subcommand %q (want generate or merge)", ErrUsage, args[0])
	}
	fs := newFlagSet(inv.Command)
	o := &inv.UserData
	fs.StringVarP(&o.NodeGroup, "file", "f", "", "NodeGroup file (nodeboot.io/v1alpha1)")
	fs.StringVar(&o.Family, "family", "", "AMI family: "+joinNames(generate.Families()))
	fs.StringVar(&o.Producer, "as", string(generate.ProducerEKS), "producer: "+joinNames(generate.Producers()))
	if inv.Command == CmdUserDataGenerate {
		fs.StringArrayVar(&o.UserData, "user-data", nil, "the user's own user data to merge in, as the producer does (repeatable)")
	} else {
		fs.BoolVar(&inv.Strict, "strict", false, "exit 1 when the generated part overrides a user setting")
		fs.StringVarP(&inv.Output, "output", "o", "text", "report format: text|json")
		fs.StringVar(&o.UserDataOut, "user-data-out", "", "also write the merged user data to this file")
	}
	fs.BoolVarP(&inv.Verbose, "verbose", "v", false, "debug logging")
	if err := fs.Parse(args[1:]); err != nil {
		return inv, fmt.Errorf("%w: %s %v", ErrUsage, inv.Command, err)
	}
	inv.Args = fs.Args()
	switch {
	case o.NodeGroup == "":
		return inv, fmt.Errorf("%w: %s needs -f NODEGROUP.yaml", ErrUsage, inv.Command)
	case inv.Command == CmdUserDataGenerate && len(inv.Args) > 0:
		return inv, fmt.Errorf("%w: generate takes no arguments, got %q (pass the user's own user data with --user-data)", ErrUsage, inv.Args)
	case inv.Command == CmdUserDataMerge && len(inv.Args) == 0:
		return inv, fmt.Errorf("%w: merge needs at least one USER_PART file (or - for standard input)", ErrUsage)
	case inv.Output != "text" && inv.Output != "json":
		return inv, fmt.Errorf("%w: -o %q: want text or json", ErrUsage, inv.Output)
	}
	if err := checkFamilyProducer(o.Family, o.Producer, inv.Command); err != nil {
		return inv, err
	}
	return inv, nil
}

// checkFamilyProducer refuses unknown names; merge previews only the
// producers that merge (eksctl writes everything itself).
func checkFamilyProducer(family, producer, command string) error {
	if _, err := generate.ParseFamily(family); err != nil {
		return fmt.Errorf("%w: --family: %v", ErrUsage, err)
	}
	p, err := generate.ParseProducer(producer)
	if err != nil {
		return fmt.Errorf("%w: --as: %v", ErrUsage, err)
	}
	if command == CmdUserDataMerge && p == generate.ProducerEksctl {
		return fmt.Errorf("%w: merge --as eksctl: eksctl merges no user data; use --as eks or --as karpenter", ErrUsage)
	}
	return nil
}

// addTargetFlags adds config check's target options.
func addTargetFlags(inv *Invocation, fs interface {
	StringVar(p *string, name, value, usage string)
}) {
	fs.StringVar(&inv.UserData.Target, "target", "", "check against what consumes the user data: "+joinNames(target.Targets()))
	fs.StringVar(&inv.UserData.Family, "family", "", "AMI family for --target: "+joinNames(generate.Families()))
	fs.StringVar(&inv.UserData.NodeGroup, "node-group", "", "NodeGroup file the user data is for (--target: overrides with their values)")
}

// checkTargetFlags validates config check's target options.
func checkTargetFlags(o UserDataOptions) error {
	switch {
	case o.Target == "" && (o.Family != "" || o.NodeGroup != ""):
		return fmt.Errorf("%w: --family and --node-group go with --target", ErrUsage)
	case o.Target == "":
		return nil
	case o.Family == "":
		return fmt.Errorf("%w: --target needs --family", ErrUsage)
	}
	if _, err := target.Parse(o.Target); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if _, err := generate.ParseFamily(o.Family); err != nil {
		return fmt.Errorf("%w: --family: %v", ErrUsage, err)
	}
	return nil
}

func joinNames[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, "|")
}

// readNodeGroup reads and checks the NodeGroup file, printing problems.
func readNodeGroup(path string, stderr io.Writer) (v1alpha1.NodeGroup, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return v1alpha1.NodeGroup{}, err
	}
	abs, _ := filepath.Abs(path)
	d, problems := nodegroup.Read("file://"+abs, data)
	for _, p := range problems {
		fmt.Fprintln(stderr, p.String())
	}
	if problems.HasErrors() {
		return v1alpha1.NodeGroup{}, diag.ErrInvalidConfig
	}
	return d.Group, nil
}

// readUserDocs reads the user's files (or - for standard input) in order.
func readUserDocs(paths []string, stdin io.Reader, stderr io.Writer) ([]userdata.Document, error) {
	var docs []userdata.Document
	var problems diag.List
	for _, p := range paths {
		data, uri, err := readInput(p, stdin)
		if err != nil {
			return nil, err
		}
		d, probs := userdata.Split(diag.Source{URI: uri}, data)
		docs = append(docs, d...)
		problems = append(problems, probs...)
	}
	for _, p := range problems {
		fmt.Fprintln(stderr, p.String())
	}
	if problems.HasErrors() {
		return nil, diag.ErrInvalidConfig
	}
	return docs, nil
}

// generateInput reads everything generate and merge need.
func generateInput(inv Invocation, env Env, userFiles []string) (generate.Input, error) {
	o := inv.UserData
	group, err := readNodeGroup(o.NodeGroup, env.Stderr)
	if err != nil {
		return generate.Input{}, err
	}
	docs, err := readUserDocs(userFiles, env.Stdin, env.Stderr)
	if err != nil {
		return generate.Input{}, err
	}
	f, _ := generate.ParseFamily(o.Family)
	p, _ := generate.ParseProducer(o.Producer)
	return generate.Input{Group: group, Family: f, Producer: p, User: docs}, nil
}

// runUserDataGenerate prints the user data; notes go to stderr.
func runUserDataGenerate(inv Invocation, env Env) error {
	in, err := generateInput(inv, env, inv.UserData.UserData)
	if err != nil {
		return err
	}
	out, err := generate.Generate(in)
	if err != nil {
		return err
	}
	if err := checkOutput(in, out.UserData, env.Stderr); err != nil {
		return err
	}
	for _, n := range out.Notes {
		fmt.Fprintln(env.Stderr, "note: "+n)
	}
	_, err = env.Stdout.Write(out.UserData)
	return err
}

// outputTarget is the target whose checks apply to what a producer writes.
var outputTarget = map[generate.Producer]target.Target{
	generate.ProducerEKS:       target.EKSManaged,
	generate.ProducerKarpenter: target.Karpenter,
	generate.ProducerEksctl:    target.SelfManaged,
}

// checkOutput checks the user data generate or merge wrote, before it is
// printed, as config check --target checks user data: decoded, merged and
// validated as a node reads it, and its parts as the producer's target
// takes them. Its errors are printed and fail the command (nothing is
// printed then); warnings about our own output are not. User data nodeboot
// does not boot is not checked: Windows PowerShell, and eksctl's AL2
// cloud-config, which runs bootstrap.sh itself.
func checkOutput(in generate.Input, data []byte, stderr io.Writer) error {
	if in.Family == generate.FamilyWindows || (in.Producer == generate.ProducerEksctl && in.Family == generate.FamilyAL2) {
		return nil
	}
	const uri = "generated user data"
	a := &agent.Agent{Expressions: newExpressionEvaluator()}
	rep := a.CheckUserData(uri, data, agent.WithChecker(func(docs []userdata.Document) diag.List {
		return target.Check(docs, outputTarget[in.Producer], in.Family, nil)
	}))
	if rep.Valid {
		return nil
	}
	for _, p := range rep.Problems {
		if p.Severity == diag.SeverityError {
			fmt.Fprintln(stderr, "the user data this command wrote fails its own check: "+p.String())
		}
	}
	return diag.ErrInvalidConfig
}

// runUserDataMerge prints the merge preview.
func runUserDataMerge(inv Invocation, env Env) error {
	in, err := generateInput(inv, env, inv.Args)
	if err != nil {
		return err
	}
	r, err := provenance.Merge(in)
	if err != nil {
		return err
	}
	if err := checkOutput(in, r.UserData, env.Stderr); err != nil {
		return err
	}
	if inv.Output == "json" {
		err = writeJSON(env.Stdout, r)
	} else {
		err = r.WriteText(env.Stdout)
	}
	if err != nil {
		return err
	}
	if path := inv.UserData.UserDataOut; path != "" {
		if err := os.WriteFile(path, r.UserData, 0o600); err != nil {
			return err
		}
	}
	switch {
	case r.Problems.HasErrors():
		return diag.ErrInvalidConfig
	case inv.Strict && len(r.Overrides()) > 0:
		return errOverrides
	}
	return nil
}

// suppliedByTarget names the fields a merging target's own part always
// writes, so the user data it takes need not have them.
func suppliedByTarget(name string) []string {
	if t, _ := target.Parse(name); t == target.SelfManaged {
		return nil
	}
	return []string{"spec.cluster.name", "spec.cluster.apiServerEndpoint", "spec.cluster.certificateAuthority", "spec.cluster.cidr"}
}

// targetProblems runs config check's --target checks on the sources.
func targetProblems(inv Invocation, docs []userdata.Document, stderr io.Writer) (diag.List, error) {
	o := inv.UserData
	t, _ := target.Parse(o.Target)
	f, _ := generate.ParseFamily(o.Family)
	var group *v1alpha1.NodeGroup
	if o.NodeGroup != "" {
		g, err := readNodeGroup(o.NodeGroup, stderr)
		if err != nil {
			return nil, err
		}
		group = &g
	}
	return target.Check(docs, t, f, group), nil
}
