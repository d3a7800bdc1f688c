// Package arena is a resilience (chaos) test harness for systems of agents.
package arena
