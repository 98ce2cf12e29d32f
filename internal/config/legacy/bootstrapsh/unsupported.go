package bootstrapsh

import "strconv"

// unsupportedOptions reports the options hub.Spec cannot express. Values
// that bootstrap.sh itself would reject are errors; the rest are warnings
// naming the option and what nodeboot does instead.
func (b *specBuilder) unsupportedOptions() {
	if s, ok := b.opt(flagEnableDockerBridge); ok {
		switch s.value {
		case "false":
		case "true":
			b.warnf(s.pos, "", "%s true is ignored: the docker0 bridge exists only with dockerd; bootstrap.sh ignores it with containerd too", s.label(flagEnableDockerBridge))
		default:
			b.errorf(s.pos, "", "%s %s: must be true or false (bootstrap.sh runs the value as a command)", s.label(flagEnableDockerBridge), shellQuote(s.value))
		}
	}
	if s, ok := b.opt(flagDockerConfigJSON); ok {
		b.warnf(s.pos, "", "%s is ignored: it configures dockerd only; bootstrap.sh ignores it with containerd too", s.label(flagDockerConfigJSON))
	}
	for _, flag := range []string{flagPauseContainerAccount, flagPauseContainerVersion} {
		if s, ok := b.opt(flag); ok {
			b.warnf(s.pos, "", "%s is ignored: nodeboot takes the sandbox (pause) image from the node instead of building an ECR image name", s.label(flag))
		}
	}
	if s, ok := b.opt(flagAWSAPIRetryAttempts); ok {
		if n, err := strconv.Atoi(s.value); err != nil || n < 0 {
			b.errorf(s.pos, "", "%s %s: must be a whole number of retries (bootstrap.sh fails on anything else)", s.label(flagAWSAPIRetryAttempts), shellQuote(s.value))
		} else {
			b.warnf(s.pos, "", "%s is ignored: nodeboot retries eks:DescribeCluster with its own back-off", s.label(flagAWSAPIRetryAttempts))
		}
	}
	if s, ok := b.opt(flagContainerdConfigFile); ok {
		b.warnf(s.pos, pathContainerd, "%s %s is ignored: nodeboot does not read files named in user data; put the settings you need in containerd.config of a NodeConfig, which is merged over nodeboot's containerd template", s.label(flagContainerdConfigFile), shellQuote(s.value))
	}
	if s, ok := b.opt(flagMountBPFFS); ok {
		if !b.boolValue(flagMountBPFFS, s) && s.value == "false" {
			b.warnf(s.pos, "", "%s false has no effect: nodeboot does not mount the BPF file system itself; systemd mounts /sys/fs/bpf at boot", s.label(flagMountBPFFS))
		}
	}
}
