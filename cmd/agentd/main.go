// Command agentd is arena's reference agent: the process that the containers
// package runs in Docker when a test asks for reference agents. It is small,
// but it has what resilience is about: a task workload flowing through a DAG
// of agents, a durable ledger, a memory with a checkpoint on a volume, and
// the fault-control endpoints of the agentapi contract.
//
// # Cluster
//
// Each agent has an ID, a type and routes (the agents it hands tasks to, the
// outgoing edges of the task DAG). The reference cluster is leader-0 →
// orchestrator-0 → worker-1 … worker-N. An agent of type leader creates a
// task every -task-interval. An agent with routes hands each task it holds
// to one of them, round robin, skipping routes that refused or did not answer
// within the last second; an agent without routes executes its tasks. An
// attempt fails when the agent's memory is corrupted, its MCP session is
// down, its LLM fails or a tool times out (after the timeout, at most
// -task-timeout); it is retried -retries times with doubling backoff (never
// for invalid_response), then fails for good.
//
// # Durability
//
// With -data (the containers runtime mounts a volume there) every ledger
// entry (accepted, handed on, done, failed) is appended to ledger.log before
// the task is acknowledged, so a SIGKILL loses nothing: on start the agent
// replays the ledger and takes up the tasks that were not finished or handed
// on. The memory (tasks done and a digest of them, with a checksum) is
// checkpointed every -checkpoint-interval; a tick that finds the memory
// corrupted restores it from the checkpoint instead, as does a restart.
// Without -data everything is in memory and a kill loses it: the consistency
// checks notice.
//
// # Health
//
// GET /health is 200 unless the agent is out of the DAG or misses an
// outgoing edge (503, dag_broken), or more than -error-threshold of the tasks
// it finished within -error-window failed (503).
//
// # Flags
//
// Every flag can also be set by the environment variable AGENTD_<NAME>
// (-task-interval is AGENTD_TASK_INTERVAL); a flag given on the command line
// wins.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "agentd:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("agent", cfg.ID)
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer stop()

	a, err := NewAgent(cfg, log)
	if err != nil {
		return err
	}
	// Requests live in ctx: a request held by a pause ends with the agent
	// rather than holding up Shutdown.
	srv := &http.Server{Addr: cfg.Addr, Handler: a.Handler(), ReadHeaderTimeout: 5 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	log.Info("agentd started", "type", cfg.Type, "routes", strings.Join(cfg.Routes, ","), "addr", cfg.Addr, "data", cfg.Data)

	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	stop()
	<-done
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if serr := srv.Shutdown(shutdown); serr != nil && err == nil {
		err = serr
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(err, a.Close())
}

// parseConfig reads flags, with AGENTD_* environment variables as defaults.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	cfg := DefaultConfig()
	fs := flag.NewFlagSet("agentd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var routes, routeURLs string
	var source string
	fs.StringVar(&cfg.ID, "id", cfg.ID, "agent ID")
	fs.StringVar(&cfg.Type, "type", cfg.Type, "agent type: leader, orchestrator, worker or your own")
	fs.StringVar(&routes, "routes", "", "comma-separated IDs of the agents this one hands tasks to")
	fs.StringVar(&source, "source", "", "create tasks: true or false (default: true for type leader)")
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address")
	fs.StringVar(&cfg.Data, "data", cfg.Data, "directory of the ledger and the checkpoint (empty: memory only)")
	fs.IntVar(&cfg.RoutePort, "route-port", cfg.RoutePort, "port of the agents this one routes to")
	fs.StringVar(&routeURLs, "route-urls", "", "comma-separated id=URL: the base URL of a route reached other than as http://<id>:<route-port> (through a proxy)")
	fs.DurationVar(&cfg.TaskInterval, "task-interval", cfg.TaskInterval, "time between tasks of a source")
	fs.IntVar(&cfg.Work, "work", cfg.Work, "SHA-256 rounds of CPU work per attempt")
	fs.DurationVar(&cfg.ToolLatency, "tool-latency", cfg.ToolLatency, "time a tool call takes")
	fs.DurationVar(&cfg.TaskTimeout, "task-timeout", cfg.TaskTimeout, "an attempt fails after this")
	fs.IntVar(&cfg.Retries, "retries", cfg.Retries, "retries of a failed attempt")
	fs.DurationVar(&cfg.Backoff, "backoff", cfg.Backoff, "first retry backoff, doubled each retry")
	fs.DurationVar(&cfg.CheckpointInterval, "checkpoint-interval", cfg.CheckpointInterval, "time between checkpoint ticks")
	fs.DurationVar(&cfg.MCPReconnect, "mcp-reconnect", cfg.MCPReconnect, "a dropped MCP session reconnects after this (0: never on its own)")
	fs.DurationVar(&cfg.DAGRepair, "dag-repair", cfg.DAGRepair, "a removed node or edge is restored after this (0: never on its own)")
	fs.DurationVar(&cfg.ErrorWindow, "error-window", cfg.ErrorWindow, "window of the error rate")
	fs.Float64Var(&cfg.ErrorThreshold, "error-threshold", cfg.ErrorThreshold, "error rate above which the agent is unhealthy")
	fs.IntVar(&cfg.MaxPending, "max-pending", cfg.MaxPending, "a source creates no task while this many are pending")

	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := "AGENTD_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(name); v != "" {
			if err := f.Value.Set(v); err != nil && envErr == nil {
				envErr = fmt.Errorf("%s=%q: %w", name, v, err)
			}
		}
	})
	if envErr != nil {
		return cfg, envErr
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for r := range strings.SplitSeq(routes, ",") {
		if r = strings.TrimSpace(r); r != "" {
			cfg.Routes = append(cfg.Routes, r)
		}
	}
	if routeURLs != "" {
		urls, err := parseRouteURLs(routeURLs)
		if err != nil {
			return cfg, err
		}
		cfg.RouteURLs = urls
	}
	switch source {
	case "":
		cfg.Source = cfg.Type == "leader"
	case "true":
		cfg.Source = true
	case "false":
		cfg.Source = false
	default:
		return cfg, fmt.Errorf("-source: want true or false, got %q", source)
	}
	return cfg, cfg.Validate()
}

// parseRouteURLs reads -route-urls: id=URL pairs, each URL absolute http.
func parseRouteURLs(s string) (map[string]string, error) {
	urls := map[string]string{}
	for pair := range strings.SplitSeq(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		id, raw, ok := strings.Cut(pair, "=")
		if !ok || id == "" {
			return nil, fmt.Errorf("-route-urls: %q: want id=URL", pair)
		}
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "http" || u.Host == "" {
			return nil, fmt.Errorf("-route-urls: %s: want an http://host:port URL, got %q", id, raw)
		}
		if _, dup := urls[id]; dup {
			return nil, fmt.Errorf("-route-urls: %s given twice", id)
		}
		urls[id] = strings.TrimSuffix(raw, "/")
	}
	return urls, nil
}
