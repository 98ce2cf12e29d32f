// Package awsconfig builds the AWS SDK configuration every nodeboot AWS client
// shares: a bounded, fully jittered retry policy, an HTTP transport whose
// proxy settings are re-read from the environment on every request and never
// apply to the instance metadata service, and the SDK's standard endpoint
// overrides (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_EC2, AWS_ENDPOINT_URL_EKS) and
// AWS_MAX_ATTEMPTS.
//
// LoadNode is the node agent's loader: it reads the environment itself and
// takes credentials from the environment or the instance profile, so the
// agent links no STS, SSO or SSO-OIDC client. Binaries that run in pods and
// need the SDK's whole default chain (IRSA, EKS Pod Identity) use
// awsconfig/sdkdefault.
//
// Nothing happens at package initialisation; LoadNode does the work when
// called.
package awsconfig
