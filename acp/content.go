package acp

import (
	"fmt"
	"net/url"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/core"
)

// promptInput turns a prompt's content blocks into the message the model sees and its
// images: text as is, a resource link as a reference to the file (the model reads it with
// its tools), an embedded resource as a context block with its text.
func promptInput(blocks []sdk.ContentBlock, cwd string) (string, []core.Content, *sdk.RequestError) {
	var parts []string
	var images []core.Content
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Image != nil:
			if b.Image.Data == "" {
				return "", nil, reqError(codeInvalidParams, fmt.Sprintf("Invalid params: prompt[%d] is an image without data", i), nil)
			}
			images = append(images, core.ImageBlock(b.Image.Data, b.Image.MimeType))
		case b.ResourceLink != nil:
			l := b.ResourceLink
			parts = append(parts, fmt.Sprintf("[Referenced: %s](%s)", l.Name, resourcePath(l.Uri)))
		case b.Resource != nil:
			r := b.Resource.Resource
			switch {
			case r.TextResourceContents != nil:
				t := r.TextResourceContents
				parts = append(parts, fmt.Sprintf("<context ref=%q>\n%s\n</context>", resourcePath(t.Uri), strings.TrimRight(t.Text, "\n")))
			case r.BlobResourceContents != nil:
				bl := r.BlobResourceContents
				if bl.MimeType != nil && strings.HasPrefix(*bl.MimeType, "image/") {
					images = append(images, core.ImageBlock(bl.Blob, *bl.MimeType))
					continue
				}
				parts = append(parts, fmt.Sprintf("[Attached binary resource: %s]", resourcePath(bl.Uri)))
			}
		case b.Audio != nil:
			return "", nil, reqError(codeInvalidParams, fmt.Sprintf("Invalid params: prompt[%d] is audio, which pi-rpc does not accept (promptCapabilities.audio is false)", i), nil)
		default:
			return "", nil, reqError(codeInvalidParams, fmt.Sprintf("Invalid params: prompt[%d] is not a content block", i), nil)
		}
	}
	if len(parts) == 0 && len(images) == 0 {
		return "", nil, reqError(codeInvalidParams, "Invalid params: the prompt is empty", nil)
	}
	_ = cwd
	return strings.Join(parts, "\n\n"), images, nil
}

// resourcePath is a file: URI as a path; other URIs stay as they are.
func resourcePath(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" {
		return u.Path
	}
	return uri
}
