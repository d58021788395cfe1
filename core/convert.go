package core

import (
	"fmt"
	"strings"
)

// ConvertToLLM projects the agent's transcript onto the three roles a model understands
// (pi's convertToLlm): user, assistant and tool results pass through; bash executions,
// custom messages and summaries become user messages; anything else is dropped.
func ConvertToLLM(messages []Message) []Message {
	out := make([]Message, 0, len(messages))
	for _, m := range messages {
		switch m := m.(type) {
		case *UserMessage, *AssistantMessage, *ToolResultMessage:
			out = append(out, m)
		case *BashExecutionMessage:
			if m.ExcludeFromContext {
				continue
			}
			out = append(out, &UserMessage{Content: []Content{TextBlock(BashExecutionText(m))}, Timestamp: m.Timestamp})
		case *CustomMessage:
			out = append(out, &UserMessage{Content: m.Content, Timestamp: m.Timestamp})
		case *BranchSummaryMessage:
			text := "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n" + m.Summary + "</summary>"
			out = append(out, &UserMessage{Content: []Content{TextBlock(text)}, Timestamp: m.Timestamp})
		case *CompactionSummaryMessage:
			text := "The conversation history before this point was compacted into the following summary:\n\n<summary>\n" + m.Summary + "\n</summary>"
			out = append(out, &UserMessage{Content: []Content{TextBlock(text)}, Timestamp: m.Timestamp})
		}
	}
	return out
}

// BashExecutionText is the user-message text a bash execution becomes in the model context.
func BashExecutionText(m *BashExecutionMessage) string {
	var b strings.Builder
	b.WriteString("Ran `")
	b.WriteString(m.Command)
	b.WriteString("`\n")
	if m.Output != "" {
		b.WriteString("```\n")
		b.WriteString(m.Output)
		b.WriteString("\n```")
	} else {
		b.WriteString("(no output)")
	}
	switch {
	case m.Cancelled:
		b.WriteString("\n\n(command cancelled)")
	case m.ExitCode != nil && *m.ExitCode != 0:
		fmt.Fprintf(&b, "\n\nCommand exited with code %d", *m.ExitCode)
	}
	if m.Truncated && m.FullOutputPath != "" {
		b.WriteString("\n\n[Output truncated. Full output: " + m.FullOutputPath + "]")
	}
	return b.String()
}
