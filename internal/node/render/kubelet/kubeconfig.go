package kubelet

import (
	"cmp"
	"slices"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	clientcmdv1 "github.com/nodeboot/nodeboot/internal/k8sapi/clientcmd/v1"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// Names inside the kubeconfig.
const (
	kubeconfigCluster    = "kubernetes"
	kubeconfigContext    = "kubelet"
	execUser             = "kubelet"
	bootstrapUser        = "kubelet-bootstrap"
	execAPIVersion       = "client.authentication.k8s.io/v1beta1"
	defaultExecCommand   = "aws"
	kubeconfigAPIVersion = "v1"
	kubeconfigKind       = "Config"
)

// renderKubeconfig renders the kubelet's kubeconfig (exec credential) or,
// with TLS bootstrap, its bootstrap kubeconfig. The CA is referenced by file
// (CACertPath), never embedded, so bootstrap-token discovery can write it
// later.
func renderKubeconfig(p plan) (render.File, error) {
	conf, err := kubeconfigFor(p)
	if err != nil {
		return render.File{}, err
	}
	data := encodeKubeconfig(conf)
	return render.File{Path: p.identity.kubeconfigPath(), Mode: privateMode, Data: data}, nil
}

func kubeconfigFor(p plan) (clientcmdv1.Config, error) {
	cluster := p.cfg.Spec.Cluster
	if cluster.APIServerEndpoint == "" {
		return clientcmdv1.Config{}, ErrMissingAPIServerEndpoint
	}
	userName, user, err := kubeconfigUser(p)
	if err != nil {
		return clientcmdv1.Config{}, err
	}
	return clientcmdv1.Config{
		Kind:       kubeconfigKind,
		APIVersion: kubeconfigAPIVersion,
		Clusters: []clientcmdv1.NamedCluster{{
			Name:    kubeconfigCluster,
			Cluster: clientcmdv1.Cluster{Server: cluster.APIServerEndpoint, CertificateAuthority: CACertPath},
		}},
		AuthInfos: []clientcmdv1.NamedAuthInfo{{Name: userName, AuthInfo: user}},
		Contexts: []clientcmdv1.NamedContext{{
			Name:    kubeconfigContext,
			Context: clientcmdv1.Context{Cluster: kubeconfigCluster, AuthInfo: userName},
		}},
		CurrentContext: kubeconfigContext,
	}, nil
}

func kubeconfigUser(p plan) (string, clientcmdv1.AuthInfo, error) {
	if p.identity.mode == hub.IdentityBootstrapToken {
		return bootstrapUser, clientcmdv1.AuthInfo{Token: p.cfg.Spec.Identity.BootstrapToken.Token}, nil
	}
	exec, err := execConfig(p)
	if err != nil {
		return "", clientcmdv1.AuthInfo{}, err
	}
	return execUser, clientcmdv1.AuthInfo{Exec: exec}, nil
}

// execConfig is the exec credential plugin: spec.identity.exec, defaulting
// to `aws eks get-token --cluster-name <name> --region <region>` (the
// cluster ID instead of the name on Outposts).
func execConfig(p plan) (*clientcmdv1.ExecConfig, error) {
	spec := p.cfg.Spec.Identity.Exec
	command := cmp.Or(spec.Command, defaultExecCommand)
	args := slices.Clone(spec.Args)
	if len(args) == 0 {
		var err error
		if args, err = defaultExecArgs(p); err != nil {
			return nil, err
		}
	}
	env := make([]clientcmdv1.ExecEnvVar, 0, len(spec.Env))
	for name, value := range spec.Env {
		env = append(env, clientcmdv1.ExecEnvVar{Name: name, Value: value})
	}
	slices.SortFunc(env, func(a, b clientcmdv1.ExecEnvVar) int { return cmp.Compare(a.Name, b.Name) })
	return &clientcmdv1.ExecConfig{
		APIVersion:      execAPIVersion,
		Command:         command,
		Args:            args,
		Env:             env,
		InteractiveMode: clientcmdv1.NeverExecInteractiveMode,
	}, nil
}

func defaultExecArgs(p plan) ([]string, error) {
	cluster := p.cfg.Spec.Cluster
	name := cluster.Name
	switch {
	case p.identity.outpost && cluster.ID == "":
		return nil, ErrMissingClusterID
	case p.identity.outpost:
		name = cluster.ID
	case name == "":
		return nil, ErrMissingClusterName
	}
	region := p.cfg.Status.Instance.Region
	if region == "" {
		return nil, ErrMissingRegion
	}
	return []string{"eks", "get-token", "--cluster-name", name, "--region", region}, nil
}
