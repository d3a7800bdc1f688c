package fakes

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ares-arena/arena/fault"
)

// inject runs a fault against agent id at the current simulated time, then
// lets the cluster react (elections, dispatch).
func (c *Cluster) inject(ctx context.Context, id string, land func(i int, a *agent) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	i, err := c.lookup(id)
	if err != nil {
		return err
	}
	err = land(i, &c.agents[i])
	c.touch(i)
	if err != nil {
		return err
	}
	c.settle()
	return nil
}

// injectLift is inject for a fault arena can lift: it hands back the
// fault's Lift, which runs undo on the agent (and lets the cluster react).
// undo ends the fault whatever happened since, so lifting a fault the
// cluster healed already, or lifting twice, changes nothing.
func (c *Cluster) injectLift(ctx context.Context, id string, land func(i int, a *agent) error, undo func(a *agent)) (fault.Lift, error) {
	if err := c.inject(ctx, id, land); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		return c.inject(ctx, id, func(_ int, a *agent) error {
			undo(a)
			return nil
		})
	}, nil
}

func cannotLand(id, why string) error {
	return fmt.Errorf("fakes: agent %q: %w: %s", id, fault.ErrCannotLand, why)
}

// StopAgent kills an agent. Its tasks are requeued from the ledger (lost
// without checkpoints); resurrection starts it again after the delay.
func (c *Cluster) StopAgent(ctx context.Context, agentID string) error {
	return c.inject(ctx, agentID, func(i int, a *agent) error {
		if a.status == fault.StatusStopped {
			return cannotLand(a.id, "already stopped")
		}
		a.status = fault.StatusStopped
		a.lifeGen++
		c.evacuate(i)
		if h := &c.opts.healing; h.Resurrection {
			c.schedule(h.ResurrectionDelay, evResurrect, i, a.lifeGen)
		}
		return nil
	})
}

// PauseAgent freezes a running agent until ResumeAgent or its lift (which
// resumes it if it is still paused). Its tasks are requeued from the ledger
// (lost without checkpoints).
func (c *Cluster) PauseAgent(ctx context.Context, agentID string) (fault.Lift, error) {
	return c.injectLift(ctx, agentID, func(i int, a *agent) error {
		if a.status != fault.StatusRunning {
			return cannotLand(a.id, "agent is "+string(a.status))
		}
		a.status = fault.StatusPaused
		c.evacuate(i)
		return nil
	}, func(a *agent) {
		if a.status == fault.StatusPaused {
			a.status = fault.StatusRunning
		}
	})
}

// ResumeAgent resumes a paused agent.
func (c *Cluster) ResumeAgent(ctx context.Context, agentID string) error {
	return c.inject(ctx, agentID, func(_ int, a *agent) error {
		if a.status != fault.StatusPaused {
			return cannotLand(a.id, "agent is "+string(a.status)+", not paused")
		}
		a.status = fault.StatusRunning
		return nil
	})
}

// SlowAgent adds delay to every attempt the agent starts, until lifted.
// A delay beyond the election timeout makes the agent unavailable.
func (c *Cluster) SlowAgent(ctx context.Context, agentID string, delay time.Duration) (fault.Lift, error) {
	return c.injectLift(ctx, agentID, func(_ int, a *agent) error {
		if delay <= 0 {
			return fmt.Errorf("fakes: agent %q: slow delay %s is not positive", a.id, delay)
		}
		a.slow = delay
		return nil
	}, func(a *agent) { a.slow = 0 })
}

// PartitionNetwork cuts the agent off the network: it is unavailable, gets
// no tasks, and its running attempts fail. Partition healing heals it after
// the delay, the lift at once.
func (c *Cluster) PartitionNetwork(ctx context.Context, agentID string) (fault.Lift, error) {
	return c.injectLift(ctx, agentID, func(i int, a *agent) error {
		if a.partitioned {
			return cannotLand(a.id, "already partitioned")
		}
		a.partitioned = true
		a.partGen++
		a.faultEpoch++
		if h := &c.opts.healing; h.PartitionHealing {
			c.schedule(h.PartitionHealDelay, evPartitionHeal, i, a.partGen)
		}
		return nil
	}, func(a *agent) {
		if a.partitioned {
			a.partitioned = false
			a.partGen++
		}
	})
}

// ToolTimeout makes the agent's tool calls hang for timeout and fail, until
// lifted.
func (c *Cluster) ToolTimeout(ctx context.Context, agentID string, timeout time.Duration) (fault.Lift, error) {
	return c.injectLift(ctx, agentID, func(_ int, a *agent) error {
		if timeout <= 0 {
			return fmt.Errorf("fakes: agent %q: tool timeout %s is not positive", a.id, timeout)
		}
		a.toolTimeout = timeout
		a.faultEpoch++
		return nil
	}, func(a *agent) { a.toolTimeout = 0 })
}

var _ fault.ClockJumper = (*Cluster)(nil)

// JumpClock puts the agent's clock offset ahead, until lifted: past
// ElectionTimeout the others reject its heartbeats, as stamped in the
// future, and it is unavailable (election replaces a role holder).
func (c *Cluster) JumpClock(ctx context.Context, agentID string, offset time.Duration) (fault.Lift, error) {
	return c.injectLift(ctx, agentID, func(_ int, a *agent) error {
		if offset <= 0 {
			return fmt.Errorf("fakes: agent %q: clock offset %s is not positive", a.id, offset)
		}
		a.clock = offset
		return nil
	}, func(a *agent) { a.clock = 0 })
}

// CorruptMemory flips the memory of a running or paused agent, so that it no
// longer matches its checkpoint's checksum.
func (c *Cluster) CorruptMemory(ctx context.Context, agentID string) error {
	return c.inject(ctx, agentID, func(i int, a *agent) error {
		if a.status == fault.StatusStopped {
			return cannotLand(a.id, "agent is stopped")
		}
		if !a.listed {
			a.listed = true
			c.corrupt = append(c.corrupt, i)
		}
		a.mem ^= c.rngMemory.Uint64() | 1
		for !a.corrupted() { // a second corruption undid the first
			a.mem ^= c.rngMemory.Uint64() | 1
		}
		a.faultEpoch++
		return nil
	})
}

// DisconnectMCP drops the agent's MCP session; MCP reconnect restores it
// after the delay, the lift at once.
func (c *Cluster) DisconnectMCP(ctx context.Context, agentID string) (fault.Lift, error) {
	return c.injectLift(ctx, agentID, func(i int, a *agent) error {
		if a.mcpDown {
			return cannotLand(a.id, "MCP already disconnected")
		}
		a.mcpDown = true
		a.mcpGen++
		a.faultEpoch++
		if h := &c.opts.healing; h.MCPReconnect {
			c.schedule(h.MCPReconnectDelay, evMCPReconnect, i, a.mcpGen)
		}
		return nil
	}, func(a *agent) {
		if a.mcpDown {
			a.mcpDown = false
			a.mcpGen++
		}
	})
}

// InjectLLMFailure makes the agent's LLM calls fail with errType until
// lifted.
func (c *Cluster) InjectLLMFailure(ctx context.Context, agentID string, errType fault.LLMErrorType) (fault.Lift, error) {
	return c.injectLift(ctx, agentID, func(_ int, a *agent) error {
		if !slices.Contains(fault.LLMErrorTypes(), errType) {
			return fmt.Errorf("fakes: agent %q: unknown LLM error type %q", a.id, errType)
		}
		a.llm = errType
		a.faultEpoch++
		return nil
	}, func(a *agent) { a.llm = "" })
}
