package main

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Config is an agent's configuration. DefaultConfig gives the reference
// cluster's timings, which mirror the fake cluster's (package fakes).
type Config struct {
	ID     string
	Type   string
	Routes []string // IDs of the agents tasks are handed to
	Source bool     // creates tasks (the leader)
	Addr   string   // listen address
	Data   string   // ledger and checkpoint directory; "" keeps them in memory

	RoutePort int // port of the route agents, reached by their ID as host name
	// RouteURLs gives the base URL of some routes (by ID), reached other
	// than as http://<id>:<RoutePort>: through a proxy or a gateway.
	RouteURLs    map[string]string
	TaskInterval time.Duration
	Work         int // SHA-256 rounds per attempt: CPU that slow_agent throttles
	ToolLatency  time.Duration
	TaskTimeout  time.Duration
	Retries      int
	Backoff      time.Duration
	MaxPending   int

	CheckpointInterval time.Duration
	MCPReconnect       time.Duration
	DAGRepair          time.Duration
	ErrorWindow        time.Duration
	ErrorThreshold     float64

	// RouteURL returns the base URL of a route agent; nil means
	// http://<id>:<RoutePort>. Tests wire agents in one process with it.
	RouteURL func(id string) string
	// Client sends tasks to routes; nil means a client with a short timeout.
	Client *http.Client
}

// DefaultConfig returns the defaults of every flag.
func DefaultConfig() Config {
	return Config{
		Type:               "worker",
		Addr:               ":8080",
		RoutePort:          8080,
		TaskInterval:       250 * time.Millisecond,
		Work:               200_000, // ≈ 20ms of one core: more than a throttled CFS quota
		ToolLatency:        20 * time.Millisecond,
		TaskTimeout:        3 * time.Second,
		Retries:            3,
		Backoff:            100 * time.Millisecond,
		MaxPending:         1000,
		CheckpointInterval: time.Second,
		MCPReconnect:       time.Second,
		DAGRepair:          time.Second,
		ErrorWindow:        2 * time.Second,
		ErrorThreshold:     0.2,
	}
}

// Validate reports the first bad field.
func (c Config) Validate() error {
	var errs []error
	if c.ID == "" {
		errs = append(errs, errors.New("-id is required"))
	}
	if c.Type == "" {
		errs = append(errs, errors.New("-type is required"))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
		zero bool // zero allowed
	}{
		{"task-interval", c.TaskInterval, false},
		{"tool-latency", c.ToolLatency, true},
		{"task-timeout", c.TaskTimeout, false},
		{"backoff", c.Backoff, true},
		{"checkpoint-interval", c.CheckpointInterval, false},
		{"mcp-reconnect", c.MCPReconnect, true},
		{"dag-repair", c.DAGRepair, true},
		{"error-window", c.ErrorWindow, false},
	} {
		if d.v < 0 || (d.v == 0 && !d.zero) {
			errs = append(errs, fmt.Errorf("-%s: want a positive duration, got %s", d.name, d.v))
		}
	}
	if c.Work < 0 || c.Retries < 0 || c.MaxPending < 1 {
		errs = append(errs, fmt.Errorf("-work, -retries must be ≥ 0 and -max-pending ≥ 1, got %d, %d, %d", c.Work, c.Retries, c.MaxPending))
	}
	if !(c.ErrorThreshold >= 0 && c.ErrorThreshold <= 1) { // NaN too
		errs = append(errs, fmt.Errorf("-error-threshold: want a rate in [0, 1], got %g", c.ErrorThreshold))
	}
	return errors.Join(errs...)
}
