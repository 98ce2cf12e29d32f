package awsconfig

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/ec2rolecreds"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
)

// credentialsFor returns the node's credentials, cached and refreshed before
// they expire: the keys from the environment when both are set, else the
// instance profile's role credentials from IMDS, asked through a client
// built from cfg (its retry policy and never-proxied transport; the endpoint
// honours AWS_EC2_METADATA_SERVICE_ENDPOINT).
func credentialsFor(env envConfig, cfg aws.Config) aws.CredentialsProvider {
	if env.hasKeys() {
		return aws.NewCredentialsCache(credentials.StaticCredentialsProvider{Value: aws.Credentials{
			AccessKeyID: env.accessKeyID, SecretAccessKey: env.secretAccessKey, SessionToken: env.session,
			AccountID: env.accountID, Source: "EnvConfigCredentials",
		}})
	}
	return aws.NewCredentialsCache(ec2rolecreds.New(func(o *ec2rolecreds.Options) {
		o.Client = imds.NewFromConfig(cfg)
	}))
}
