package transport

import (
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// textBody writes its text in pieces, as a body made of many parts does; size is what it
// claims to write.
type textBody struct {
	text string
	size int
}

func newBody(text string) *textBody { return &textBody{text: text, size: len(text)} }

func (b *textBody) Size() int { return b.size }

func (b *textBody) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for rest := b.text; rest != ""; {
		k := min(3, len(rest))
		m, err := io.WriteString(w, rest[:k])
		n += int64(m)
		if err != nil {
			return n, err
		}
		rest = rest[k:]
	}
	return n, nil
}

// A body takes the places bytes take: in the response lane, after an event, and framed with
// its size under Content-Length.
func TestWriterBodies(t *testing.T) {
	got := written(t, NDJSON, func(w *Writer) {
		w.Event(1, []byte("e1"))
		w.Event(2, []byte("e2"))
		w.ResponseBodyAfter(newBody("after1"), 1)
		w.ResponseBody(newBody("body"))
		w.Response([]byte("r"))
		w.ResponseBodyAfter(newBody("early"), 0)
	})
	if want := "body\nr\nearly\ne1\nafter1\ne2\n"; got != want {
		t.Fatalf("NDJSON: written %q, want %q", got, want)
	}
	got = written(t, ContentLength, func(w *Writer) {
		w.ResponseBody(newBody(`{"long":"answer"}`))
		w.Event(1, []byte(`{}`))
	})
	if want := "Content-Length: 17\r\n\r\n{\"long\":\"answer\"}Content-Length: 2\r\n\r\n{}"; got != want {
		t.Fatalf("Content-Length: written %q, want %q", got, want)
	}
}

// A body in the ordered lane counts its size toward the backpressure limit.
func TestWriterBodyBackpressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out testkit.Buffer
		w := NewWriter(&out, 10)
		w.Event(1, []byte("e1"))
		w.ResponseBodyAfter(newBody(strings.Repeat("b", 20)), 1) // queued behind e1: ordered lane
		waited := blockedWait(t, w, "Wait returned with a 20-byte body queued over a limit of 10")
		w.Start(NDJSON)
		<-waited
		w.Close(time.Minute)
		if got, want := out.String(), "e1\n"+strings.Repeat("b", 20)+"\n"; got != want {
			t.Fatalf("written %q, want %q", got, want)
		}
	})
}

// Under Content-Length a body that writes another size than it announced has corrupted the
// stream: the writer stops as after a failed write. Under NDJSON the line is still whole.
func TestWriterBodyWrongSize(t *testing.T) {
	var out testkit.Buffer
	w := NewWriter(&out, 1<<20)
	w.ResponseBody(&textBody{text: "abc", size: 4})
	w.Start(ContentLength)
	<-w.Broken()
	w.Response([]byte("more"))
	w.Close(time.Minute)

	got := written(t, NDJSON, func(w *Writer) {
		w.ResponseBody(&textBody{text: "abc", size: 4})
		w.Response([]byte("next"))
	})
	if want := "abc\nnext\n"; got != want {
		t.Fatalf("NDJSON: written %q, want %q", got, want)
	}
}
