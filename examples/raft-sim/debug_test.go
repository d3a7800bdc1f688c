//go:debug randseednop=0

package raftsim

// The line above lets Config.SeedRaft seed math/rand's global source,
// which raft draws its election timeouts from (since Go 1.24 rand.Seed is
// a no-op without it).
