package agents

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/ares-arena/arena/agentwire"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// conversation is one task's exchange with the model, through a
// provider's SDK: ask sends it and returns the model's turn (which joins the
// conversation); answer adds a tool's result.
type conversation interface {
	ask(ctx context.Context) (turn, error)
	answer(result string, isError bool)
}

// modelClient starts conversations with one provider's SDK.
type modelClient struct {
	provider agentwire.Provider
	stream   bool
	openai   openai.Client
	anthro   anthropic.Client
}

// ModelTimeout is each model request's timeout (the SDKs' own option).
const ModelTimeout = 15 * time.Second

// newModelClient makes the SDK client of provider, its requests through rt
// to the model node, with retries SDK retries of its own (the SDKs'
// default is 2).
func newModelClient(p agentwire.Provider, stream bool, rt http.RoundTripper, retries int) *modelClient {
	hc := &http.Client{Transport: rt}
	c := &modelClient{provider: p, stream: stream}
	switch p {
	case agentwire.OpenAI:
		c.openai = openai.NewClient(ooption.WithBaseURL("http://model/v1/"), ooption.WithAPIKey("sk-test"), ooption.WithHTTPClient(hc),
			ooption.WithMaxRetries(retries), ooption.WithRequestTimeout(ModelTimeout))
	case agentwire.Anthropic:
		c.anthro = anthropic.NewClient(aoption.WithBaseURL("http://model/"), aoption.WithAPIKey("sk-ant-test"), aoption.WithHTTPClient(hc),
			aoption.WithMaxRetries(retries), aoption.WithRequestTimeout(ModelTimeout))
	}
	return c
}

// start begins the conversation of a task; every request carries the
// task's ID (X-Task), for the count of model calls per task.
func (c *modelClient) start(task, text string) conversation {
	if c.provider == agentwire.Anthropic {
		var tools []anthropic.ToolUnionParam
		for _, name := range slices.Sorted(maps.Keys(modelTools)) {
			schema := modelTools[name]
			tools = append(tools, anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{
				Properties: schema["properties"], Required: schema["required"].([]string)}, name))
		}
		return &anthropicConversation{c: c, task: task, params: anthropic.MessageNewParams{
			Model: "claude-scripted", MaxTokens: 1024, Tools: tools,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(text))}}}
	}
	var tools []openai.ChatCompletionToolUnionParam
	for _, name := range slices.Sorted(maps.Keys(modelTools)) {
		schema := modelTools[name]
		tools = append(tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: name, Parameters: schema}))
	}
	return &openAIConversation{c: c, task: task, params: openai.ChatCompletionNewParams{
		Model: "gpt-scripted", Tools: tools, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)}}}
}

type openAIConversation struct {
	c      *modelClient
	task   string
	params openai.ChatCompletionNewParams
	callID string
}

func (v *openAIConversation) ask(ctx context.Context) (turn, error) {
	opt := ooption.WithHeader("X-Task", v.task)
	var msg openai.ChatCompletionMessage
	if v.c.stream {
		s := v.c.openai.Chat.Completions.NewStreaming(ctx, v.params, opt)
		var acc openai.ChatCompletionAccumulator
		for s.Next() {
			acc.AddChunk(s.Current())
		}
		err := s.Err()
		s.Close()
		if err != nil {
			return turn{}, err
		}
		if len(acc.Choices) == 0 {
			return turn{}, errors.New("openai: the stream ended without a choice")
		}
		msg = acc.Choices[0].Message
	} else {
		res, err := v.c.openai.Chat.Completions.New(ctx, v.params, opt)
		if err != nil {
			return turn{}, err
		}
		if len(res.Choices) == 0 {
			return turn{}, errors.New("openai: an answer without a choice")
		}
		msg = res.Choices[0].Message
	}
	v.params.Messages = append(v.params.Messages, msg.ToParam())
	if len(msg.ToolCalls) == 0 {
		return turn{text: msg.Content}, nil
	}
	call := msg.ToolCalls[0]
	var in map[string]any
	if err := json.Unmarshal([]byte(call.Function.Arguments), &in); err != nil {
		return turn{}, err
	}
	v.callID = call.ID
	return turn{tool: call.Function.Name, input: in}, nil
}

func (v *openAIConversation) answer(result string, _ bool) {
	v.params.Messages = append(v.params.Messages, openai.ToolMessage(result, v.callID))
}

type anthropicConversation struct {
	c      *modelClient
	task   string
	params anthropic.MessageNewParams
	useID  string
}

func (v *anthropicConversation) ask(ctx context.Context) (turn, error) {
	opt := aoption.WithHeader("X-Task", v.task)
	var msg anthropic.Message
	if v.c.stream {
		s := v.c.anthro.Messages.NewStreaming(ctx, v.params, opt)
		var err error
		for s.Next() {
			if aerr := msg.Accumulate(s.Current()); aerr != nil && err == nil {
				err = aerr
			}
		}
		if err == nil {
			err = s.Err()
		}
		s.Close()
		if err != nil {
			return turn{}, err
		}
		if msg.StopReason == "" {
			return turn{}, errors.New("anthropic: the stream ended before message_stop")
		}
	} else {
		res, err := v.c.anthro.Messages.New(ctx, v.params, opt)
		if err != nil {
			return turn{}, err
		}
		msg = *res
	}
	v.params.Messages = append(v.params.Messages, msg.ToParam())
	var t turn
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			t.text += b.Text
		case "tool_use":
			if err := json.Unmarshal(b.Input, &t.input); err != nil {
				return turn{}, err
			}
			t.tool, v.useID = b.Name, b.ID
		}
	}
	return t, nil
}

func (v *anthropicConversation) answer(result string, isError bool) {
	v.params.Messages = append(v.params.Messages, anthropic.NewUserMessage(anthropic.NewToolResultBlock(v.useID, result, isError)))
}

// retryable says whether a failed model call may succeed if made again:
// what the provider says is transient (429, 5xx, 529), timeouts and broken
// streams; not a 4xx such as a missing model.
func retryable(err error) bool {
	var oe *openai.Error
	var ae *anthropic.Error
	switch {
	case errors.As(err, &oe):
		return oe.StatusCode == 429 && oe.Code != "insufficient_quota" || oe.StatusCode >= 500
	case errors.As(err, &ae):
		return ae.StatusCode == 429 && ae.ErrorCode() == "" || ae.StatusCode >= 500
	}
	return true
}
