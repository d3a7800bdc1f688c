package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ares-arena/arena/agentapi"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseConfig(t *testing.T) {
	cfg, err := parseConfig([]string{"-id", "worker-7", "-task-timeout", "1s"}, env(map[string]string{
		"AGENTD_TYPE": "orchestrator", "AGENTD_ROUTES": "worker-1, worker-2,", "AGENTD_TASK_TIMEOUT": "9s",
		"AGENTD_DATA": "/data", "AGENTD_ROUTE_URLS": "worker-2=http://172.17.0.1:40123/",
	}), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%s %s %v %s %s source=%t %v", cfg.ID, cfg.Type, cfg.Routes, cfg.TaskTimeout, cfg.Data, cfg.Source, cfg.RouteURLs)
	if want := "worker-7 orchestrator [worker-1 worker-2] 1s /data source=false map[worker-2:http://172.17.0.1:40123]"; got != want {
		t.Errorf("parseConfig = %q, want %q (flags win over the environment)", got, want)
	}
	if cfg, _ := parseConfig([]string{"-id", "l", "-type", "leader"}, env(nil), &bytes.Buffer{}); !cfg.Source {
		t.Error("a leader is not a source by default")
	}
	for _, tt := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, "-id is required"},
		{[]string{"-id", "a", "-task-interval", "0s"}, nil, "-task-interval: want a positive duration"},
		{[]string{"-id", "a"}, map[string]string{"AGENTD_BACKOFF": "soon"}, `AGENTD_BACKOFF="soon"`},
		{[]string{"-id", "a", "-source", "maybe"}, nil, "-source: want true or false"},
		{[]string{"-id", "a", "-error-threshold", "2"}, nil, "-error-threshold: want a rate in [0, 1]"},
		{[]string{"-id", "a", "-error-threshold", "NaN"}, nil, "-error-threshold: want a rate in [0, 1], got NaN"},
		{[]string{"-id", "a"}, map[string]string{"AGENTD_ERROR_THRESHOLD": "nan"}, "-error-threshold: want a rate in [0, 1], got NaN"},
		{[]string{"-id", "a", "stray"}, nil, "unexpected arguments"},
		{[]string{"-id", "a", "-route-urls", "w1"}, nil, `-route-urls: "w1": want id=URL`},
		{[]string{"-id", "a", "-route-urls", "w1=ftp://x"}, nil, `-route-urls: w1: want an http://host:port URL, got "ftp://x"`},
		{[]string{"-id", "a"}, map[string]string{"AGENTD_ROUTE_URLS": "w1=http://a:1,w1=http://b:2"}, "-route-urls: w1 given twice"},
	} {
		_, err := parseConfig(tt.args, env(tt.env), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseConfig(%q, %v) = %v, want %q", tt.args, tt.env, err, tt.want)
		}
	}
}

// run serves the contract until its context ends, then shuts down cleanly.
func TestRun(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr bytes.Buffer
	go func() {
		done <- run(ctx, []string{"-id", "worker-1", "-addr", addr, "-data", t.TempDir()}, env(nil), &stderr)
	}()
	c := &http.Client{Timeout: time.Second, Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := c.Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /health = %s", resp.Status)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("agentd did not answer: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Paused, with a request held: the shutdown drops it rather than
	// waiting for it.
	pause := strings.NewReader(`{"kind":"pause"}`)
	if resp, err := c.Post("http://"+addr+agentapi.PathFaults, "application/json", pause); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusOK {
		t.Fatalf("POST pause = %s", resp.Status)
	}
	held := make(chan error, 1)
	sent := make(chan struct{})
	var once sync.Once
	go func() {
		trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(func() { close(sent) }) }}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet, "http://"+addr+"/health", nil)
		resp, err := (&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}).Do(req)
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("answered %s", resp.Status)
		}
		held <- err
	}()
	// The GET is with the paused agent once it is written: held, or about
	// to be; either way the shutdown must drop it, not wait for the pause.
	select {
	case <-sent:
	case err := <-held:
		t.Fatalf("GET /health of the paused agent ended before it was sent: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run = %v, want a clean shutdown while paused", err)
	}
	if err := <-held; err == nil || strings.Contains(err.Error(), "answered") || strings.Contains(err.Error(), "Timeout") {
		t.Errorf("held GET /health = %v, want the connection dropped at shutdown", err)
	}
	if !strings.Contains(stderr.String(), "agentd started") {
		t.Errorf("log lacks the start line:\n%s", stderr.String())
	}
}
