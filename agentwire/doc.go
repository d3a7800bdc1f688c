// Package agentwire puts an agent system's own code under arena's agent
// faults, on the wire: the model calls its agents make through the
// providers' SDKs (OpenAI, Anthropic) and the tool calls they make through
// MCP clients (the official Go SDK's streamable HTTP transport) go through
// its RoundTrippers, those over go-sdk's stdio and in-memory transports
// through its stream (MCPConn), and the faults landed on an agent act on
// those calls
// exactly as the provider or the MCP server would fail them. Nothing of the
// agent or of the SDKs is patched; in a testing/synctest bubble every wait
// is the bubble's (simulated time), outside one the wall clock's.
//
//	a := agentwire.New()
//	llm := openai.NewClient(option.WithHTTPClient(&http.Client{Transport: a.LLM("worker-1", agentwire.OpenAI, base)}))
//	tools := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: a.MCP("worker-1", base)}}
//	conn := a.MCPConn("worker-1", stream) // a command's stdout and stdin, or a net.Pipe's end
//	stdio := &mcp.IOTransport{Reader: conn, Writer: conn}
//
// # Model faults
//
// llm_failure (fault.LLMErrorType) and llm_error (this package's type,
// every ErrorKind and every parameter of LLMFault) answer as the agent's
// provider does, from its documented error formats:
//
//	error             OpenAI                                  Anthropic
//	rate_limit        429 rate_limit_exceeded, retry-after,   429 rate_limit_error, retry-after,
//	                  x-ratelimit-*                           anthropic-ratelimit-*
//	quota             429 insufficient_quota                  429 rate_limit_error, enforced_spend_limit_reached
//	overloaded        503 server_error                        529 overloaded_error
//	server_error      500 server_error                        500 api_error
//	model_not_found   404 model_not_found                     404 not_found_error
//	invalid_response  200, its JSON cut short                 the same
//	timeout           no answer until the caller's deadline (or the lift: then the model answers)
//	stream_cut        the connection drops after after_events events (unexpected EOF)
//	stream_stall      the stream stops for delay after after_events events
//	malformed_event   an event whose data is JSON cut short, after after_events events
//	slow_first_token  the answer's first byte comes delay late
//
// Each answer carries the provider's request ID header (x-request-id,
// request-id). On an answer that is not a stream the stream faults act
// halfway through its body. An LLMFault is limited to one provider's
// clients, to the paths under a route, and to a share of the calls (rate:
// spread evenly, so a run is the same for a seed).
//
// # MCP and tool faults
//
//   - mcp_disconnect: every exchange of the agent's MCP client in flight (the
//     session's event stream, calls awaiting their answer) is cut with
//     ECONNRESET (DroppedError), and new ones are refused (ECONNREFUSED,
//     DownError) until lifted or for the reconnect time
//     (DefaultMCPReconnect, WithMCPReconnect). The server keeps the session:
//     a client that reconnects goes on with it.
//   - mcp_session_loss (this package): the server forgets the sessions given
//     so far, as after a restart: their requests get 404 "session not
//     found" (go-sdk: mcp.ErrSessionMissing); a new session works.
//   - tool_timeout: a tools/call is held for timeout and answered with a
//     JSON-RPC error (-32001); the server gets it and runs the tool, so its
//     effect may be done although the caller saw it fail. A caller whose
//     deadline comes first sees its own deadline.
//   - tool_error (this package): a tools/call is answered with a result whose
//     isError is true, without running the tool.
//   - tool_lie (this package): a tools/call runs, and the numbers of its
//     result (structuredContent and text, or under one key) change: a valid
//     answer with a wrong value.
//
// On a stream (MCPConn: newline-delimited JSON-RPC, go-sdk's stdio and
// in-memory transports) the session is the connection: mcp_disconnect
// closes it (the client reads a DroppedError, the server EOF) and a stream
// opened while the link is down is refused and closed (DownError);
// mcp_session_loss is a server that went away (the client reads EOF, its
// writes fail with EPIPE); the tool faults act as on HTTP, and a held
// call's late error is not sent once the client cancels the call
// (notifications/cancelled). slow_agent delays each request and
// notification the client writes, in order, without holding up the write;
// a call cancelled before it left never leaves.
//
// # The other built-in types
//
// slow_agent delays each of the agent's model and MCP calls before it
// leaves. World puts Agents beside a sim.World, which lands kill_* (a
// node's Stop, then Start again after its RestartAfter), pause_agent and
// resume_agent, network_partition, network_latency, network_bandwidth and
// connection_reset on the agents' nodes, and refuses memory_corrupt and
// clock_jump (in-process code has no memory or clock arena can reach),
// remove_node and remove_edge (no task DAG) with its reasons.
//
// Agents is a fault.Reacher: llm_failure and llm_error reach the agents
// with a model client, the MCP and tool faults those with an MCP client, so
// a scenario's not:leader picks an agent that has one.
//
// # Index
//
//   - Agents: New, Option, WithMCPReconnect, DefaultMCPReconnect, Agents,
//     Agents.LLM, Agents.MCP, Agents.MCPConn, Agents.Hits, Agents.Reaches, World.
//   - Model faults: Provider, OpenAI, Anthropic, Providers, ErrorKind,
//     ErrorKinds, LLMFault, Agents.InjectLLM, Agents.InjectLLMFailure,
//     DefaultRetryAfter, DefaultStreamDelay, DefaultAfterEvents.
//   - MCP faults: Agents.DisconnectMCP, Agents.ForgetSessions,
//     Agents.ToolTimeout, Agents.FailTools, ToolFault, ToolKind, ToolHang,
//     ToolError, ToolLie, DefaultToolError, DroppedError, DownError.
//   - Fault types: Agents.Faults, ActionLLMError, ActionToolError,
//     ActionToolLie, ActionMCPSessionLoss; Agents.SlowAgent.
package agentwire
