// Command aemm-config prints an amazon-ec2-metadata-mock configuration
// serving the given user data, for hack/demo.sh.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/nodeboot/nodeboot/internal/aemmtest"
)

func main() {
	userData := flag.String("user-data", "", "file whose bytes IMDS serves as user data")
	flag.Parse()
	if *userData == "" {
		fmt.Fprintln(os.Stderr, "usage: aemm-config -user-data FILE")
		os.Exit(2)
	}
	data, err := os.ReadFile(*userData)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := aemmtest.ConfigJSON(aemmtest.Config{UserData: data})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
