// Command linkprobe is a user agent of the containers tests: it serves GET
// /health, and GET /rtt?to=<agent>&n=<count>, which times n GET /health
// round trips to that agent through the link WithLink gave it (the
// ARENA_LINK_<TO>_URL variable) and answers the fastest in nanoseconds (a
// latency toxic delays each request alike; a busy CPU only adds), or the
// error of the first request that failed.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

func linkURL(to string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, to)
	return os.Getenv("ARENA_LINK_" + name + "_URL")
}

func rtt(w http.ResponseWriter, r *http.Request) {
	base := linkURL(r.URL.Query().Get("to"))
	if base == "" {
		http.Error(w, "no link to "+r.URL.Query().Get("to"), http.StatusNotFound)
		return
	}
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	c := &http.Client{Timeout: 5 * time.Second}
	defer c.CloseIdleConnections()
	var ds []time.Duration
	for range max(n, 1) {
		start := time.Now()
		resp, err := c.Get(base + "/health")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ds = append(ds, time.Since(start))
	}
	fmt.Fprint(w, int64(slices.Min(ds)))
}

func main() {
	http.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	http.HandleFunc("/rtt", rtt)
	if err := http.ListenAndServe(":8080", nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
