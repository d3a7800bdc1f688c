// Command genschema writes the JSON Schema of scenario files (see package
// schemagen) to the file named by its argument: `make schema` runs it.
package main

import (
	"fmt"
	"os"

	"github.com/ares-arena/arena/internal/schemagen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genschema FILE")
		os.Exit(2)
	}
	b, err := schemagen.Generate()
	if err == nil {
		err = os.WriteFile(os.Args[1], b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genschema:", err)
		os.Exit(1)
	}
}
