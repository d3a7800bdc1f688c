package agents

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Payment is one payment the ledger applied.
type Payment struct {
	Receipt string `json:"receipt"`
	Account string `json:"account"`
	Amount  int    `json:"amount"`
	Balance int    `json:"balance"` // the account's balance right after it
	Key     string `json:"-"`       // the idempotency key it was made with
	Task    string `json:"-"`       // the task it was made for (from the key)
}

// Ticket is one ticket the ticket store opened.
type Ticket struct {
	Ticket string `json:"ticket"`
	Title  string `json:"title"`
	Key    string `json:"-"`
	Task   string `json:"-"`
}

// Store is what the tools did: the ledger's payments and the tickets,
// each applied once per idempotency key. It outlives the servers' restarts,
// as a database would; it is the truth the checks read.
type Store struct {
	mu       sync.Mutex
	payments []Payment
	tickets  []Ticket
	byKey    map[string]any // idempotency key → *Payment or *Ticket index
	balances map[string]int
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{byKey: map[string]any{}, balances: map[string]int{}} }

// Payments and Tickets return copies of what was applied, in order.
func (s *Store) Payments() []Payment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Payment(nil), s.payments...)
}

func (s *Store) Tickets() []Ticket {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Ticket(nil), s.tickets...)
}

// taskOf is the task an idempotency key was made for: the key is the task
// ID, or the task ID, "/" and more.
func taskOf(key string) string {
	for i := range len(key) {
		if key[i] == '/' {
			return key[:i]
		}
	}
	return key
}

func (s *Store) pay(account string, amount int, key string) Payment {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i, ok := s.byKey[key]; ok && key != "" {
		return s.payments[i.(int)]
	}
	s.balances[account] += amount
	p := Payment{Receipt: fmt.Sprintf("r-%d", len(s.payments)+1), Account: account, Amount: amount,
		Balance: s.balances[account], Key: key, Task: taskOf(key)}
	s.payments = append(s.payments, p)
	if key != "" {
		s.byKey[key] = len(s.payments) - 1
	}
	return p
}

func (s *Store) receipt(id string) (Payment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int
	if _, err := fmt.Sscanf(id, "r-%d", &n); err != nil || n < 1 || n > len(s.payments) || s.payments[n-1].Receipt != id {
		return Payment{}, false
	}
	return s.payments[n-1], true
}

func (s *Store) openTicket(title, key string) Ticket {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := "ticket:" + key
	if i, ok := s.byKey[k]; ok && key != "" {
		return s.tickets[i.(int)]
	}
	t := Ticket{Ticket: fmt.Sprintf("T-%d", len(s.tickets)+1), Title: title, Key: key, Task: taskOf(key)}
	s.tickets = append(s.tickets, t)
	if key != "" {
		s.byKey[k] = len(s.tickets) - 1
	}
	return t
}

func (s *Store) ticket(id string) (Ticket, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int
	if _, err := fmt.Sscanf(id, "T-%d", &n); err != nil || n < 1 || n > len(s.tickets) || s.tickets[n-1].Ticket != id {
		return Ticket{}, false
	}
	return s.tickets[n-1], true
}

// The tools' inputs.
type (
	PayIn struct {
		Account string `json:"account" jsonschema:"the account to pay"`
		Amount  int    `json:"amount" jsonschema:"the amount, in cents"`
		Key     string `json:"key,omitempty" jsonschema:"an idempotency key: a second call with it pays nothing more"`
	}
	ReceiptIn struct {
		Receipt string `json:"receipt"`
	}
	OpenTicketIn struct {
		Title string `json:"title"`
		Key   string `json:"key,omitempty" jsonschema:"an idempotency key"`
	}
	GetTicketIn struct {
		Ticket string `json:"ticket"`
	}
)

// ToolWork is how long each tool call takes on its server.
const ToolWork = 50 * time.Millisecond

// LedgerServer is the ledger's MCP server: pay and receipt.
func LedgerServer(s *Store) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "ledger", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "pay", Description: "Pays amount to account; returns the receipt and the balance after it."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in PayIn) (*mcp.CallToolResult, Payment, error) {
			if !pause(ctx, ToolWork) {
				return nil, Payment{}, ctx.Err()
			}
			return nil, s.pay(in.Account, in.Amount, in.Key), nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "receipt", Description: "The payment of a receipt."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in ReceiptIn) (*mcp.CallToolResult, Payment, error) {
			p, ok := s.receipt(in.Receipt)
			if !ok {
				return nil, Payment{}, fmt.Errorf("no receipt %q", in.Receipt)
			}
			return nil, p, nil
		})
	return srv
}

// TicketServer is the ticket store's MCP server: open_ticket and get_ticket.
func TicketServer(s *Store) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tickets", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "open_ticket", Description: "Opens a ticket; returns its ID."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in OpenTicketIn) (*mcp.CallToolResult, Ticket, error) {
			if !pause(ctx, ToolWork) {
				return nil, Ticket{}, ctx.Err()
			}
			return nil, s.openTicket(in.Title, in.Key), nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "get_ticket", Description: "A ticket by its ID."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in GetTicketIn) (*mcp.CallToolResult, Ticket, error) {
			t, ok := s.ticket(in.Ticket)
			if !ok {
				return nil, Ticket{}, fmt.Errorf("no ticket %q", in.Ticket)
			}
			return nil, t, nil
		})
	return srv
}

// SessionTimeout is how long an MCP server keeps a session nobody uses.
const SessionTimeout = time.Minute

// mcpServe serves srv over MCP's streamable HTTP, and closes its sessions
// when the node stops. A new handler (each start of the node) knows no
// session: a restarted server answers the old ones 404.
func mcpServe(srv *mcp.Server) (http.Handler, func()) {
	opts := &mcp.StreamableHTTPOptions{SessionTimeout: SessionTimeout}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts), func() {
		for ss := range srv.Sessions() {
			ss.Close()
		}
	}
}
