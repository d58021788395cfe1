package mockhttp

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// PipeTransport is an [http.RoundTripper] that serves each request with Handler in memory,
// over an io.Pipe, with no sockets: inside a testing/synctest bubble every wait is then
// durably blocking, so fake time can advance past an idle timeout. Cancelling the request's
// context ends the body.
type PipeTransport struct{ Handler http.Handler }

// RoundTrip implements [http.RoundTripper]: it returns once the handler writes its header
// (or its first byte, or returns), or fails with the request context's error.
func (t PipeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan int, 1)}
	go func() {
		t.Handler.ServeHTTP(w, req)
		w.WriteHeader(http.StatusOK)
		_ = pw.Close()
	}()
	stop := context.AfterFunc(req.Context(), func() { pr.CloseWithError(req.Context().Err()) })
	select {
	case code := <-w.ready:
		return &http.Response{StatusCode: code, Header: w.header, Body: &stopBody{pr, stop}, Request: req}, nil
	case <-req.Context().Done():
		stop()
		_ = pr.Close()
		return nil, req.Context().Err()
	}
}

type pipeWriter struct {
	header http.Header
	pw     *io.PipeWriter
	once   sync.Once
	ready  chan int
}

func (w *pipeWriter) Header() http.Header { return w.header }
func (w *pipeWriter) WriteHeader(code int) {
	w.once.Do(func() { w.ready <- code })
}
func (w *pipeWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(p)
}
func (w *pipeWriter) Flush() {}

type stopBody struct {
	*io.PipeReader
	stop func() bool
}

func (b *stopBody) Close() error { b.stop(); return b.PipeReader.Close() }
