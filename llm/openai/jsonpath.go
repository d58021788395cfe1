package openai

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// pathIndex maps a field path ("providers.x.models[0].id") to where its value is in the
// document, so that an error names the whole path and its line.
type pathIndex map[string]valueSpan

// valueSpan is where a value is: its first byte, the byte after its last, and its line.
type valueSpan struct {
	start, end int64
	line       int
}

// line returns the line of field, or of its closest recorded parent.
func (p pathIndex) line(field string) int {
	for field != "" {
		if v, ok := p[field]; ok {
			return v.line
		}
		i := strings.LastIndexAny(field, ".[")
		if i < 0 {
			break
		}
		field = field[:i]
	}
	return 1
}

// at returns the path of the innermost value around offset (start < offset <= end), which
// is where encoding/json reports a value of the wrong type: after a scalar, or just inside
// an object or array. It reports false when no recorded value holds offset.
func (p pathIndex) at(offset int64) (string, bool) {
	best, found := "", false
	var bestLen int64
	for path, v := range p {
		if v.start < offset && offset <= v.end && (!found || v.end-v.start < bestLen) {
			best, bestLen, found = path, v.end-v.start, true
		}
	}
	return best, found
}

// indexPaths walks a JSON document and records where every value is, by its path. It stops
// at the first syntax error, keeping what it has.
func indexPaths(data []byte) pathIndex {
	idx := pathIndex{}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*pathFrame
	valuePath := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.isArray {
			return top.path + "[" + strconv.Itoa(top.n) + "]"
		}
		if top.path == "" {
			return top.key
		}
		return top.path + "." + top.key
	}
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return idx
		}
		var top *pathFrame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && !top.isArray && top.wantKey {
			if k, ok := tok.(string); ok {
				top.key = k
				top.wantKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('}'), json.Delim(']'):
			if v, ok := idx[top.path]; ok && top.path != "" {
				v.end = dec.InputOffset()
				idx[top.path] = v
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				advance(stack[len(stack)-1])
			}
			continue
		}
		p := valuePath()
		// off is where the previous token ended; the value starts after separators.
		start := off
		for start < int64(len(data)) && strings.IndexByte(" \t\r\n:,", data[start]) >= 0 {
			start++
		}
		if p != "" {
			idx[p] = valueSpan{start: start, end: dec.InputOffset(), line: lineAt(data, start)}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &pathFrame{path: p, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &pathFrame{path: p, isArray: true})
		default:
			if top != nil {
				advance(top)
			}
		}
	}
}

// pathFrame is an open object or array while indexing paths.
type pathFrame struct {
	path    string
	isArray bool
	n       int
	key     string
	wantKey bool
}

// advance moves past one value of the container.
func advance(f *pathFrame) {
	if f.isArray {
		f.n++
	} else {
		f.wantKey = true
	}
}

func lineAt(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	return 1 + bytes.Count(data[:offset], []byte("\n"))
}

// jsonKind names the JSON a Go type is decoded from, for "expected ..." in messages.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return t.String()
}
