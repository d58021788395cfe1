package resources

import (
	"regexp"
	"strconv"
	"strings"
)

// ParseArgs splits a command's arguments as pi's parseCommandArgs does: white space
// separates them; a quote (' or ") opens quoting only at the start of an argument, so an
// apostrophe inside a word is text; inside quotes a backslash before the open quote's
// character keeps that character, and any other backslash is kept as typed; an unclosed
// quote is text and the rest is split as usual; "" and ” are empty arguments.
func ParseArgs(s string) []string {
	in := []rune(s)
	var args []string
	var cur strings.Builder
	hasToken := false
	var quote rune
	quoteStart := 0
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(in) && in[i+1] == quote {
				cur.WriteRune(quote)
				i++
			} else if c == quote {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case (c == '"' || c == '\'') && !hasToken:
			quote, quoteStart, hasToken = c, i, true
		case jsSpace(c):
			if hasToken {
				args = append(args, cur.String())
				cur.Reset()
				hasToken = false
			}
		default:
			cur.WriteRune(c)
			hasToken = true
		}
		if quote != 0 && i == len(in)-1 {
			// Unclosed: the quote is text, and the argument is read again after it (it was
			// empty when the quote opened).
			quote = 0
			cur.Reset()
			cur.WriteRune(in[quoteStart])
			i = quoteStart
		}
	}
	if hasToken {
		args = append(args, cur.String())
	}
	return args
}

// jsSpace is JavaScript's \s: the characters pi splits arguments on.
func jsSpace(c rune) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return c >= '\u2000' && c <= '\u200a'
}

// placeholder is pi's substituteArgs pattern: ${N:-default}, ${@:-default} and
// ${ARGUMENTS:-default}; ${@:N} and ${@:N:L}; $N, $@ and $ARGUMENTS.
var placeholder = regexp.MustCompile(`\$\{(\d+|ARGUMENTS|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)`)

// Substitute fills a template's placeholders from args as pi's substituteArgs does: $1 is
// the first argument ("" if absent), $@ and $ARGUMENTS all of them joined with spaces,
// ${1:-x} the first or x when it is absent or empty, ${@:N} those from the Nth (0 counts as
// 1), ${@:N:L} L of them from the Nth. Only the template is scanned: placeholders inside
// arguments or defaults stay as they are.
func Substitute(content string, args []string) string {
	all := strings.Join(args, " ")
	arg := func(digits string) (string, bool) {
		n, err := strconv.Atoi(digits)
		if err != nil || n < 1 || n > len(args) {
			return "", false
		}
		return args[n-1], true
	}
	return placeholder.ReplaceAllStringFunc(content, func(m string) string {
		g := placeholder.FindStringSubmatch(m)
		switch {
		case g[1] != "":
			value := all
			if g[1] != "@" && g[1] != "ARGUMENTS" {
				value, _ = arg(g[1])
			}
			if value == "" {
				return g[2]
			}
			return value
		case g[3] != "":
			start, err := strconv.Atoi(g[3])
			if err != nil || start-1 >= len(args) {
				return ""
			}
			start = max(start-1, 0)
			end := len(args)
			if g[4] != "" {
				if l, err := strconv.Atoi(g[4]); err == nil && l < end-start {
					end = start + l
				}
			}
			return strings.Join(args[start:end], " ")
		case g[5] == "@" || g[5] == "ARGUMENTS":
			return all
		default:
			v, _ := arg(g[5])
			return v
		}
	})
}
