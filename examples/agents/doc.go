// Package agents is an agent system under arena, in simulated time: an
// orchestrator hands the users' tasks to three workers, each an agent that
// asks a model what to do through a provider's official SDK (openai-go;
// anthropic-sdk-go, streaming; openai-go, streaming), does it with tools
// over MCP sessions of the official Go SDK (a ledger: pay, receipt; a
// ticket store: open_ticket, get_ticket), checks what the tools said
// against their own records, and answers. The model is scripted (Model: it
// speaks both providers' wire protocols, as JSON and as event streams); the
// agent code, the SDKs and the MCP servers are real. Everything runs on
// package sim's nodes and network, in a testing/synctest bubble: the clock
// is simulated, an hour of chaos takes seconds.
//
// agentwire's transports carry every model and tool call, so arena's agent
// faults (llm_failure, mcp_disconnect, tool_timeout, slow_agent, and
// agentwire's llm_error, tool_error, tool_lie, mcp_session_loss) reach
// them as the providers and the MCP servers fail; the sim world lands the
// kills, pauses and network faults.
//
// The checks (System.Checks) read recorded histories, each only what is new
// since it last ran: no task lost, each tool effect applied at most once,
// no task answered done on a result no tool gave, at most MaxModelCalls
// model calls per task. Flaws plants a bug per check.
//
// The tests: TestSDKsUnderLLMFaults and TestGoSDKUnderMCPFaults, the tables
// of what the SDKs return under each fault; TestGoSDKUnderStreamFaults and
// TestGoSDKOverCommandUnderFaults, the same over go-sdk's in-memory
// transport (simulated) and a ledger process on stdio (real time, the one
// test on the wall clock); TestScenarios, the built-in
// agent scenarios and testdata/agent-wire.yaml against the correct system;
// TestPlantedCaught, each planted bug caught and shrunk; TestSurvival, ten
// minutes of survival (an hour with -agents.survival=1h, as make test runs
// it).
package agents
