package shrink

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeShowsTheShrinkExample keeps the README's shrinking example
// equal to ExampleRun: its code, and the output go test checks.
func TestReadmeShowsTheShrinkExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Shrinking a failing run\n")
	if !ok {
		t.Fatal("README.md has no section ## Shrinking a failing run")
	}
	_, code, _ := strings.Cut(section, "```go\n")
	code, rest, _ := strings.Cut(code, "```\n")
	_, output, _ := strings.Cut(rest, "```\n")
	output, _, _ = strings.Cut(output, "```\n")

	_, body, ok := strings.Cut(string(src), "func ExampleRun() {\n")
	body, out, ok2 := strings.Cut(body, "\t// Output:\n")
	out, _, _ = strings.Cut(out, "\n}\n")
	if !ok || !ok2 {
		t.Fatal("example_test.go has no ExampleRun with an output")
	}
	var wantCode, wantOut strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		wantCode.WriteString(strings.TrimPrefix(l, "\t") + "\n")
	}
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimPrefix(l, "\t//")
		wantOut.WriteString(strings.TrimPrefix(l, " ") + "\n")
	}
	if code != wantCode.String() {
		t.Errorf("README's example code differs from ExampleRun's:\n%s\nwant\n%s", code, wantCode.String())
	}
	if output != wantOut.String() {
		t.Errorf("README's example output differs from ExampleRun's:\n%s\nwant\n%s", output, wantOut.String())
	}
}
