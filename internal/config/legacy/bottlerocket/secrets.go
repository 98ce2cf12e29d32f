package bottlerocket

// secretSettings are the settings whose values may be secrets ("*" stands
// for any key): printed to the console, they would reach
// ec2:GetConsoleOutput.
var secretSettings = []keyPath{
	{"settings", "kubernetes", "bootstrap-token"},
	{"settings", "kubernetes", "server-key"},               // the kubelet's TLS private key
	{"settings", "kubernetes", "credential-providers"},     // their environment may hold keys
	{"settings", "network", "https-proxy"},                 // user:password@ in the URL
	{"settings", "network", "http-proxy"},                  //
	{"settings", "container-registry", "credentials"},      // registry passwords and tokens
	{"settings", "aws", "credentials"},                     // an AWS credentials file
	{"settings", "aws", "config"},                          //
	{"settings", "host-containers", "*", "user-data"},      // data handed to containers
	{"settings", "bootstrap-containers", "*", "user-data"}, //
}

// SecretSettings lists the settings whose values are never printed.
func SecretSettings() []string {
	out := make([]string, len(secretSettings))
	for i, p := range secretSettings {
		out[i] = p.String()
	}
	return out
}

// hidesValue reports whether messages about the setting at p must not
// show its value: p may hold a secret, lies inside one that may, or
// contains one (a string given where the secret's table is due could be
// the secret itself).
func hidesValue(p keyPath) bool {
	for _, secret := range secretSettings {
		n := min(len(p), len(secret))
		matched := true
		for i := range n {
			if secret[i] != "*" && secret[i] != p[i] {
				matched = false
				break
			}
		}
		if matched {
			return true
		}
	}
	return false
}
