package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The output limits every tool shares (pi's DEFAULT_MAX_LINES / DEFAULT_MAX_BYTES /
// GREP_MAX_LINE_LENGTH). Models prompted for pi expect exactly these numbers, and the tool
// descriptions state them.
const (
	MaxLines          = 2000
	MaxBytes          = 50 * 1024
	GrepMaxLineLength = 500
)

// Truncation describes how an output was cut; it is pi's TruncationResult and appears in
// tool details as "truncation" so clients can say what was dropped.
type Truncation struct {
	Content string `json:"content"`
	// Truncated is false when the whole input fit.
	Truncated bool `json:"truncated"`
	// TruncatedBy is "lines", "bytes" or nil (null in JSON) when nothing was cut.
	TruncatedBy           *string `json:"truncatedBy"`
	TotalLines            int     `json:"totalLines"`
	TotalBytes            int     `json:"totalBytes"`
	OutputLines           int     `json:"outputLines"`
	OutputBytes           int     `json:"outputBytes"`
	LastLinePartial       bool    `json:"lastLinePartial"`
	FirstLineExceedsLimit bool    `json:"firstLineExceedsLimit"`
	MaxLines              int     `json:"maxLines"`
	MaxBytes              int     `json:"maxBytes"`
}

func truncatedBy(s string) *string { return &s }

// splitLinesForCounting splits on "\n"; a final newline does not start another line.
func splitLinesForCounting(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if strings.HasSuffix(s, "\n") {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// formatSize renders a byte count the way pi's notices do ("512B", "50.0KB", "1.5MB").
func formatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
	}
}

// measure is content's lines and the truncation's totals and limits: the whole content when
// it is within both limits, else Truncated with the cut left to the caller.
func measure(content string, maxLines, maxBytes int) (Truncation, []string) {
	lines := splitLinesForCounting(content)
	t := Truncation{
		TotalLines: len(lines), TotalBytes: len(content),
		MaxLines: maxLines, MaxBytes: maxBytes,
	}
	if len(lines) <= maxLines && len(content) <= maxBytes {
		t.Content, t.OutputLines, t.OutputBytes = content, len(lines), len(content)
		return t, lines
	}
	t.Truncated = true
	return t, lines
}

// truncateHead keeps whole leading lines within both limits. When the first line alone is
// over maxBytes the content is empty and FirstLineExceedsLimit is set, so the caller can point
// the model at another way to read it.
func truncateHead(content string, maxLines, maxBytes int) Truncation {
	t, lines := measure(content, maxLines, maxBytes)
	if !t.Truncated {
		return t
	}
	if len(lines[0]) > maxBytes {
		t.TruncatedBy = truncatedBy("bytes")
		t.FirstLineExceedsLimit = true
		return t
	}
	by := "lines"
	n, size := 0, 0
	for i := 0; i < len(lines) && i < maxLines; i++ {
		add := len(lines[i])
		if i > 0 {
			add++
		}
		if size+add > maxBytes {
			by = "bytes"
			break
		}
		size += add
		n++
	}
	if n >= maxLines && size <= maxBytes {
		by = "lines"
	}
	t.TruncatedBy = truncatedBy(by)
	t.Content = strings.Join(lines[:n], "\n")
	t.OutputLines, t.OutputBytes = n, len(t.Content)
	return t
}

// truncateTail keeps whole trailing lines within both limits; when the last line alone is too
// big, its final maxBytes (on a UTF-8 boundary) are kept and LastLinePartial is set.
func truncateTail(content string, maxLines, maxBytes int) Truncation {
	t, lines := measure(content, maxLines, maxBytes)
	if !t.Truncated {
		return t
	}
	by := "lines"
	start, size := len(lines), 0
	for i := len(lines) - 1; i >= 0 && len(lines)-i <= maxLines; i-- {
		add := len(lines[i])
		if start < len(lines) {
			add++
		}
		if size+add > maxBytes {
			by = "bytes"
			if start == len(lines) {
				t.TruncatedBy = truncatedBy(by)
				t.Content = tailBytes(lines[i], maxBytes)
				t.OutputLines, t.OutputBytes = 1, len(t.Content)
				t.LastLinePartial = true
				return t
			}
			break
		}
		size += add
		start = i
	}
	n := len(lines) - start
	if n >= maxLines && size <= maxBytes {
		by = "lines"
	}
	t.TruncatedBy = truncatedBy(by)
	t.Content = strings.Join(lines[start:], "\n")
	t.OutputLines, t.OutputBytes = n, len(t.Content)
	return t
}

// tailBytes returns at most max trailing bytes of s, starting on a rune boundary.
func tailBytes(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	i := len(s) - limit
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// truncateLine cuts one grep line to maxChars characters (UTF-16 units in pi; runes here).
func truncateLine(line string, maxChars int) (string, bool) {
	if utf8.RuneCountInString(line) <= maxChars {
		return line, false
	}
	n := 0
	for i := range line {
		if n == maxChars {
			return line[:i] + "... [truncated]", true
		}
		n++
	}
	return line, false
}

// TruncateHead keeps whole leading lines of content within maxLines and maxBytes, the way read
// does; tools outside this package (MCP results) cut their output with it.
func TruncateHead(content string, maxLines, maxBytes int) Truncation {
	return truncateHead(content, maxLines, maxBytes)
}
