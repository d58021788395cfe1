package tools

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// This file holds grep's matcher: the regular expression, and the literal and ASCII
// case-folding fast paths that skip the regexp engine.

// matcher finds the next match in a buffer; lines are never joined, as in ripgrep.
type matcher struct {
	re *regexp.Regexp
	// alts, for a regex that is only an alternation of plain literals ("a|b|c"), are searched
	// with bytes.Index each; Go's regexp engine is ~10x slower than that on such patterns.
	alts      [][]byte
	literal   []byte      // set for a case-sensitive literal: bytes.Index is far faster than regexp
	foldASCII *foldFinder // set for a case-insensitive ASCII literal
}

func newMatcher(o GrepOptions) (*matcher, error) {
	if o.Literal && !o.IgnoreCase && o.Pattern != "" {
		return &matcher{literal: []byte(o.Pattern)}, nil
	}
	if o.Literal && o.IgnoreCase && isASCII(o.Pattern) && o.Pattern != "" {
		return &matcher{foldASCII: newFoldFinder(o.Pattern)}, nil
	}
	src := o.Pattern
	if o.Literal {
		src = regexp.QuoteMeta(src)
	} else if !o.IgnoreCase && isPlainLiteral(src) && src != "" {
		return &matcher{literal: []byte(src)}, nil
	}
	if !o.IgnoreCase {
		if alts := literalAlternation(src); alts != nil {
			return &matcher{alts: alts}, nil
		}
	}
	flags := "(?m)"
	if o.IgnoreCase {
		flags = "(?mi)"
	}
	re, err := regexp.Compile(flags + src)
	if err != nil {
		return nil, fmt.Errorf("regex parse error: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return &matcher{re: re}, nil
}

// literalAlternation returns the branches of a regex that is an alternation of two or more
// case-sensitive literals without newlines, or nil.
func literalAlternation(src string) [][]byte {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil || re.Op != syntax.OpAlternate {
		return nil
	}
	var alts [][]byte
	for _, sub := range re.Sub {
		switch {
		case sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0:
			alts = append(alts, []byte(string(sub.Rune)))
		default:
			return nil
		}
		if bytes.IndexByte(alts[len(alts)-1], '\n') >= 0 || len(alts[len(alts)-1]) == 0 {
			return nil
		}
	}
	return alts
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isPlainLiteral reports whether a regex has no metacharacters, so it can be searched for as
// bytes.
func isPlainLiteral(s string) bool { return regexp.QuoteMeta(s) == s && !strings.Contains(s, "\n") }

// find returns the start and end of the first match in b, or -1.
func (m *matcher) find(b []byte) (int, int) {
	switch {
	case m.literal != nil:
		i := bytes.Index(b, m.literal)
		if i < 0 {
			return -1, -1
		}
		return i, i + len(m.literal)
	case m.alts != nil:
		best, end := -1, -1
		for _, a := range m.alts {
			hay := b
			if best >= 0 {
				hay = b[:min(len(b), best+len(a))] // only an earlier match can win
			}
			if i := bytes.Index(hay, a); i >= 0 && (best < 0 || i < best || (i == best && i+len(a) > end)) {
				best, end = i, i+len(a)
			}
		}
		return best, end
	case m.foldASCII != nil:
		i := m.foldASCII.index(b)
		if i < 0 {
			return -1, -1
		}
		return i, i + len(m.foldASCII.pattern)
	}
	loc := m.re.FindIndex(b)
	if loc == nil {
		return -1, -1
	}
	return loc[0], loc[1]
}

func (m *matcher) matchLine(line []byte) bool {
	if m.re != nil {
		return m.re.Match(line)
	}
	return false
}

// foldFinder finds an ASCII pattern ignoring case without lowering the text: it looks for the
// pattern's rarest byte (in either case) with bytes.IndexByte, which is vectorised, and
// compares the pattern around each candidate.
type foldFinder struct {
	pattern []byte // lowered
	// rare is the index in pattern of the byte searched for; lo and up are its two cases.
	rare   int
	lo, up byte
}

// commonBytes orders bytes from most to least frequent in source code and prose; a byte not
// listed counts as rarer than all of them.
const commonBytes = " e\ntaoinsrlcdhu.pm_(),f\tg=y\"bw:v;/k-'x"

func newFoldFinder(pattern string) *foldFinder {
	f := &foldFinder{pattern: bytes.ToLower([]byte(pattern))}
	best := -1
	for i, c := range f.pattern {
		rank := strings.IndexByte(commonBytes, c)
		if rank < 0 {
			rank = len(commonBytes)
		}
		if rank > best {
			best, f.rare = rank, i
		}
	}
	f.lo = f.pattern[f.rare]
	f.up = f.lo
	if 'a' <= f.lo && f.lo <= 'z' {
		f.up = f.lo - ('a' - 'A')
	}
	return f
}

// index returns the first offset of the pattern in b, ignoring ASCII case, or -1.
func (f *foldFinder) index(b []byte) int {
	n := len(f.pattern)
	for from := f.rare; from < len(b); {
		j := indexEither(b[from:], f.lo, f.up)
		if j < 0 {
			return -1
		}
		at := from + j - f.rare
		if at+n <= len(b) && equalFoldASCII(b[at:at+n], f.pattern) {
			return at
		}
		from += j + 1
	}
	return -1
}

// indexEither returns the first index of a or b in s, or -1.
func indexEither(s []byte, a, b byte) int {
	i := bytes.IndexByte(s, a)
	if a == b {
		return i
	}
	hay := s
	if i >= 0 {
		hay = s[:i] // only an earlier b can win
	}
	if j := bytes.IndexByte(hay, b); j >= 0 {
		return j
	}
	return i
}

// equalFoldASCII compares b with a lowered ASCII pattern, ignoring the case of b's letters.
func equalFoldASCII(b, lowered []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lowered[i] {
			return false
		}
	}
	return true
}
