package acp

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

func TestSlashCommand(t *testing.T) {
	cases := []struct {
		blocks     []sdk.ContentBlock
		name, args string
	}{
		{[]sdk.ContentBlock{sdk.TextBlock("/compact")}, "compact", ""},
		{[]sdk.ContentBlock{sdk.TextBlock("  /compact keep the API notes \n")}, "compact", "keep the API notes"},
		{[]sdk.ContentBlock{sdk.TextBlock("/name\tMy session")}, "name", "My session"},
		{[]sdk.ContentBlock{sdk.TextBlock("/model\nopenai/gpt-4.1")}, "model", "openai/gpt-4.1"},
		// Not commands: unknown names, a word that only starts like one, text first, more blocks.
		{[]sdk.ContentBlock{sdk.TextBlock("/unknown x")}, "", ""},
		{[]sdk.ContentBlock{sdk.TextBlock("/compacted")}, "", ""},
		{[]sdk.ContentBlock{sdk.TextBlock("please /compact")}, "", ""},
		{[]sdk.ContentBlock{sdk.TextBlock("/session"), sdk.ImageBlock("AAAA", "image/png")}, "", ""},
		{[]sdk.ContentBlock{sdk.ResourceLinkBlock("/fork", "file:///fork")}, "", ""},
	}
	for _, c := range cases {
		cmd, args := slashCommand(c.blocks)
		name := ""
		if cmd != nil {
			name = cmd.name
		}
		if name != c.name || args != c.args {
			t.Errorf("%+v: %q %q, want %q %q", c.blocks[0], name, args, c.name, c.args)
		}
	}
}
