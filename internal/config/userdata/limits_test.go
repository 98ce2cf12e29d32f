package userdata

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// mimeOf builds multipart user data from part bodies, each with its own
// header lines.
func mimeOf(parts ...string) string {
	var b strings.Builder
	b.WriteString("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n")
	for _, p := range parts {
		b.WriteString("--//\n" + p + "\n")
	}
	b.WriteString("--//--\n")
	return b.String()
}

// TestSplitLimits checks the bounds on what one payload may decode to:
// gzip parts that each stay under the per-stream cap but together inflate
// far more, and more parts than any node needs.
func TestSplitLimits(t *testing.T) {
	gzipPart := "Content-Type: text/x-shellscript\nContent-Transfer-Encoding: base64\n\n" +
		wrap76(b64(gzipBytes(t, strings.Repeat("# padding\n", 600_000)))) // 6 MB each
	t.Run("parts inflating past the total", func(t *testing.T) {
		docs, problems := Split(diag.Source{URI: "imds://user-data"}, []byte(mimeOf(gzipPart, gzipPart, gzipPart, gzipPart)))
		errs := problems.Filter(diag.SeverityError)
		if len(errs) != 1 || errs[0].Source.Part != 3 || !strings.Contains(errs[0].Message, "more than 16 MiB in total") {
			t.Fatalf("want one error on part 3, got:\n%v", problems)
		}
		total := 0
		for _, d := range docs {
			total += len(d.Data)
		}
		if len(docs) != 2 || total > maxDecodedTotal {
			t.Errorf("%d documents of %d bytes in total", len(docs), total)
		}
	})
	t.Run("too many parts", func(t *testing.T) {
		parts := make([]string, maxDocuments+500)
		for i := range parts {
			parts[i] = fmt.Sprintf("Content-Type: text/x-shellscript\n\necho %d", i)
		}
		docs, problems := Split(diag.Source{URI: "imds://user-data"}, []byte(mimeOf(parts...)))
		if len(docs) != maxDocuments || len(problems) != 1 || !strings.Contains(problems[0].Message, "more than 1000 documents") {
			t.Fatalf("%d documents, problems:\n%v", len(docs), problems)
		}
	})
	t.Run("thousands of problems", func(t *testing.T) {
		empty := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n" + strings.Repeat("--//\n", 3000) + "--//--\n"
		_, problems := Split(diag.Source{URI: "imds://user-data"}, []byte(empty)) // one warning per empty part
		if len(problems) != diag.MaxProblems+1 || !strings.Contains(problems[diag.MaxProblems].Message, "2900 more problems") {
			t.Fatalf("%d problems, last %v", len(problems), problems[len(problems)-1])
		}
	})
}
