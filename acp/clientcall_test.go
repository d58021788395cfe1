package acp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/transport"
	"github.com/pi-rpc/pi-rpc/tools"
)

func TestResponseID(t *testing.T) {
	for head, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"result":{"content":"aaaa`:  "7",
		`{"jsonrpc":"2.0","result":{"content":"a"},"id":12,`: "12",
		` { "id" : 3 , "result": {"content":"aa`:             "3",
		`{"jsonrpc":"2.0","method":"fs/x","id":1,"params":{`: "",
		`{"jsonrpc":"2.0","result":{"content":"aaaaaaaaaaaa`: "",
		`{"id":"text-ids-are-not-ours","result":{`:           "",
		`[{"id":1}]`: "",
		`not json`:   "",
		``:           "",
	} {
		id, ok := responseID([]byte(head))
		if got := string(id); ok != (want != "") || got != want {
			t.Errorf("responseID(%q) = %q, %v; want %q", head, got, ok, want)
		}
	}
}

// An editor's answer over the limit fails the read that waits for it, with the limit named,
// instead of leaving it waiting until an abort.
func TestOversizedAnswerFailsTheCall(t *testing.T) {
	peer, st := newFakePeer(t, func(string, json.RawMessage) any { return nil })
	files := &clientFiles{w: peer.w, st: st, canRead: true, canWrite: true}
	errc := make(chan error, 1)
	go func() {
		_, err := files.ReadText(context.Background(), tools.TextFile{ToolCallID: "call_1", Path: "/w/a"})
		errc <- err
	}()
	peer.waitFor(t, "fs/read_text_file")
	peer.mu.Lock()
	id := peer.ids["fs/read_text_file"]
	peer.mu.Unlock()
	if answerTooLarge(peer.w, &transport.TooLargeError{Head: []byte(`{"jsonrpc":"2.0","id":999,"result":{"content":"`)}, 1024) {
		t.Fatal("an answer to no pending request was taken")
	}
	head := `{"jsonrpc":"2.0","id":` + string(*id) + `,"result":{"content":"aaaaaaaa`
	if !answerTooLarge(peer.w, &transport.TooLargeError{Head: []byte(head)}, 1024) {
		t.Fatal("the oversized answer was not taken")
	}
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "larger than --max-message-bytes (1024 bytes)") {
		t.Fatalf("read: %v", err)
	}
}
