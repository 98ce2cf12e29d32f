// Package awsconfig builds the AWS SDK configuration every nodeboot AWS client
// shares: a bounded, fully jittered retry policy, an HTTP transport whose
// proxy settings are re-read from the environment on every request and never
// apply to the instance metadata service, and the SDK's standard endpoint
// overrides (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_EC2, AWS_ENDPOINT_URL_EKS) and
// AWS_MAX_ATTEMPTS.
//
// Nothing happens at package initialisation; Load does the work when called.
package awsconfig
