package providertest

import (
	"net/http"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// Handler is a mock server that is not listening (a mock's NewHandler).
type Handler interface {
	http.Handler
	Release()
}

// PipeClient is an HTTP client whose requests h serves over an in-memory pipe
// ([mockhttp.PipeTransport]), so a test can run in fake time; h's stalls are released when
// the test ends.
func PipeClient(t *testing.T, h Handler) *http.Client {
	t.Cleanup(h.Release)
	return &http.Client{Transport: mockhttp.PipeTransport{Handler: h}}
}
