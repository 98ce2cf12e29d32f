// Package awstest runs small local HTTP servers that speak the real AWS wire
// protocols, so that the real SDK clients can be tested against them through
// AWS_ENDPOINT_URL (EC2 Query/XML, EKS REST-JSON) or
// AWS_EC2_METADATA_SERVICE_ENDPOINT (an IMDS-like server for fast unit tests;
// use internal/testing/aemmtest for the real metadata mock).
//
// Every server binds 127.0.0.1 on a free port, is closed when the test ends,
// counts the calls of each action, can fail the next N calls of an action
// with injected faults (throttling, 5xx) or every call (FailAlways), and can
// delay an action, hold it without answer (Hang) or send its body one byte at
// a time (Trickle).
package awstest
