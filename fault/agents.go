package fault

// AgentInfo describes one agent of the system under test as its runtime reports it.
type AgentInfo struct {
	ID       string      `json:"id"`
	Type     string      `json:"type"` // "leader", "orchestrator", "worker", or a user type
	Status   AgentStatus `json:"status"`
	Restarts int         `json:"restarts"`
}

// AgentStatus is an agent's lifecycle state.
type AgentStatus string

// Agent statuses. Runtimes may report others; the engine treats unknown values as running.
const (
	StatusRunning AgentStatus = "running"
	StatusPaused  AgentStatus = "paused"
	StatusStopped AgentStatus = "stopped"
)

// Agent types with a meaning to the engine: kill_leader and kill_orchestrator target them.
const (
	TypeLeader       = "leader"
	TypeOrchestrator = "orchestrator"
	TypeWorker       = "worker"
)

// Edge is a directed edge of the task DAG.
type Edge struct {
	Source string `json:"source"`
	Target string `json:"target"`
}
