package tools

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchTree returns the benchmark tree named by PI_RPC_BENCH_TREE, generating it on first use:
// 50,000 files of ~2 KB (50 x 20 directories of 50 files), a .git directory and a .gitignore,
// with "ERROR connection refused" in about 1% of files. Unset, the benchmarks are skipped:
// they write 100 MB. testdata/bench.sh runs them next to ripgrep and fd.
func benchTree(b *testing.B) string {
	dir := os.Getenv("PI_RPC_BENCH_TREE")
	if dir == "" {
		b.Skip("set PI_RPC_BENCH_TREE to a directory to run the 50k-file benchmarks")
	}
	marker := filepath.Join(dir, ".bench-complete")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("alpha beta gamma delta func return value error handler request response timeout buffer stream config parse token index cache")
	exts := []string{".go", ".ts", ".md", ".txt", ".json"}
	for i := range 50 {
		for j := range 20 {
			d := filepath.Join(dir, fmt.Sprintf("pkg%02d", i), fmt.Sprintf("sub%02d", j))
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
			for k := range 50 {
				var sb strings.Builder
				for l := range 40 {
					if l == 20 && r.IntN(100) == 0 {
						sb.WriteString("log: ERROR connection refused by peer\n")
						continue
					}
					for w := range 7 {
						if w > 0 {
							sb.WriteByte(' ')
						}
						sb.WriteString(words[r.IntN(len(words))])
					}
					sb.WriteByte('\n')
				}
				name := fmt.Sprintf("file%02d%s", k, exts[k%len(exts)])
				if err := os.WriteFile(filepath.Join(d, name), []byte(sb.String()), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	_ = os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.tmp\nnode_modules/\n"), 0o644)
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

func BenchmarkGrep(b *testing.B) {
	dir := benchTree(b)
	cases := []struct {
		name string
		o    GrepOptions
	}{
		{"literal", GrepOptions{Pattern: "connection refused", Literal: true}},
		{"literal-ignorecase", GrepOptions{Pattern: "CONNECTION REFUSED", Literal: true, IgnoreCase: true}},
		{"regex-alternation", GrepOptions{Pattern: "refused|panicked|deadline"}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			tc.o.Limit = 1 << 30 // search everything, as rg does
			for b.Loop() {
				res, err := Grep(context.Background(), dir, tc.o)
				if err != nil || res.Matches == 0 {
					b.Fatalf("matches = %d, err = %v", res.Matches, err)
				}
			}
		})
	}
}

func BenchmarkFind(b *testing.B) {
	dir := benchTree(b)
	for _, pat := range []string{"*.go", "sub1*/*.md"} {
		b.Run(strings.ReplaceAll(pat, "/", "_"), func(b *testing.B) {
			g, err := newGlob(pat)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if res := findFiles(context.Background(), dir, g, 1<<30); len(res) == 0 {
					b.Fatal("no results")
				}
			}
		})
	}
}
