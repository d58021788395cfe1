package piclient_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	piclient "github.com/pi-rpc/pi-rpc/clients/go"
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
)

// This example is the one of clients/go/README.md. It runs pi-rpc on the scripted model
// (--provider faux: no key, no network) in a fresh directory, lets its write be approved by
// the permission handler, prints what the agent does until agent_settled, and shows how a
// server error reads. For a real model, drop the faux flags and set OPENAI_API_KEY or
// ANTHROPIC_API_KEY in the environment (docs/configuration.md).
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	dir, err := os.MkdirTemp("", "piclient-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	// The scripted model: its first reply writes hello.txt, its second says so.
	script := filepath.Join(dir, "script.json")
	err = os.WriteFile(script, []byte(`{"responses": [
	  {"content": [{"type": "toolCall", "name": "write", "arguments": {"path": "hello.txt", "content": "hello\n"}}]},
	  {"content": [{"type": "text", "text": "I wrote hello.txt."}]}
	]}`), 0o644)
	if err != nil {
		log.Fatal(err)
	}

	c, err := piclient.Spawn(ctx, piclient.SpawnOptions{
		Binary: "pi-rpc", // looked up on PATH; or the path of bin/pi-rpc after make build
		Args:   []string{"--provider", "faux", "--faux-script", script, "--cwd", dir, "--no-session"},
		Options: piclient.Options{
			// With a handler, Initialize declares the permissions capability: pi-rpc asks
			// before every write, edit and bash call.
			OnPermission: func(_ context.Context, req piclient.PermissionRequest) piclient.PermissionDecision {
				fmt.Printf("asked: may %s run? yes\n", req.ToolName)
				return piclient.PermissionDecision{Decision: piclient.DecisionAllow}
			},
		},
	})
	if err != nil {
		log.Fatal(err) // the binary was not found or could not start
	}
	defer func() { _ = c.Close() }()

	ready, err := c.Initialize(ctx, protocol.InitializeParams{ProtocolVersion: protocol.ProtocolVersion})
	if err != nil {
		log.Fatal(err)
	}
	if len(ready.Problems) > 0 { // no model can run: a missing key, an unknown model, ...
		log.Fatal(ready.Problems[0].Message)
	}
	in, err := c.Prompt(ctx, protocol.PromptParams{Message: "Write hello.txt"})
	if err != nil {
		log.Fatal(err)
	}

	for ev, err := range c.Events(ctx) {
		if err != nil {
			log.Fatal(err) // ctx ended
		}
		switch ev.Type {
		case "tool_execution_end":
			var end protocol.ToolExecutionEndEvent
			if err := ev.Decode(&end); err != nil {
				log.Fatal(err)
			}
			fmt.Printf("tool %s: isError=%t\n", end.ToolName, end.IsError)
		case "message_end":
			var end protocol.MessageEndEvent
			if err := ev.Decode(&end); err != nil {
				log.Fatal(err)
			}
			if m, ok := end.Message.Message.(*core.AssistantMessage); ok {
				for _, block := range m.Content {
					if block.Type == core.ContentText {
						fmt.Println("assistant:", block.Text)
					}
				}
			}
		}
		if ev.Type == "agent_settled" {
			var s protocol.AgentSettledEvent
			if err := ev.Decode(&s); err != nil {
				log.Fatal(err)
			}
			fmt.Printf("settled: %s (%s) %s\n", s.Inputs[0].InputID, in.Disposition, s.Inputs[0].Outcome)
			break
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
	fmt.Printf("hello.txt: %q %v\n", data, err)

	// A server error is a *piclient.Error: the JSON-RPC code, and data.kind as Kind.
	_, err = c.WaitSettled(ctx, "in42")
	var rpcErr *piclient.Error
	if errors.As(err, &rpcErr) {
		fmt.Printf("waitSettled in42: %d %s: %s\n", rpcErr.Code, rpcErr.Kind(), rpcErr.Message)
	}

	// Output:
	// asked: may write run? yes
	// tool write: isError=false
	// assistant: I wrote hello.txt.
	// settled: in1 (started) completed
	// hello.txt: "hello\n" <nil>
	// waitSettled in42: -32012 notFound: No input in42
}
