// Package testserver is a real MCP server, built on the SDK's server side, that the tests of
// tools/mcp and e2e drive over stdio (the mcp-testserver command) and streamable HTTP (in
// process). Its tools cover what the client must handle: echo, error results, a call that
// hangs until cancelled, images, structured content, big output, a tool list that changes,
// a crash in the middle of a call and garbage on stdout.
package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options say what the server may do to its process.
type Options struct {
	// Stdio is set when the server runs as a child on stdio: the crash and garbage tools then
	// exit the process and write to stdout.
	Stdio bool
	// Log receives one line per notable event ("cancelled hang"), for tests to wait on; the
	// command writes them to stderr.
	Log io.Writer
}

// ImagePNG is the 2x2 PNG the image tool returns.
var ImagePNG = func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}()

func object(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%s},"required":%s}`, props, req))
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func args(req *sdk.CallToolRequest) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &m)
	return m
}

// New returns the server.
func New(opts Options) *sdk.Server {
	logf := func(format string, a ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", a...)
		}
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "pi-rpc-testserver", Version: "1.0.0"}, nil)
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true}
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echoes its text.", InputSchema: object(`"text":{"type":"string"}`, "text"), Annotations: readOnly},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(fmt.Sprint(args(req)["text"])), nil
		})
	s.AddTool(&sdk.Tool{Name: "write_note", Description: "Pretends to write a note (not read-only).", InputSchema: object(`"note":{"type":"string"}`, "note")},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("wrote " + fmt.Sprint(args(req)["note"])), nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Always reports an error result.", InputSchema: object(``), Annotations: readOnly},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "the fail tool failed"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "hang", Description: "Never answers; returns when cancelled.", InputSchema: object(``), Annotations: readOnly},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			logf("hang started")
			<-ctx.Done()
			logf("cancelled hang")
			return nil, ctx.Err()
		})
	s.AddTool(&sdk.Tool{Name: "image", Description: "Returns a small PNG and a caption.", InputSchema: object(``), Annotations: readOnly},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a red pixel"}, &sdk.ImageContent{Data: ImagePNG, MIMEType: "image/png"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "structured", Description: "Returns structured content only.", InputSchema: object(``), Annotations: readOnly},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"answer": 42}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "big", Description: "Returns 3000 numbered lines.", InputSchema: object(``), Annotations: readOnly},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var b strings.Builder
			for i := 1; i <= 3000; i++ {
				fmt.Fprintf(&b, "line %d\n", i)
			}
			return text(b.String()), nil
		})
	s.AddTool(&sdk.Tool{Name: "add_tool", Description: "Adds the tool named in name (the list changes).", InputSchema: object(`"name":{"type":"string"}`, "name")},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			name := fmt.Sprint(args(req)["name"])
			s.AddTool(&sdk.Tool{Name: name, Description: "Added at run time.", InputSchema: object(``), Annotations: readOnly},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					return text("I am " + name), nil
				})
			return text("added " + name), nil
		})
	if opts.Stdio {
		s.AddTool(&sdk.Tool{Name: "crash", Description: "Exits the server in the middle of the call.", InputSchema: object(``), Annotations: readOnly},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				logf("crashing on purpose")
				os.Exit(3)
				return nil, nil
			})
		s.AddTool(&sdk.Tool{Name: "garbage", Description: "Writes garbage on stdout instead of an answer.", InputSchema: object(``), Annotations: readOnly},
			func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				_, _ = os.Stdout.WriteString("this is not JSON-RPC {{{\n")
				<-ctx.Done()
				return nil, ctx.Err()
			})
	}
	return s
}
