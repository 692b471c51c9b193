package markdown

import (
	"strings"
	"unicode/utf8"
)

// prepare checks the raw input for what is rejected before any parsing
// (invalid UTF-8, NUL) and normalises line endings and a leading BOM. Line
// numbers of the result equal those of the input: CRLF and a lone CR each end
// one line, as in CommonMark.
func prepare(input string) (string, error) {
	if strings.IndexByte(input, 0) < 0 && strings.IndexByte(input, '\r') < 0 && utf8.ValidString(input) {
		// The common case, checked with the library's fast scans; the
		// loop below finds the line of a rejection.
		return strings.TrimPrefix(input, "\uFEFF"), nil
	}
	needsFix := false
	line := 1
	for i := 0; i < len(input); {
		c := input[i]
		if c < utf8.RuneSelf {
			switch c {
			case 0:
				return "", invalid(ConstructNUL, line, "")
			case '\n':
				line++
			case '\r':
				needsFix = true
				if i+1 >= len(input) || input[i+1] != '\n' {
					line++
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(input[i:])
		if r == utf8.RuneError && size == 1 {
			return "", invalid(ConstructUTF8, line, "")
		}
		i += size
	}
	s := input
	s = strings.TrimPrefix(s, "\uFEFF")
	if needsFix {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s, nil
}

// nestingScan estimates, in one linear pass, how deeply lists and block
// quotes nest, and rejects input nested deeper than MaxNesting before goldmark
// sees it (goldmark's cost grows with depth times lines). It follows
// CommonMark's container matching closely enough to be exact on the Markdown
// that Render writes; on other input it may differ by a level or so, and the
// exact check on goldmark's tree backs it up.
func nestingScan(src string) error {
	type container struct {
		quote bool
		width int // list item: columns of content indentation
	}
	var stack []container
	var fenceChar byte
	fenceLen, fenceDepth := 0, 0
	paraOpen := false
	lineNo := 0
	for start := 0; start < len(src); {
		lineNo++
		end := strings.IndexByte(src[start:], '\n')
		var line string
		if end < 0 {
			line = src[start:]
			start = len(src)
		} else {
			line = src[start : start+end]
			start += end + 1
		}
		c := cursor{line: line}
		matched := 0
		for matched < len(stack) {
			ct := stack[matched]
			if ct.quote {
				if w := c.indent(); w <= 3 && c.peekAfterIndent() == '>' {
					c.skipIndent()
					c.pos++
					c.col++
					c.eatOneSpace()
					matched++
					continue
				}
				break
			}
			if c.blank() {
				matched++
				continue
			}
			if c.indent() >= ct.width {
				c.consumeColumns(ct.width)
				matched++
				continue
			}
			break
		}
		if fenceLen > 0 {
			if fenceDepth <= matched {
				if c.indent() <= 3 {
					rest := c.afterIndent()
					n := countRun(rest, fenceChar)
					if n >= fenceLen && isBlankStr(rest[n:]) {
						fenceLen = 0
					}
				}
				continue
			}
			fenceLen = 0
		}
		if matched < len(stack) {
			if !c.blank() && paraOpen && !startsBlock(c) {
				continue // lazy continuation line
			}
			stack = stack[:matched]
		}
		// Open new containers.
		for {
			if c.indent() > 3 {
				break
			}
			rest := c.afterIndent()
			if rest != "" && rest[0] == '>' {
				c.skipIndent()
				c.pos++
				c.col++
				c.eatOneSpace()
				stack = append(stack, container{quote: true})
				paraOpen = false
				if len(stack) > MaxNesting {
					return invalid(ConstructNesting, lineNo, "")
				}
				continue
			}
			lead := c.indent()
			mlen, ordered, start1, ok := listMarker(rest)
			if !ok || isThematicBreak(rest) {
				break
			}
			after := rest[mlen:]
			if paraOpen && (isBlankStr(after) || (ordered && !start1)) {
				break
			}
			c.skipIndent()
			c.pos += mlen
			c.col += mlen
			n := 1
			if !isBlankStr(after) {
				n = c.indent()
				if n >= 5 {
					n = 1
				}
			}
			c.consumeColumns(n)
			stack = append(stack, container{width: lead + mlen + n})
			paraOpen = false
			if len(stack) > MaxNesting {
				return invalid(ConstructNesting, lineNo, "")
			}
		}
		if c.blank() {
			paraOpen = false
			continue
		}
		if c.indent() <= 3 {
			rest := c.afterIndent()
			if ch := rest[0]; ch == '`' || ch == '~' {
				n := countRun(rest, ch)
				if n >= 3 && !(ch == '`' && strings.IndexByte(rest[n:], '`') >= 0) {
					fenceChar, fenceLen, fenceDepth = ch, n, len(stack)
					paraOpen = false
					continue
				}
			}
			if isATXHeading(rest) || isThematicBreak(rest) {
				paraOpen = false
				continue
			}
		} else if !paraOpen {
			continue // indented code
		}
		paraOpen = true
	}
	return nil
}

// startsBlock reports whether the rest of the line at c opens a block that
// ends a lazy paragraph continuation.
func startsBlock(c cursor) bool {
	if c.indent() > 3 {
		return false
	}
	rest := c.afterIndent()
	if rest == "" {
		return true
	}
	if isATXHeading(rest) {
		return true
	}
	switch rest[0] {
	case '>':
		return true
	case '`', '~':
		if countRun(rest, rest[0]) >= 3 {
			return true
		}
	}
	if isThematicBreak(rest) {
		return true
	}
	_, _, _, ok := listMarker(rest)
	return ok
}

// cursor walks one line measuring columns, with tabs to multiples of 4.
type cursor struct {
	line  string
	pos   int
	col   int
	carry int // columns left of a partly consumed tab at pos
}

func (c *cursor) indent() int {
	w := c.carry
	col := c.col + c.carry
	for i := c.pos; i < len(c.line); i++ {
		switch c.line[i] {
		case ' ':
			w++
			col++
		case '\t':
			if i == c.pos && c.carry > 0 {
				continue
			}
			t := 4 - col%4
			w += t
			col += t
		default:
			return w
		}
	}
	return w
}

func (c *cursor) skipIndent() {
	for c.pos < len(c.line) && (c.line[c.pos] == ' ' || c.line[c.pos] == '\t') {
		if c.line[c.pos] == '\t' {
			c.col += 4 - c.col%4
		} else {
			c.col++
		}
		c.pos++
	}
	c.carry = 0
}

func (c *cursor) afterIndent() string {
	i := c.pos
	for i < len(c.line) && (c.line[i] == ' ' || c.line[i] == '\t') {
		i++
	}
	return c.line[i:]
}

func (c *cursor) peekAfterIndent() byte {
	rest := c.afterIndent()
	if rest == "" {
		return 0
	}
	return rest[0]
}

func (c *cursor) blank() bool { return isBlankStr(c.line[c.pos:]) }

func (c *cursor) eatOneSpace() {
	c.consumeColumns(1)
}

// consumeColumns advances over n columns of leading whitespace, splitting a
// tab when needed.
func (c *cursor) consumeColumns(n int) {
	for n > 0 && c.pos < len(c.line) {
		if c.carry > 0 {
			take := min(n, c.carry)
			c.carry -= take
			c.col += take
			n -= take
			if c.carry == 0 {
				c.pos++
			}
			continue
		}
		switch c.line[c.pos] {
		case ' ':
			c.pos++
			c.col++
			n--
		case '\t':
			t := 4 - c.col%4
			if t <= n {
				c.pos++
				c.col += t
				n -= t
			} else {
				c.carry = t - n
				c.col += n
				n = 0
			}
		default:
			return
		}
	}
}

func isBlankStr(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\n':
		default:
			return false
		}
	}
	return true
}

func countRun(s string, ch byte) int {
	n := 0
	for n < len(s) && s[n] == ch {
		n++
	}
	return n
}

// listMarker reads a list marker at the start of s: a bullet, or 1 to 9
// digits then '.' or ')', followed by a space, a tab or the end of the line.
func listMarker(s string) (length int, ordered, startsAtOne, ok bool) {
	if s == "" {
		return 0, false, false, false
	}
	i := 0
	switch s[0] {
	case '-', '+', '*':
		i = 1
	default:
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i > 9 || i >= len(s) || (s[i] != '.' && s[i] != ')') {
			return 0, false, false, false
		}
		ordered = true
		startsAtOne = strings.TrimLeft(s[:i], "0") == "1"
		i++
	}
	if i < len(s) && s[i] != ' ' && s[i] != '\t' {
		return 0, false, false, false
	}
	return i, ordered, startsAtOne, true
}

// isThematicBreak reports whether s (without indentation) is a thematic
// break: three or more '-', '*' or '_' of one kind, with spaces or tabs.
func isThematicBreak(s string) bool {
	if s == "" {
		return false
	}
	ch := s[0]
	if ch != '-' && ch != '*' && ch != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ch:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// isATXHeading reports whether s (without indentation) opens an ATX heading.
func isATXHeading(s string) bool {
	n := countRun(s, '#')
	return n >= 1 && n <= 6 && (n == len(s) || s[n] == ' ' || s[n] == '\t')
}
