package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/ec2"
	"github.com/nodeboot/nodeboot/internal/aws/eks"
	"github.com/nodeboot/nodeboot/internal/aws/imds"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/node/bundle"
	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
	"github.com/nodeboot/nodeboot/internal/node/doctor"
	"github.com/nodeboot/nodeboot/internal/node/host"
	"github.com/nodeboot/nodeboot/internal/node/joinwait"
	"github.com/nodeboot/nodeboot/internal/version"
)

// doctorIMDSAttempts bounds the doctor's user-data read: a diagnosis must
// not wait a minute for a metadata service that does not answer (the
// instance metadata check says why).
const doctorIMDSAttempts = 3

// doctorAWSAttempts bounds the doctor's own EC2 calls (security groups,
// instance types): an API that does not answer is a finding, not
// something to wait out.
const doctorAWSAttempts = 2

// errUnhealthy is returned by doctor when a check failed; the report
// already went to stdout.
var errUnhealthy = errors.New("a check failed")

// newDoctor wires the doctor's effects.
func newDoctor(inv Invocation, env Env, log *slog.Logger) doctor.Doctor {
	a := newAgent(inv, env, log)
	metadata := imds.New(imds.Options{MaxAttempts: doctorIMDSAttempts})
	a.Metadata = metadata
	return doctor.Doctor{
		Root:    inv.Root,
		Sources: inv.Sources,
		CheckUserData: func(ctx context.Context, sources []string) (diag.CheckReport, error) {
			return a.Check(ctx, sources)
		},
		ClusterName: func(ctx context.Context, sources []string) (string, error) {
			in, err := a.Read(ctx, sources)
			if err != nil {
				return "", err
			}
			spec, _, err := in.Merged()
			return spec.Cluster.Name, err
		},
		AWS: func(ctx context.Context, region string) (doctor.AWS, error) {
			// DescribeCluster retries as init does (a throttled answer init
			// would get past is no failure); the checks' own calls do not.
			asInit, err := awsconfig.LoadNode(ctx, awsconfig.Options{Region: region, Logger: log})
			if err != nil {
				return nil, err
			}
			brief, err := awsconfig.LoadNode(ctx, awsconfig.Options{Region: region, Logger: log, MaxAttempts: doctorAWSAttempts})
			if err != nil {
				return nil, err
			}
			return doctorAWS{ec2: ec2.New(brief, ec2.NameWait{}), eks: eks.New(asInit)}, nil
		},
		IMDS:           doctor.IMDSProbe{Getenv: env.Getenv},
		Commands:       cmdrun.Exec{},
		KubeletVersion: host.Probe{Root: inv.Root, Run: host.ExecRunner{}}.KubeletVersion,
		Hostname:       hostname(inv.Root),
		Timeout:        inv.Timeout,
		InstanceRole: func(ctx context.Context) (doctor.InstanceRole, error) {
			r, err := metadata.InstanceRole(ctx)
			return doctor.InstanceRole{ProfileARN: r.ProfileARN, RoleName: r.RoleName}, err
		},
	}
}

// doctorAWS is what the doctor asks AWS: DescribeCluster fresh (never
// the boot's cached answer), the instance's security groups and its
// type's accelerators.
type doctorAWS struct {
	ec2 *ec2.Client
	eks *eks.Client
}

func (c doctorAWS) DescribeCluster(ctx context.Context, name string) (eks.ClusterInfo, error) {
	return c.eks.DescribeCluster(ctx, name)
}

func (c doctorAWS) InstanceSecurityGroups(ctx context.Context, instanceID string) ([]ec2.SecurityGroup, error) {
	return c.ec2.InstanceSecurityGroups(ctx, instanceID)
}

func (c doctorAWS) InstanceTypeLimits(ctx context.Context, instanceType string) (ec2.Limits, error) {
	return c.ec2.InstanceTypeLimits(ctx, instanceType)
}

// hostname is the host's name, or under another --root its /etc/hostname.
func hostname(root string) func() (string, error) {
	if filepath.Clean(root) == "/" {
		return os.Hostname
	}
	return func() (string, error) {
		b, err := os.ReadFile(filepath.Join(root, "etc/hostname"))
		return strings.TrimSpace(string(b)), err
	}
}

func runDoctor(ctx context.Context, inv Invocation, env Env, log *slog.Logger) error {
	rep := newDoctor(inv, env, log).Run(ctx)
	var out []byte
	if inv.Output == "json" {
		var err error
		if out, err = rep.JSON(); err != nil {
			return err
		}
	} else {
		out = rep.Text()
	}
	if _, err := env.Stdout.Write(out); err != nil {
		return err
	}
	if !rep.Healthy() {
		return fmt.Errorf("%w: %d of %d", errUnhealthy, rep.Failed, len(rep.Checks))
	}
	return nil
}

// newBundle wires a support bundle; report supplies the doctor report.
func newBundle(inv Invocation, env Env, log *slog.Logger, report func(context.Context) doctor.Report) bundle.Bundle {
	a := newAgent(inv, env, log)
	a.Metadata = imds.New(imds.Options{MaxAttempts: doctorIMDSAttempts})
	return bundle.Bundle{
		Root:       inv.Root,
		Out:        inv.OutputPath,
		Since:      inv.Since,
		RunTimeout: inv.Timeout,
		Commands:   cmdrun.Exec{},
		Report:     report,
		UserData: func(ctx context.Context) ([]userdata.Document, error) {
			in, err := a.Read(ctx, inv.Sources)
			return in.Documents, err
		},
		Tool: "nodeboot " + version.String(),
	}
}

func runBundle(ctx context.Context, inv Invocation, env Env, log *slog.Logger) error {
	di := inv
	di.Timeout = min(inv.Timeout, doctor.DefaultTimeout)
	d := newDoctor(di, env, log)
	res, err := newBundle(inv, env, log, d.Run).Write(ctx)
	if err != nil {
		return err
	}
	size, redactions := 0, 0
	for _, it := range res.Manifest.Items {
		size += it.Size
		redactions += it.Redactions
	}
	_, err = fmt.Fprintf(env.Stdout, "wrote %s: %d items (%d bytes before compression), %d values redacted; logs from %s\n",
		res.Path, len(res.Manifest.Items), size, redactions, res.Manifest.Logs)
	return err
}

// waitForJoin is the end of init's run phase: wait for the Node, else
// diagnose and fail.
func waitForJoin(ctx context.Context, inv Invocation, env Env, log *slog.Logger) error {
	di := inv
	di.Timeout = doctor.DefaultTimeout // init's --timeout bounds init, not its diagnosis
	d := newDoctor(di, env, log)
	w := joinwait.Waiter{
		Timeout:    inv.RegistrationTimeout,
		Registered: d.NodeRegistered,
		Diagnose:   d.Run,
		Bundle: func(ctx context.Context, rep doctor.Report) (string, error) {
			b := inv
			b.OutputPath, b.Since, b.Timeout = bundle.DefaultPath, bundle.DefaultSince, bundle.DefaultRunTimeout
			res, err := newBundle(b, env, log, func(context.Context) doctor.Report { return rep }).Write(ctx)
			return res.Path, err
		},
		Console: env.Stderr,
		Log:     log,
	}
	return w.Wait(ctx)
}
