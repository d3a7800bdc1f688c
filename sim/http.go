package sim

import (
	"net/http"
	"time"
)

// HTTPTransport returns an *http.Transport whose connections are dialed
// from the node over the world's network: a client of "http://api:8080/"
// reaches the server that node "api" serves on port 8080 with
// http.Server.Serve(l). Everything else is net/http's own code, unchanged.
// When the world closes, its connections are cut and the transport's
// goroutines return.
func (n *Node) HTTPTransport() *http.Transport {
	return &http.Transport{
		DialContext:         n.DialContext,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
	}
}

// HTTPClient returns an *http.Client on HTTPTransport with the given
// timeout per request (0: none).
func (n *Node) HTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{Transport: n.HTTPTransport(), Timeout: timeout}
}
