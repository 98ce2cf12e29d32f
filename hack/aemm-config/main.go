// Command aemm-config prints an amazon-ec2-metadata-mock configuration
// serving the given user data, for hack/demo.sh.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
)

func main() {
	userData := flag.String("user-data", "", "file whose bytes IMDS serves as user data")
	freePort := flag.Bool("free-port", false, "print a free loopback TCP port and exit")
	flag.Parse()
	if *freePort {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(l.Addr().(*net.TCPAddr).Port)
		_ = l.Close()
		return
	}
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
