package netfault

import (
	"io"
	"net/http"
	"testing"
)

// BenchmarkTransport is a call under no fault through the wrapper (which
// still watches it, so that a fault landing while it runs acts on it),
// beside the same call on the bare transport it wraps: the handler's own
// answer, no network.
func BenchmarkTransport(b *testing.B) {
	base := HandlerTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	n := New(nil, httpAgents...)
	defer n.Close()
	for name, rt := range map[string]http.RoundTripper{"bare": base, "netfault": n.Transport("client", base)} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodGet, "http://api/q", nil)
				resp, err := rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
