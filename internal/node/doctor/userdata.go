package doctor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// UserDataEvidence is what `nodeboot config check` reports for the sources.
type UserDataEvidence struct {
	Sources []string
	Report  diag.CheckReport
	// Err says why the sources could not be read at all.
	Err error
}

// userDataVerdict judges the user data exactly as `config check` does,
// then what discovering the cluster at boot (eks:DescribeCluster, as init
// would) answered.
func userDataVerdict(ev UserDataEvidence, cloud CloudEvidence) Result {
	r := Result{ID: CheckUserData}
	sources := strings.Join(ev.Sources, ", ")
	if ev.Err != nil {
		r.Verdict, r.Summary = Fail, fmt.Sprintf("cannot read %s: %v", sources, ev.Err)
		r.Action = "Make the config sources readable; `nodeboot config check` shows the same error."
		return r
	}
	r.Evidence = documentEvidence(ev.Report)
	r = checkReportVerdict(r, ev.Report, sources)
	if r.Verdict == Fail || len(ev.Report.Discover) == 0 {
		return r
	}
	return discoveryVerdict(r, ev.Report.Discover, cloud)
}

// documentEvidence lists each document and problem.
func documentEvidence(rep diag.CheckReport) []string {
	var out []string
	for _, d := range rep.Documents {
		state := "applied"
		if !d.Applied {
			state = "not applied"
		}
		out = append(out, fmt.Sprintf("%s: read as %s (%s)", d.Source.String(), orUnknown(d.Source.Format), state))
	}
	for _, p := range rep.Problems {
		out = append(out, p.String())
	}
	return out
}

// checkReportVerdict grades `config check`'s report.
func checkReportVerdict(r Result, rep diag.CheckReport, sources string) Result {
	errs := len(rep.Problems.Filter(diag.SeverityError))
	warns := len(rep.Problems.Filter(diag.SeverityWarning))
	applied := 0
	for _, d := range rep.Documents {
		if d.Applied {
			applied++
		}
	}
	docs := fmt.Sprintf("%s: %d document(s), %d applied", sources, len(rep.Documents), applied)
	switch {
	case !rep.Valid && errs > 0 && errs == strictOnly(rep.Problems):
		r.Verdict, r.Summary = Warn, fmt.Sprintf("%s; %d field(s) nodeadm does not know: the node boots and ignores them", docs, errs)
		r.Action = "Remove or correct the fields listed (a typo is ignored, not applied); `nodeboot config check` and `init --strict` refuse them."
	case !rep.Valid:
		r.Verdict, r.Summary = Fail, fmt.Sprintf("%s; %d error(s), %d warning(s)", docs, errs, warns)
		r.Action = "Fix the errors listed (field, source and line are given), then reboot or run `nodeboot init` again; `nodeboot config check` reports the same."
	case warns > 0:
		r.Verdict, r.Summary = Warn, fmt.Sprintf("%s; valid with %d warning(s)", docs, warns)
		r.Action = "Read the warnings: the node is configured, but not the way the user data may intend."
	default:
		r.Verdict, r.Summary = OK, docs+"; valid"
	}
	return r
}

// discoveryVerdict adds what eks:DescribeCluster answered for the fields
// init discovers at boot: an error there stops init, so it fails here,
// with the API's error code.
func discoveryVerdict(r Result, fields []string, cloud CloudEvidence) Result {
	what := fmt.Sprintf("eks:DescribeCluster %q (init discovers %s with it)", cloud.Cluster, strings.Join(fields, ", "))
	if cloud.Err != nil { // AWS was not asked: its cause is reported where it is (the metadata service)
		r.Evidence = append(r.Evidence, what+": not checked: "+cloud.Err.Error())
		return r
	}
	err := firstErr(cloud.ClusterErr, cloud.InfoErr)
	if cloud.Cluster == "" && err == nil {
		err = errors.New("the user data names no cluster")
	}
	if err == nil {
		r.Evidence = append(r.Evidence, fmt.Sprintf("%s: endpoint %s, status %s", what, cloud.Info.Endpoint, cloud.Info.Status))
		return r
	}
	r.Verdict = Fail
	code := apiErrorCode(err)
	r.Summary = fmt.Sprintf("%s failed: %v", what, err)
	if code != "" {
		r.Summary = fmt.Sprintf("%s failed with %s: %v", what, code, err)
	}
	switch code {
	case "ResourceNotFoundException":
		r.Action = fmt.Sprintf("No cluster %q exists in %s: fix the cluster's name in the user data (spec.cluster.name, or bootstrap.sh's first argument) or launch the node in the cluster's region; or give the endpoint, CA and service CIDR so nothing is discovered.", cloud.Cluster, orUnknown(cloud.Region))
	case "AccessDeniedException", "UnauthorizedOperation", "UnrecognizedClientException":
		r.Action = "The node's role may not call eks:DescribeCluster: attach AmazonEKSWorkerNodePolicy (or allow eks:DescribeCluster on the cluster), or give the endpoint, CA and service CIDR in the user data."
	default:
		r.Action = "init cannot discover the cluster: check the path to the EKS API (eks.REGION.amazonaws.com or its VPC endpoint) and the node's credentials, or give the endpoint, CA and service CIDR in the user data."
	}
	return r
}

// strictOnly counts the errors nodeadm does not make (unknown fields of
// node.eks.aws documents): init warns about them and boots the node.
func strictOnly(problems diag.List) int {
	n := 0
	for _, p := range problems.Filter(diag.SeverityError) {
		if p.StrictOnly {
			n++
		}
	}
	return n
}
