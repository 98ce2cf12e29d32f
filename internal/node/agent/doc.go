// Package agent wires nodeboot's pure core to its effects. One run:
//
//  1. read every config source (IMDS user data, files, drop-in directories)
//     while instance metadata and host facts are fetched in parallel;
//  2. decode each document by format (NodeConfig YAML/JSON, AL2 bootstrap.sh
//     calls, Bottlerocket TOML), strictly, collecting every problem;
//  3. merge in order and validate the result — bad input stops here, before
//     any AWS API call and before anything is written;
//  4. discover what the config does not say (cluster details with
//     eks:DescribeCluster, the node name with ec2:DescribeInstances, ENI
//     limits from the embedded table or ec2:DescribeInstanceTypes), skipping
//     every call the config makes unnecessary;
//  5. render every file and write them all at once (internal/node/apply);
//  6. restart containerd and the kubelet through the service manager.
package agent
