package userdata

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// FuzzSplit checks that Split never panics, that documents carry sane
// sources, and that problems point at lines that exist.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		threePartMIME, eksMNG, nodeConfigA, shellScript, "[settings.kubernetes]\n", "#cloud-config\n",
		b64(threePartMIME), gzipBytes(f, threePartMIME), "\x1f\x8b", "Content-Type: multipart/mixed; boundary=\"\"\n\n",
		"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\n--b--",
	} {
		f.Add([]byte(s))
	}
	files, err := filepath.Glob("testdata/malformed/*.txt")
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, probs := Split(diag.Source{URI: "imds://user-data"}, data)
		for _, d := range docs {
			if d.Source.Part < 0 || d.Source.Line < 1 {
				t.Errorf("document source %+v: want Part >= 0 and Line >= 1", d.Source)
			}
			if d.Source.URI != "imds://user-data" || d.Source.Format != string(d.Format) {
				t.Errorf("document source %+v does not match format %q", d.Source, d.Format)
			}
		}
		for _, p := range probs {
			if p.Position.Line < 0 || p.Message == "" {
				t.Errorf("problem %+v", p)
			}
		}
	})
}
