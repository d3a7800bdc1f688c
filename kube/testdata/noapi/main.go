// Command noapi is a test agent that serves none of the agentapi contract:
// it answers 404 to everything, on $AGENTD_ADDR.
package main

import (
	"net/http"
	"os"
)

func main() {
	srv := &http.Server{Addr: os.Getenv("AGENTD_ADDR"), Handler: http.NotFoundHandler()}
	if err := srv.ListenAndServe(); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}
