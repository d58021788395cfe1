package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 300)
	byteHeavy := make([]string, 500)
	for i := range byteHeavy {
		byteHeavy[i] = "Line " + itoa(i+1) + " " + long
	}
	writeFiles(t, dir, map[string]string{
		"small.txt":    "Hello, world!\nLine 2",
		"2500.txt":     numberedLines(1, 2500),
		"100.txt":      numberedLines(1, 100),
		"bytes.txt":    strings.Join(byteHeavy, "\n"),
		"longline.txt": strings.Repeat("y", MaxBytes+10) + "\nnext",
		"text.png":     "not really a png",
		"bin.dat":      "abc\x00def",
		"sp ace.txt":   "spaced",
	})
	if err := os.WriteFile(filepath.Join(dir, "image.txt"), pngBytes(t, 4, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	tool := toolFor(t, "read", Options{Cwd: dir, Home: dir})
	tests := []struct {
		name     string
		args     map[string]any
		want     []string // substrings
		notWant  []string
		wantErr  string
		detailed bool
	}{
		{name: "small file verbatim", args: map[string]any{"path": "small.txt"}, want: []string{"Hello, world!\nLine 2"}},
		{name: "at prefix and tilde", args: map[string]any{"path": "@~/small.txt"}, want: []string{"Hello, world!"}},
		{name: "unicode space", args: map[string]any{"path": "sp\u00a0ace.txt"}, want: []string{"spaced"}},
		{name: "missing file", args: map[string]any{"path": "nope.txt"}, wantErr: "ENOENT: no such file or directory"},
		{name: "line limit", args: map[string]any{"path": "2500.txt"}, want: []string{"Line 1\n", "Line 2000", "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"}, notWant: []string{"Line 2001"}, detailed: true},
		{name: "offset", args: map[string]any{"path": "100.txt", "offset": 51.0}, want: []string{"Line 51", "Line 100"}, notWant: []string{"Line 50\n", "Use offset="}},
		{name: "limit", args: map[string]any{"path": "100.txt", "limit": 10.0}, want: []string{"Line 10\n\n[90 more lines in file. Use offset=11 to continue.]"}, notWant: []string{"Line 11"}},
		{name: "offset and limit", args: map[string]any{"path": "100.txt", "offset": 41.0, "limit": 20.0}, want: []string{"Line 41", "Line 60", "[40 more lines in file. Use offset=61 to continue.]"}},
		{name: "offset beyond end", args: map[string]any{"path": "100.txt", "offset": 200.0}, wantErr: "Offset 200 is beyond end of file (100 lines total)"},
		{name: "first line too long", args: map[string]any{"path": "longline.txt"}, want: []string{"[Line 1 is 50.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' longline.txt | head -c 51200]"}, detailed: true},
		{name: "png named txt", args: map[string]any{"path": "image.txt"}, want: []string{"Read image file [image/png]"}},
		{name: "text named png", args: map[string]any{"path": "text.png"}, want: []string{"not really a png"}},
		{name: "binary refused", args: map[string]any{"path": "bin.dat"}, wantErr: "Cannot read binary file: bin.dat"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, details, err := run(t, tool, tc.args)
			if failedAsWanted(t, err, tc.wantErr) {
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q; got %q", w, clip(text))
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(text, w) {
					t.Errorf("text has %q", w)
				}
			}
			if (details != nil) != tc.detailed {
				t.Errorf("details = %v, want set %v", details, tc.detailed)
			}
		})
	}
	t.Run("byte limit", func(t *testing.T) {
		text, details, err := run(t, tool, map[string]any{"path": "bytes.txt"})
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`\[Showing lines 1-\d+ of 500 \(50\.0KB limit\)\. Use offset=\d+ to continue\.\]`).MatchString(text) {
			t.Errorf("no byte-limit notice in %q", clip(text))
		}
		tr := details.(ReadDetails).Truncation
		if *tr.TruncatedBy != "bytes" || tr.TotalLines != 500 {
			t.Errorf("truncation = %+v", tr)
		}
	})
	t.Run("line limit details", func(t *testing.T) {
		_, details, _ := run(t, tool, map[string]any{"path": "2500.txt"})
		tr := details.(ReadDetails).Truncation
		if !tr.Truncated || *tr.TruncatedBy != "lines" || tr.TotalLines != 2500 || tr.OutputLines != 2000 {
			t.Errorf("truncation = %+v", tr)
		}
	})
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:150] + " … " + s[len(s)-150:]
	}
	return s
}

func TestReadImageResize(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.png"), pngBytes(t, 3000, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	tool := toolFor(t, "read", Options{Cwd: dir})
	res, err := tool.Execute(context.Background(), core.ToolCall{Args: map[string]any{"path": "big.png"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 2 || res.Content[1].Type != core.ContentImage {
		t.Fatalf("content = %+v", res.Content)
	}
	if want := "[Image: original 3000x1000, displayed at 2000x667. Multiply coordinates by 1.50 to map to original image.]"; !strings.Contains(res.Content[0].Text, want) {
		t.Errorf("text = %q, want note %q", res.Content[0].Text, want)
	}
	data, _ := base64.StdEncoding.DecodeString(res.Content[1].Data)
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width != 2000 || cfg.Height != 667 {
		t.Errorf("resized = %dx%d (%v), want 2000x667", cfg.Width, cfg.Height, err)
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	tool := toolFor(t, "write", Options{Cwd: dir})
	text, details, err := run(t, tool, map[string]any{"path": "a/b/c.txt", "content": "héllo"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Successfully wrote 5 bytes to a/b/c.txt"; text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
	if details != nil {
		t.Errorf("details = %v, want nil", details)
	}
	if got := readFile(t, filepath.Join(dir, "a/b/c.txt")); got != "héllo" {
		t.Errorf("file = %q", got)
	}
	// Overwrite keeps permissions.
	p := filepath.Join(dir, "x.sh")
	writeFiles(t, dir, map[string]string{"x.sh": "old"})
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, tool, map[string]any{"path": "x.sh", "content": "new"}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != testkit.KeptMode(0o755) || readFile(t, p) != "new" {
		t.Errorf("mode = %v content = %q", st.Mode(), readFile(t, p))
	}
}

func TestWriteConfinement(t *testing.T) {
	testkit.SkipUnderWine(t, "Wine makes a Unix symlink, which its Windows calls do not see as a link, so it cannot stand for a Windows one")
	root := t.TempDir()
	cwd := filepath.Join(root, "work")
	outside := filepath.Join(root, "outside")
	writeFiles(t, root, map[string]string{"work/in.txt": "in", "outside/secret.txt": "s"})
	if err := os.Symlink(outside, filepath.Join(cwd, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(cwd, "in.txt"), filepath.Join(cwd, "inner-link")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"write", "edit"} {
		tool := toolFor(t, name, Options{Cwd: cwd})
		for _, p := range []string{"../outside/new.txt", "link/secret.txt", "link/new.txt", outside + "/x.txt"} {
			args := map[string]any{"path": p, "content": "x", "edits": []any{map[string]any{"oldText": "s", "newText": "t"}}}
			_, _, err := run(t, tool, args)
			if err == nil || !strings.Contains(err.Error(), "Refusing to write outside the working directory") {
				t.Errorf("%s %s: error = %v, want refusal", name, p, err)
			}
		}
	}
	if got := readFile(t, filepath.Join(outside, "secret.txt")); got != "s" {
		t.Errorf("outside file changed: %q", got)
	}
	// A symlink staying inside cwd is fine, and the link itself survives.
	w := toolFor(t, "write", Options{Cwd: cwd})
	if _, _, err := run(t, w, map[string]any{"path": "inner-link", "content": "via link"}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(filepath.Join(cwd, "inner-link")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("symlink replaced by a file")
	}
	if got := readFile(t, filepath.Join(cwd, "in.txt")); got != "via link" {
		t.Errorf("target = %q", got)
	}
	// AllowOutsideCwd lifts it.
	w = toolFor(t, "write", Options{Cwd: cwd, AllowOutsideCwd: true})
	if _, _, err := run(t, w, map[string]any{"path": "../outside/new.txt", "content": "ok"}); err != nil {
		t.Errorf("with AllowOutsideCwd: %v", err)
	}
}

func TestWriteAbortedBeforeRename(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.txt": "old"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := writeFileAtomic(ctx, filepath.Join(dir, "f.txt"), []byte("new")); err == nil || err.Error() != "Operation aborted" {
		t.Fatalf("error = %v", err)
	}
	if got := readFile(t, filepath.Join(dir, "f.txt")); got != "old" {
		t.Errorf("file = %q, want old", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temp file left behind: %v", ents)
	}
}

func TestConcurrentEditsSamePathSerialised(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 20 {
		b.WriteString("item" + itoa(i) + "\n")
	}
	writeFiles(t, dir, map[string]string{"f.txt": b.String()})
	tool := toolFor(t, "edit", Options{Cwd: dir})
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := run(t, tool, map[string]any{"path": "f.txt", "edits": []any{map[string]any{"oldText": "item" + itoa(i) + "\n", "newText": "done" + itoa(i) + "\n"}}})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := readFile(t, filepath.Join(dir, "f.txt")); strings.Contains(got, "item") {
		t.Errorf("lost updates: %q", got)
	}
}

func TestEdit(t *testing.T) {
	type edit = map[string]any
	tests := []struct {
		name    string
		file    string
		args    map[string]any
		want    string // file after
		wantErr string
	}{
		{name: "simple", file: "Hello, world!\n", args: map[string]any{"edits": []any{edit{"oldText": "world", "newText": "testing"}}}, want: "Hello, testing!\n"},
		{name: "legacy shape", file: "a b c", args: map[string]any{"oldText": "b", "newText": "B"}, want: "a B c"},
		{name: "edits as json string", file: "a b c", args: map[string]any{"edits": `[{"oldText":"c","newText":"C"}]`}, want: "a b C"},
		{name: "multiple", file: "one\ntwo\nthree\n", args: map[string]any{"edits": []any{edit{"oldText": "three", "newText": "3"}, edit{"oldText": "one", "newText": "1"}}}, want: "1\ntwo\n3\n"},
		{name: "matched against original", file: "ab\ncd\n", args: map[string]any{"edits": []any{edit{"oldText": "ab", "newText": "cd"}, edit{"oldText": "cd", "newText": "ef"}}}, want: "cd\nef\n"},
		{name: "not found", file: "hello\n", args: map[string]any{"edits": []any{edit{"oldText": "nope", "newText": "x"}}}, wantErr: "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."},
		{name: "not found multi", file: "hello\n", args: map[string]any{"edits": []any{edit{"oldText": "hello", "newText": "x"}, edit{"oldText": "nope", "newText": "x"}}}, wantErr: "Could not find edits[1] in f.txt."},
		{name: "duplicate", file: "foo foo foo", args: map[string]any{"edits": []any{edit{"oldText": "foo", "newText": "bar"}}}, wantErr: "Found 3 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."},
		{name: "duplicate multi", file: "foo foo x", args: map[string]any{"edits": []any{edit{"oldText": "x", "newText": "y"}, edit{"oldText": "foo", "newText": "bar"}}}, wantErr: "Found 2 occurrences of edits[1] in f.txt. Each oldText must be unique."},
		{name: "empty oldText", file: "x", args: map[string]any{"edits": []any{edit{"oldText": "", "newText": "y"}}}, wantErr: "oldText must not be empty in f.txt."},
		{name: "empty edits", file: "x", args: map[string]any{"edits": []any{}}, wantErr: "Edit tool input is invalid. edits must contain at least one replacement."},
		{name: "overlap", file: "abcdef", args: map[string]any{"edits": []any{edit{"oldText": "abcd", "newText": "x"}, edit{"oldText": "cdef", "newText": "y"}}}, wantErr: "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions."},
		{name: "no change", file: "same", args: map[string]any{"edits": []any{edit{"oldText": "same", "newText": "same"}}}, wantErr: "No changes made to f.txt. The replacement produced identical content."},
		{name: "fuzzy trailing whitespace", file: "line one   \nline two\n", args: map[string]any{"edits": []any{edit{"oldText": "line one\nline two", "newText": "replaced"}}}, want: "replaced\n"},
		{name: "fuzzy smart quotes", file: "say \u201chello\u201d and \u2018bye\u2019\n", args: map[string]any{"edits": []any{edit{"oldText": `say "hello" and 'bye'`, "newText": "said"}}}, want: "said\n"},
		{name: "fuzzy dashes", file: "a \u2014 b \u2013 c\n", args: map[string]any{"edits": []any{edit{"oldText": "a - b - c", "newText": "abc"}}}, want: "abc\n"},
		{name: "fuzzy nbsp", file: "x\u00a0y\n", args: map[string]any{"edits": []any{edit{"oldText": "x y", "newText": "z"}}}, want: "z\n"},
		{name: "fuzzy NFKC fullwidth", file: "value\uff1d1\n", args: map[string]any{"edits": []any{edit{"oldText": "value=1", "newText": "value=2"}}}, want: "value=2\n"},
		{name: "fuzzy keeps other lines", file: "keep \u201cme\u201d  \nfix\u2014this\n", args: map[string]any{"edits": []any{edit{"oldText": "fix-this", "newText": "fixed"}}}, want: "keep \u201cme\u201d  \nfixed\n"},
		{name: "exact preferred over fuzzy", file: "a \"q\"\nb \u201cq\u201d\n", args: map[string]any{"edits": []any{edit{"oldText": "b \u201cq\u201d", "newText": "B"}}}, want: "a \"q\"\nB\n"},
		{name: "fuzzy duplicates detected", file: "\u201cx\u201d\n\"x\"\n", args: map[string]any{"edits": []any{edit{"oldText": "'x'", "newText": "y"}}}, wantErr: "Could not find"},
		{name: "fuzzy duplicates after normalisation", file: "\u201cx\u201d\n\"x\"\n", args: map[string]any{"edits": []any{edit{"oldText": "\u201Fx\u201d", "newText": "y"}}}, wantErr: "Found 2 occurrences"},
		{name: "crlf matched with lf", file: "one\r\ntwo\r\nthree\r\n", args: map[string]any{"edits": []any{edit{"oldText": "one\ntwo", "newText": "1\n2"}}}, want: "1\r\n2\r\nthree\r\n"},
		{name: "lf preserved", file: "one\ntwo\n", args: map[string]any{"edits": []any{edit{"oldText": "one\r\ntwo", "newText": "x"}}}, want: "x\n"},
		{name: "crlf duplicates", file: "a\r\nb\r\na\r\nb\r\n", args: map[string]any{"edits": []any{edit{"oldText": "a\nb", "newText": "x"}}}, wantErr: "Found 2 occurrences"},
		{name: "bom preserved", file: "\uFEFFfirst\r\nsecond\r\n", args: map[string]any{"edits": []any{edit{"oldText": "first", "newText": "1st"}}}, want: "\uFEFF1st\r\nsecond\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"f.txt": tc.file})
			tool := toolFor(t, "edit", Options{Cwd: dir})
			args := map[string]any{"path": "f.txt"}
			for k, v := range tc.args {
				args[k] = v
			}
			text, details, err := run(t, tool, args)
			got := readFile(t, filepath.Join(dir, "f.txt"))
			if failedAsWanted(t, err, tc.wantErr) {
				if got != tc.file {
					t.Errorf("file changed on error: %q", got)
				}
				return
			}
			if got != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
			if !strings.HasPrefix(text, "Successfully replaced ") || !strings.HasSuffix(text, " block(s) in f.txt.") {
				t.Errorf("text = %q", text)
			}
			if d, ok := details.(EditDetails); !ok || d.Diff == "" || d.FirstChangedLine == 0 {
				t.Errorf("details = %#v", details)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		tool := toolFor(t, "edit", Options{Cwd: t.TempDir()})
		_, _, err := run(t, tool, map[string]any{"path": "nope.txt", "edits": []any{map[string]any{"oldText": "a", "newText": "b"}}})
		if err == nil || err.Error() != "Could not edit file: nope.txt. Error code: ENOENT." {
			t.Errorf("error = %v", err)
		}
	})
}

func TestEditDiff(t *testing.T) {
	var old []string
	for i := 1; i <= 20; i++ {
		old = append(old, "line "+itoa(i))
	}
	newL := append([]string(nil), old...)
	newL[9] = "changed 10"
	diff, first := generateDiff(strings.Join(old, "\n")+"\n", strings.Join(newL, "\n")+"\n", 4)
	want := strings.Join([]string{
		"    ...",
		"  6 line 6", "  7 line 7", "  8 line 8", "  9 line 9",
		"-10 line 10",
		"+10 changed 10",
		" 11 line 11", " 12 line 12", " 13 line 13", " 14 line 14",
		"    ...",
	}, "\n")
	if diff != want || first != 10 {
		t.Errorf("diff =\n%s\nfirst = %d; want\n%s\nfirst = 10", diff, first, want)
	}
}
