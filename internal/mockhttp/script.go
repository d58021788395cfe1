package mockhttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// ParseJSON decodes a script into v, rejecting unknown fields with the line they are on, so
// a typo does not silently change a test.
func ParseJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		off := min(int(dec.InputOffset()), len(data))
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			// The decoder has read past the field by now; point at the field itself.
			if i := bytes.Index(data, []byte(name)); i >= 0 {
				off = i
			}
		}
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		return fmt.Errorf("line %d: %w", line, err)
	}
	return nil
}

// LoadJSON reads the script file at path into v (see [ParseJSON]); errors name the file.
func LoadJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := ParseJSON(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// InlineSSEFile reads the captured stream a script names with sseFile (relative to the
// script's directory) into *sse and clears *file; field names the field in errors.
func InlineSSEFile(script, field string, sse, file *string) error {
	if *file == "" {
		return nil
	}
	p := *file
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(script), p)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", script, field, err)
	}
	*sse, *file = string(b), ""
	return nil
}

// Split cuts s into pieces of at most size runes.
func Split(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		n, i := 0, 0
		for i < len(s) && n < size {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			n++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// ChunkSize is a script's chunkSize: the characters per streamed fragment, 4 when unset.
func ChunkSize(n int) int {
	if n <= 0 {
		return 4
	}
	return n
}

// JSONString is s as a JSON string literal.
func JSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Script is a mock's queue of scripted responses of type R, one per request; each mock names
// it Script for its own Response.
type Script[R any] struct {
	Responses []R `json:"responses"`
}

// LoadScript reads the script file at path (see [LoadJSON]) and inlines each response's
// sseFile (see [InlineSSEFile]).
func LoadScript[R any, P Faulted[R]](path string) (*Script[R], error) {
	var s Script[R]
	if err := LoadJSON(path, &s); err != nil {
		return nil, err
	}
	for i := range s.Responses {
		f := P(&s.Responses[i]).shared()
		if err := InlineSSEFile(path, fmt.Sprintf("responses[%d].sseFile", i), &f.SSE, &f.SSEFile); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

// ParseScript decodes a script, rejecting unknown fields with the line they are on (see
// [ParseJSON]).
func ParseScript[R any](data []byte) (*Script[R], error) {
	var s Script[R]
	if err := ParseJSON(data, &s); err != nil {
		return nil, err
	}
	return &s, nil
}
