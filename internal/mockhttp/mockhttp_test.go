package mockhttp

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestIsData(t *testing.T) {
	for ev, want := range map[string]bool{
		"data: {}\n\n":                 true,
		"event: ping\ndata: {}\n\n":    true,
		": keep-alive\n\n":             false,
		": a comment saying data:\n\n": false,
		"event: x\n\n":                 false,
	} {
		if got := IsData(ev); got != want {
			t.Errorf("IsData(%q) = %v, want %v", ev, got, want)
		}
	}
}

func TestParseJSONNamesTheLine(t *testing.T) {
	var v struct {
		A int `json:"a"`
	}
	err := ParseJSON([]byte("{\n  \"a\": 1,\n  \"typo\": 2\n}"), &v)
	if err == nil || !strings.HasPrefix(err.Error(), "line 3: ") || !strings.Contains(err.Error(), `"typo"`) {
		t.Fatalf("err = %v, want line 3 naming the field", err)
	}
}

func TestSplitKeepsRunesWhole(t *testing.T) {
	got := Split("héllo→x", 2)
	want := []string{"hé", "ll", "o→", "x"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Split = %q, want %q", got, want)
	}
}

func TestInlineSSEFile(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.json")
	if err := os.WriteFile(filepath.Join(dir, "cap.sse"), []byte("data: 1\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sse, file := "", "cap.sse"
	if err := InlineSSEFile(script, "responses[0].sseFile", &sse, &file); err != nil || sse != "data: 1\n\n" || file != "" {
		t.Fatalf("sse=%q file=%q err=%v", sse, file, err)
	}
	file = "missing.sse"
	err := InlineSSEFile(script, "responses[1].sseFile", &sse, &file)
	if err == nil || !strings.Contains(err.Error(), "responses[1].sseFile") || !strings.Contains(err.Error(), script) {
		t.Fatalf("err = %v, want the script and field named", err)
	}
}

// TestRecorderStreamDropAfter plays a response that drops after two data events: the client
// reads exactly two and then an unexpected end of the body.
func TestRecorderStreamDropAfter(t *testing.T) {
	var rec Recorder[int]
	rec.Init([]int{2})
	rec.Listen(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		turn := rec.Take(r)
		defer turn.Finish()
		st := turn.Stream(w, r, &Faults{DropAfter: turn.Resp, KeepAlive: "hi"})
		if !st.Open(nil) {
			return
		}
		for range 5 {
			if !st.Write("data: x\n\n", true) {
				return
			}
		}
	}))
	defer rec.Close()
	resp, err := rec.Client().Post(rec.Root(), "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var data, comments int
	for sc.Scan() {
		switch {
		case strings.HasPrefix(sc.Text(), "data:"):
			data++
		case strings.HasPrefix(sc.Text(), ":"):
			comments++
		}
	}
	if sc.Err() == nil || data != 2 || comments != 1 {
		t.Fatalf("data=%d comments=%d err=%v; want 2, 1 and a truncated body", data, comments, sc.Err())
	}
	reqs := rec.Requests()
	if len(reqs) != 1 || reqs[0].Decoded["a"] != float64(1) || rec.Pending() != 0 {
		t.Fatalf("requests=%v pending=%d", reqs, rec.Pending())
	}
	<-reqs[0].Done()
}

// TestRecorderExhausted reports Ok false once the script is used up.
func TestRecorderExhausted(t *testing.T) {
	var rec Recorder[string]
	rec.Init(nil)
	ok := make(chan bool, 1)
	rec.Listen(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		turn := rec.Take(r)
		defer turn.Finish()
		ok <- turn.Ok
		w.WriteHeader(http.StatusTeapot)
	}))
	defer rec.Close()
	resp, err := rec.Client().Get(rec.Root())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if <-ok {
		t.Fatal("Ok = true with an empty script")
	}
}

// stampWriter records when each write arrives; slow makes the given write take that long.
type stampWriter struct {
	*httptest.ResponseRecorder
	at   []time.Duration
	t0   time.Time
	slow map[int]time.Duration
}

func (w *stampWriter) Write(p []byte) (int, error) {
	w.at = append(w.at, time.Since(w.t0))
	if d := w.slow[len(w.at)]; d > 0 {
		time.Sleep(d)
	}
	return w.ResponseRecorder.Write(p)
}

// ChunkIntervalUs writes data event k at k intervals after the first (on the bubble's fake
// clock), leaves other writes alone, and catches up after a late event instead of shifting
// the rest of the schedule.
func TestChunkIntervalSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &stampWriter{ResponseRecorder: httptest.NewRecorder(), t0: time.Now(), slow: map[int]time.Duration{4: 1300 * time.Microsecond}}
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		st := &Stream{w: w, r: r, rec: &Request{}, f: &Faults{ChunkIntervalUs: 500}, note: func(time.Duration) {}}
		if !st.Open(nil) {
			t.Fatal("Open failed")
		}
		w.at = nil
		for i := range 8 {
			if !st.Write("data: x\n\n", true) {
				t.Fatalf("write %d failed", i)
			}
			if i == 1 && !st.Write(": comment\n\n", false) {
				t.Fatal("comment write failed")
			}
		}
		us := func(n int) time.Duration { return time.Duration(n) * time.Microsecond }
		// Data events 0-7 and the comment after event 1 (not paced); event 2 (the fourth write)
		// takes 1.3 ms, so events 3 and 4, due at 1.5 and 2 ms, are written at once when it
		// returns, and 5 is on time again.
		want := []time.Duration{0, us(500), us(500), us(1000), us(2300), us(2300), us(2500), us(3000), us(3500)}
		if len(w.at) != len(want) {
			t.Fatalf("%d writes, want %d: %v", len(w.at), len(want), w.at)
		}
		for i := range want {
			if w.at[i] != want[i] {
				t.Fatalf("writes at %v, want %v", w.at, want)
			}
		}
	})
}
