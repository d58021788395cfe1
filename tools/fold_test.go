package tools

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// foldFinder agrees with searching a lowered copy, on random text over a small alphabet
// (so candidates and near-misses are frequent).
func TestFoldFinderMatchesLoweredSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("aAbBeE xX_\n.")
	for range 2000 {
		text := make([]byte, r.IntN(200))
		for i := range text {
			text[i] = alphabet[r.IntN(len(alphabet))]
		}
		pat := make([]byte, 1+r.IntN(4))
		for i := range pat {
			pat[i] = alphabet[r.IntN(len(alphabet))]
		}
		f := newFoldFinder(string(pat))
		got := f.index(text)
		want := bytes.Index(bytes.ToLower(text), bytes.ToLower(pat))
		if got != want {
			t.Fatalf("index(%q, %q) = %d, want %d", text, pat, got, want)
		}
	}
}

func BenchmarkFoldFinder(b *testing.B) {
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog; return err\n"), 20000)
	f := newFoldFinder("Deadline")
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if f.index(text) >= 0 {
			b.Fatal("found")
		}
	}
}
