package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/tools"
)

// clientFiles is a session's file access through the client's fs/read_text_file and
// fs/write_text_file (docs/editors.md, "Editor files and terminals"): the tools see the
// editor's buffers, saved or not, and the editor applies, and tracks, every change. It
// serves the tools' [tools.Access] for the sides the client offered.
type clientFiles struct {
	w        *writer
	st       *acpSession
	canRead  bool
	canWrite bool
}

// through reports whether edit and write both read and write through the client, so their
// diffs come from its buffers rather than the disk.
func (f *clientFiles) through() bool { return f != nil && f.canRead && f.canWrite }

// clientAccess is the tools' access for a session of a client with caps: its files for the
// fs methods it offers, its terminals when it offers them; the disk and local processes
// otherwise. It also keeps the files side on st, for the previews.
func (st *acpSession) clientAccess(w *writer) tools.Access {
	var a tools.Access
	if fs := st.caps.Fs; fs.ReadTextFile || fs.WriteTextFile {
		f := &clientFiles{w: w, st: st, canRead: fs.ReadTextFile, canWrite: fs.WriteTextFile}
		st.files = f
		if f.canRead {
			a.Reader = f
		}
		if f.canWrite {
			a.Writer = f
		}
	}
	if st.caps.Terminal {
		a.Commands = &terminalRunner{w: w, st: st}
	}
	return a
}

func (f *clientFiles) read(ctx context.Context, path string) (string, error) {
	var res sdk.ReadTextFileResponse
	err := callClient(ctx, f.w, sdk.ClientMethodFsReadTextFile, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(f.st.id), Path: path}, &res)
	return res.Content, err
}

// ReadText implements [tools.TextReader]. The whole buffer is asked for (no line or
// limit), so the read tool pages and truncates it with the exact totals its notices give.
// The text is remembered for the call: an edit's diff starts from it.
func (f *clientFiles) ReadText(ctx context.Context, tf tools.TextFile) (string, error) {
	text, err := f.read(ctx, tf.Path)
	if err != nil {
		return "", err
	}
	f.w.mu.Lock()
	if tc := f.st.calls[tf.ToolCallID]; tc != nil {
		if tc.read == nil {
			tc.read = map[string]string{}
		}
		tc.read[tf.Path] = text
	}
	f.w.mu.Unlock()
	return text, nil
}

// WriteText implements [tools.TextWriter]. The call's diff becomes the change really made:
// from the text the call read (an edit) or, for a write, the buffer as the client has it
// just before (a failed read is a new file); without fs/read_text_file the preview taken
// from disk stays.
func (f *clientFiles) WriteText(ctx context.Context, tf tools.TextFile, content string) error {
	f.w.mu.Lock()
	old, known := "", false
	if tc := f.st.calls[tf.ToolCallID]; tc != nil {
		old, known = tc.read[tf.Path]
	}
	f.w.mu.Unlock()
	exists := known
	if !known && f.canRead {
		text, err := f.read(ctx, tf.Path)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		old, exists, known = text, err == nil, true
	}
	err := callClient(ctx, f.w, sdk.ClientMethodFsWriteTextFile, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(f.st.id), Path: tf.Path, Content: content}, nil)
	if err != nil {
		return err
	}
	if known {
		f.w.mu.Lock()
		if tc := f.st.calls[tf.ToolCallID]; tc != nil {
			tc.preview = &tools.Preview{Path: tf.Path, OldText: old, NewText: content, Exists: exists}
		}
		f.w.mu.Unlock()
	}
	return nil
}

// previewFromClient computes the diff a permission request shows for an edit or write that
// goes through the client, from the client's buffer: it is asked for before the request
// (the sink cannot ask while it translates an event). A failed read is a file that does not
// exist yet.
func (f *clientFiles) previewFromClient(ctx context.Context, callID, tool string, args map[string]any) {
	p, ok := tools.PreviewChangeFrom(f.st.cwd, tool, args, func(abs string) (string, bool, bool) {
		text, err := f.read(ctx, abs)
		if ctx.Err() != nil {
			return "", false, false
		}
		return text, err == nil, true
	})
	if !ok {
		return
	}
	f.w.mu.Lock()
	if tc := f.st.calls[callID]; tc != nil {
		tc.preview = &p
	}
	f.w.mu.Unlock()
}
