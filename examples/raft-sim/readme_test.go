package raftsim

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ares-arena/arena/arenatest"
)

// TestREADMESnippets keeps the README's sections on tests in simulated time
// (examples/agents' among them) true: each code
// block there appears, line for line, in the file that the nearest link
// before it names (indentation and, for plain text, "// " set aside), and
// those files are compiled and run by make test.
func TestREADMESnippets(t *testing.T) {
	if arenatest.Deterministic() {
		t.Skip("reads ../../README.md, outside the package directory, which deterministic mode does not show the program: checked in native simulated time")
	}
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	for _, title := range []string{"## Testing your own Go code in simulated time\n", "## Shrinking a failure in simulated time\n",
		"## Testing an agent system\n"} {
		checkSection(t, root, readme, title)
	}
}

// checkSection checks the code blocks of the README's section title.
func checkSection(t *testing.T, root, readme, title string) {
	t.Helper()
	start := strings.Index(readme, title)
	if start < 0 {
		t.Fatalf("README.md has no %q section", strings.TrimSpace(title))
	}
	section := readme[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	link := regexp.MustCompile(`\]\(([^)]+\.(?:go|txt))\)`)
	block := regexp.MustCompile("(?s)```(go)?\n(.*?)```")
	blocks := block.FindAllStringSubmatchIndex(section, -1)
	if len(blocks) < 3 {
		t.Fatalf("found %d code blocks in the section %q, want at least 3", len(blocks), strings.TrimSpace(title))
	}
	for _, b := range blocks {
		links := link.FindAllStringSubmatch(section[:b[0]], -1)
		if len(links) == 0 {
			t.Errorf("code block at offset %d has no source file linked before it", b[0])
			continue
		}
		file := links[len(links)-1][1]
		src, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		text := b[2] < 0
		snippet := lines(section[b[4]:b[5]], text)
		if !strings.Contains("\n"+strings.Join(lines(string(src), text), "\n")+"\n", "\n"+strings.Join(snippet, "\n")+"\n") {
			t.Errorf("README.md shows a snippet that %s does not hold:\n%s", file, strings.Join(snippet, "\n"))
		}
	}
}

// lines trims each line of s, and the comment marker of example output.
func lines(s string, text bool) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		l = strings.TrimSpace(l)
		if text {
			l = strings.TrimSpace(strings.TrimPrefix(l, "//"))
		}
		out = append(out, l)
	}
	return out
}
