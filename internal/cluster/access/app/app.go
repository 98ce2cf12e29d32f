// Package app wires the nodeboot-access binary: `check` reports, per node
// group, whether its nodes will authenticate and as whom; `fix` applies the
// smallest change that lets them join (or shows it with --dry-run).
package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdkas "github.com/aws/aws-sdk-go-v2/service/autoscaling"
	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	sdkeks "github.com/aws/aws-sdk-go-v2/service/eks"
	sdkiam "github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	nodegroupv1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/awsconfig/sdkdefault"
	"github.com/nodeboot/nodeboot/internal/cluster/access"
	"github.com/nodeboot/nodeboot/internal/config/awsauth"
	"github.com/nodeboot/nodeboot/internal/config/maxpods/celexpr"
	"github.com/nodeboot/nodeboot/internal/version"
)

// Exit codes of Main.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// ErrUsage marks invalid command-line arguments (exit code 2).
var ErrUsage = errors.New("invalid arguments")

// errFailed is returned when the output already says what failed.
var errFailed = errors.New("failed")

// Env is what Main runs with.
type Env struct {
	Stdout, Stderr io.Writer
}

// Usage is the top-level help.
const Usage = `nodeboot-access checks, before node groups launch, whether their nodes will
authenticate to an EKS cluster and as whom, and fixes the node roles' mappings.

Usage:
  nodeboot-access check --cluster NAME [selectors] [-o text|json]   exit 1 when a group will not join
  nodeboot-access fix   --cluster NAME [selectors] [--dry-run] [--via auto|aws-auth|access-entries]
  nodeboot-access version

Selectors (repeatable, any mix):
  --group ASG             an Auto Scaling group: launch template → instance profile → role
  -f, --nodegroup FILE    a NodeGroup file (spec.nodeRole, else its launch template)
  --role ARN              a Linux node role (its ARN, or a session's: arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION)
  --windows-role ARN      a Windows node role (likewise)
`

// Main runs one command and returns the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprintf(env.Stderr, "nodeboot-access: no command given\n\n%s", Usage)
		return ExitUsage
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "check":
		err = runCheck(ctx, rest, env)
	case "fix":
		err = runFix(ctx, rest, env)
	case "version", "--version":
		_, err = fmt.Fprintf(env.Stdout, "nodeboot-access %s\n", version.String())
	case "help", "-h", "--help":
		_, err = io.WriteString(env.Stdout, Usage)
	default:
		err = fmt.Errorf("%w: unknown command %q", ErrUsage, cmd)
	}
	switch {
	case err == nil, errors.Is(err, pflag.ErrHelp):
		return ExitOK
	case errors.Is(err, ErrUsage):
		fmt.Fprintf(env.Stderr, "nodeboot-access: %v\nRun 'nodeboot-access help' for usage.\n", err)
		return ExitUsage
	case errors.Is(err, errFailed):
		return ExitError
	default:
		fmt.Fprintf(env.Stderr, "nodeboot-access: %v\n", err)
		return ExitError
	}
}

// options are the flags check and fix share.
type options struct {
	kubeconfig, cluster, region, output string
	groups, files, roles, windowsRoles  []string
	windowsFiles                        []string
	instanceIDNames, noEKS              bool
}

func (o *options) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file; empty: $KUBECONFIG, ~/.kube/config, then the in-cluster service account")
	fs.StringVar(&o.cluster, "cluster", "", "the EKS cluster's name (required)")
	fs.StringVar(&o.region, "region", "", "AWS region; empty: AWS_REGION")
	fs.StringArrayVar(&o.groups, "group", nil, "Auto Scaling group name (repeatable)")
	fs.StringArrayVarP(&o.files, "nodegroup", "f", nil, "NodeGroup file of Linux nodes (repeatable)")
	fs.StringArrayVar(&o.windowsFiles, "windows-nodegroup", nil, "NodeGroup file of Windows nodes (repeatable)")
	fs.StringArrayVar(&o.roles, "role", nil, "Linux node role ARN (repeatable)")
	fs.StringArrayVar(&o.windowsRoles, "windows-role", nil, "Windows node role ARN (repeatable)")
	fs.BoolVar(&o.instanceIDNames, "instance-id-names", false, "the nodes name themselves by instance ID (nodeadm's InstanceIdNodeName)")
	fs.BoolVar(&o.noEKS, "no-eks", false, "do not call the EKS API (authentication mode and access entries unknown)")
	fs.StringVarP(&o.output, "output", "o", "text", "text or json")
}

func (o *options) validate() error {
	switch {
	case o.cluster == "":
		return fmt.Errorf("%w: --cluster is required", ErrUsage)
	case len(o.groups)+len(o.files)+len(o.windowsFiles)+len(o.roles)+len(o.windowsRoles) == 0:
		return fmt.Errorf("%w: name the node groups to check (--group, -f, --role or --windows-role)", ErrUsage)
	case o.output != "text" && o.output != "json":
		return fmt.Errorf("%w: -o must be text or json, not %q", ErrUsage, o.output)
	}
	return nil
}

func newFlagSet(name string, out io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(out)
	fs.SortFlags = false
	return fs
}

func parse(fs *pflag.FlagSet, args []string, o *options) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %s: %w", ErrUsage, fs.Name(), err)
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: %s takes no arguments, got %q", ErrUsage, fs.Name(), fs.Args())
	}
	return o.validate()
}

// clients are the connections a run uses.
type clients struct {
	kube kubernetes.Interface
	aws  *aws.Config
	eks  access.EKSAPI
}

func (o *options) connect(ctx context.Context) (clients, error) {
	var c clients
	cfg, err := restConfig(o.kubeconfig)
	if err != nil {
		return c, err
	}
	if c.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return c, err
	}
	if o.noEKS && len(o.groups) == 0 && len(o.files)+len(o.windowsFiles) == 0 {
		return c, nil
	}
	a, err := sdkdefault.Load(ctx, awsconfig.Options{Region: o.region, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return c, fmt.Errorf("AWS configuration: %w", err)
	}
	c.aws = &a
	if o.region == "" {
		o.region = a.Region
	}
	if !o.noEKS {
		c.eks = sdkeks.NewFromConfig(a)
	}
	return c, nil
}

// gatherGroups resolves every selector.
func (o *options) gatherGroups(ctx context.Context, c clients) ([]access.Group, error) {
	r := access.Resolver{Expressions: celexpr.Evaluator{}}
	if c.aws != nil {
		r.AutoScaling, r.EC2, r.IAM = sdkas.NewFromConfig(*c.aws), sdkec2.NewFromConfig(*c.aws), sdkiam.NewFromConfig(*c.aws)
	}
	var groups []access.Group
	for _, name := range o.groups {
		groups = append(groups, r.AutoScalingGroup(ctx, name))
	}
	for _, f := range o.files {
		g, err := nodeGroupFile(ctx, r, f, false)
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	for _, f := range o.windowsFiles {
		g, err := nodeGroupFile(ctx, r, f, true)
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	for _, arn := range o.roles {
		groups = append(groups, access.RoleGroup(arn, false))
	}
	for _, arn := range o.windowsRoles {
		groups = append(groups, access.RoleGroup(arn, true))
	}
	if o.instanceIDNames {
		for i := range groups {
			groups[i].Naming = awsauth.NameInstanceID
		}
	}
	return groups, nil
}

func nodeGroupFile(ctx context.Context, r access.Resolver, path string, windows bool) (access.Group, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return access.Group{}, err
	}
	// Operator tooling (internal/author/nodegroup) reads NodeGroup files
	// with full diagnostics; the cluster side may not import it, and needs
	// only the fields it resolves roles and max pods from, read strictly.
	var ng nodegroupv1.NodeGroup
	if err := yaml.UnmarshalStrict(data, &ng); err != nil {
		return access.Group{}, fmt.Errorf("%s: %w (nodeboot userdata generate -f %s shows every problem with its line)", path, err, path)
	}
	if ng.APIVersion != nodegroupv1.APIVersion || ng.Kind != nodegroupv1.Kind {
		return access.Group{}, fmt.Errorf("%s: not a %s %s", path, nodegroupv1.APIVersion, nodegroupv1.Kind)
	}
	return r.NodeGroupFile(ctx, path, ng, windows), nil
}

// inspect gathers the cluster and the groups and checks them.
func (o *options) inspect(ctx context.Context) (clients, access.Cluster, access.Report, error) {
	c, err := o.connect(ctx)
	if err != nil {
		return c, access.Cluster{}, access.Report{}, err
	}
	groups, err := o.gatherGroups(ctx, c)
	if err != nil {
		return c, access.Cluster{}, access.Report{}, err
	}
	cluster := access.Gatherer{Kube: access.Clientset{Interface: c.kube}, EKS: c.eks, Name: o.cluster, Region: o.region}.Gather(ctx)
	return c, cluster, access.Check(cluster, groups), nil
}

func runCheck(ctx context.Context, args []string, env Env) error {
	var o options
	fs := newFlagSet("check", env.Stderr)
	o.register(fs)
	if err := parse(fs, args, &o); err != nil {
		return err
	}
	_, _, rep, err := o.inspect(ctx)
	if err != nil {
		return err
	}
	if err := writeOutput(env.Stdout, o.output, rep, rep.WriteText); err != nil {
		return err
	}
	if rep.Failed() {
		return errFailed
	}
	return nil
}

func runFix(ctx context.Context, args []string, env Env) error {
	var o options
	var dryRun bool
	var via string
	fs := newFlagSet("fix", env.Stderr)
	o.register(fs)
	fs.BoolVar(&dryRun, "dry-run", false, "show the change (a diff of aws-auth, the access entries) without making it")
	fs.StringVar(&via, "via", access.ViaAuto, "auto (access entries when the cluster's mode has the API), aws-auth or access-entries (migrating a CONFIG_MAP cluster)")
	if err := parse(fs, args, &o); err != nil {
		return err
	}
	if via != access.ViaAuto && via != access.ViaAWSAuth && via != access.ViaAccessEntries {
		return fmt.Errorf("%w: --via must be auto, aws-auth or access-entries", ErrUsage)
	}
	c, cluster, rep, err := o.inspect(ctx)
	if err != nil {
		return err
	}
	plan, err := access.PlanFix(cluster, rep, via)
	if err != nil {
		return err
	}
	if !dryRun && !plan.Empty() {
		if err := applyPlan(ctx, c, o.cluster, plan); err != nil {
			return err
		}
	}
	text := func(w io.Writer) error { return plan.WriteText(w, o.cluster, o.region, dryRun) }
	if err := writeOutput(env.Stdout, o.output, plan, text); err != nil {
		return err
	}
	if len(plan.Unfixable) > 0 {
		return errFailed
	}
	return nil
}

// applyPlan applies the plan against the aws-auth it was made from.
func applyPlan(ctx context.Context, c clients, cluster string, plan access.Plan) error {
	if (plan.Migration != nil || len(plan.Entries) > 0) && c.eks == nil {
		return errors.New("access entries need the EKS API (drop --no-eks)")
	}
	rv := ""
	if plan.AWSAuth != nil && !plan.AWSAuth.Create {
		cm, err := c.kube.CoreV1().ConfigMaps(awsauth.ConfigMapNamespace).Get(ctx, awsauth.ConfigMapName, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("read aws-auth again: %w", err)
		}
		if cm.Data[awsauth.KeyMapRoles] != plan.AWSAuth.Before {
			return errors.New("aws-auth changed while the fix was planned; run it again")
		}
		rv = cm.ResourceVersion
	}
	return access.Applier{Kube: c.kube, EKS: c.eks, Cluster: cluster}.Apply(ctx, plan, rv)
}

func writeOutput(w io.Writer, format string, v any, text func(io.Writer) error) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	return text(w)
}

// restConfig loads the kubeconfig at path, else $KUBECONFIG, else
// ~/.kube/config, else the in-cluster service account.
func restConfig(path string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if path != "" {
		rules.ExplicitPath = path
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		if in, inErr := rest.InClusterConfig(); inErr == nil {
			cfg, err = in, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("load Kubernetes client configuration: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = "nodeboot-access"
	return cfg, nil
}
