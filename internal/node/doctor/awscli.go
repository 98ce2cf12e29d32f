package doctor

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/net/http/httpproxy"

	"github.com/nodeboot/nodeboot/internal/node/doctor/pyproxy"
	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

// CLICall is one request `aws eks get-token` makes (the token itself is
// presigned offline: its network calls are for credentials and region),
// with the proxy the CLI's Python rules choose and the one the kubelet's
// Go rules would.
type CLICall struct {
	// What the request is for; IMDS is true for the metadata service.
	What string
	URL  string
	IMDS bool
	// CLIProxy is the proxy botocore uses ("" direct), and the variable
	// that set it; GoProxy the one Go's httpproxy picks.
	CLIProxy    string
	CLIProxyVar string
	GoProxy     string
	// CLINoProxy is the no_proxy setting the CLI reads (Python prefers
	// the lower-case variable), GoNoProxy the value the kubelet reads.
	CLINoProxy pyproxy.Setting
	GoNoProxy  string
}

// legacyGlobalSTSRegions are the regions whose STS requests go to
// sts.amazonaws.com under AWS_STS_REGIONAL_ENDPOINTS=legacy: the regions
// the UseGlobalEndpoint rule of STS's endpoint rule set lists (botocore's
// data/sts/2011-06-15/endpoint-rule-set-1.json). Only the AWS CLI v1
// (AL2's) reads that variable; v2 always calls the regional endpoint.
var legacyGlobalSTSRegions = []string{"ap-northeast-1", "ap-south-1", "ap-southeast-1", "ap-southeast-2", "aws-global",
	"ca-central-1", "eu-central-1", "eu-north-1", "eu-west-1", "eu-west-2", "eu-west-3", "sa-east-1",
	"us-east-1", "us-east-2", "us-west-1", "us-west-2"}

// awsCLICalls lists the network requests of a credential plugin that is
// `aws eks get-token`, run in env (the kubelet's environment and the
// kubeconfig's exec env), with how each side routes them; nil for another
// plugin (aws-iam-authenticator is Go: it routes as the kubelet does).
// imdsRegion is the instance's region, for an STS call with no region set.
func awsCLICalls(exec *kubeapi.ExecConfig, kubeletEnv map[string]string, imdsRegion string) []CLICall {
	if exec == nil || filepath.Base(exec.Command) != "aws" || len(exec.Args) < 2 || exec.Args[0] != "eks" || exec.Args[1] != "get-token" {
		return nil
	}
	env := pluginEnvOf(exec, kubeletEnv)
	region := firstNonEmpty(argValue(exec.Args, "--region"), env["AWS_REGION"], env["AWS_DEFAULT_REGION"])
	var calls []CLICall
	if what := imdsUse(env, region); what != "" && strings.ToLower(env["AWS_EC2_METADATA_DISABLED"]) != "true" {
		calls = append(calls, CLICall{What: what, URL: imdsBase(env) + "latest/api/token", IMDS: true})
	}
	webIdentity := env["AWS_WEB_IDENTITY_TOKEN_FILE"] != "" && env["AWS_ROLE_ARN"] != ""
	if argValue(exec.Args, "--role-arn") != "" || webIdentity {
		if u := stsURL(env, firstNonEmpty(region, imdsRegion)); u != "" {
			calls = append(calls, CLICall{What: "STS (AssumeRole for --role-arn, or AssumeRoleWithWebIdentity)", URL: u})
		}
	}
	list := sortedEnv(env)
	for i := range calls {
		routeCall(&calls[i], env, list)
	}
	return calls
}

// pluginEnvOf is the plugin's environment: the kubelet's, then the
// kubeconfig's exec env over it.
func pluginEnvOf(exec *kubeapi.ExecConfig, kubeletEnv map[string]string) map[string]string {
	env := make(map[string]string, len(kubeletEnv)+len(exec.Env))
	for k, v := range kubeletEnv {
		env[k] = v
	}
	for _, v := range exec.Env {
		env[v.Name] = v.Value
	}
	return env
}

// imdsUse says what the CLI asks the metadata service for: the instance
// role's credentials unless the environment gives others (keys, web
// identity, container credentials, a profile), the region unless set.
func imdsUse(env map[string]string, region string) string {
	staticKeys := env["AWS_ACCESS_KEY_ID"] != "" && env["AWS_SECRET_ACCESS_KEY"] != ""
	webIdentity := env["AWS_WEB_IDENTITY_TOKEN_FILE"] != "" && env["AWS_ROLE_ARN"] != ""
	_, relative := env["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"]
	_, full := env["AWS_CONTAINER_CREDENTIALS_FULL_URI"]
	creds := !staticKeys && !webIdentity && !relative && !full && env["AWS_PROFILE"] == ""
	switch {
	case creds && region == "":
		return "the instance role's credentials and the region"
	case creds:
		return "the instance role's credentials"
	case region == "":
		return "the region"
	}
	return ""
}

// imdsBase is botocore's choice of the metadata service's address.
func imdsBase(env map[string]string) string {
	if e := env["AWS_EC2_METADATA_SERVICE_ENDPOINT"]; e != "" {
		return strings.TrimSuffix(e, "/") + "/"
	}
	if strings.ToLower(env["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"]) == "ipv6" {
		return "http://[fd00:ec2::254]/"
	}
	return "http://169.254.169.254/"
}

// stsURL is the STS endpoint the CLI calls: AWS_ENDPOINT_URL_STS or
// AWS_ENDPOINT_URL (AWS CLI 2.13 and later), else the regional endpoint
// (the CLI v2's only choice), the global one for
// AWS_STS_REGIONAL_ENDPOINTS=legacy (read by the CLI v1 only).
func stsURL(env map[string]string, region string) string {
	if u := firstNonEmpty(env["AWS_ENDPOINT_URL_STS"], env["AWS_ENDPOINT_URL"]); u != "" {
		return u
	}
	switch {
	case region == "":
		return ""
	case strings.ToLower(env["AWS_STS_REGIONAL_ENDPOINTS"]) == "legacy" && slices.Contains(legacyGlobalSTSRegions, region):
		return "https://sts.amazonaws.com"
	case strings.HasPrefix(region, "cn-"):
		return "https://sts." + region + ".amazonaws.com.cn"
	}
	return "https://sts." + region + ".amazonaws.com"
}

// routeCall fills in both sides' proxy choices.
func routeCall(c *CLICall, env map[string]string, list []string) {
	if p, ok := pyproxy.ForURL(list, c.URL); ok {
		c.CLIProxy, c.CLIProxyVar = p.Value, p.Name
	}
	c.CLINoProxy = pyproxy.Proxies(list)["no"]
	c.GoNoProxy = firstNonEmpty(env["NO_PROXY"], env["no_proxy"])
	u, err := url.Parse(c.URL)
	if err != nil {
		return
	}
	cfg := httpproxy.Config{HTTPProxy: firstNonEmpty(env["HTTP_PROXY"], env["http_proxy"]),
		HTTPSProxy: firstNonEmpty(env["HTTPS_PROXY"], env["https_proxy"]), NoProxy: c.GoNoProxy}
	if p, err := cfg.ProxyFunc()(u); err == nil && p != nil {
		c.GoProxy = p.String()
	}
}

func sortedEnv(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for _, k := range sortedKeys(env) {
		out = append(out, k+"="+env[k])
	}
	return out
}

func argValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}
