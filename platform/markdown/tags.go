package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The tag rule of CONTRACT.md section 4, shared by the parser (which turns
// #name and @name into tag and mention nodes) and the renderer (which escapes
// a literal # or @ exactly when the parser would otherwise read a tag).
//
//   - A tag is '#' then one or more name characters (letters, digits, '_',
//     '-'), at least one of them a letter. A mention is '@' then name
//     characters and inner dots: a '.' belongs to the name only when a name
//     character follows it.
//   - The '#' or '@' must not follow a letter, digit, '_', '#', '@', '/' or
//     '&' (checked on the decoded text, across marks).
//   - Letters include combining marks, so names in decomposed Unicode work.
//   - Characters written as a backslash escape or a character reference never
//     start or continue a tag: `\#x` is literal text, `#a\-b` is the tag "a"
//     followed by "-b".
//   - Code, link text and link destinations never hold tags.

// noPrev is the "previous character" at the start of a block.
const noPrev rune = -1

func isNameLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.M, r)
}

func isNameChar(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-'
	}
	return isNameLetter(r) || unicode.IsDigit(r)
}

// indexSigil returns the index of the first '#' or '@' in s, or -1.
func indexSigil(s string) int {
	i := strings.IndexByte(s, '#')
	if i < 0 {
		return strings.IndexByte(s, '@')
	}
	if j := strings.IndexByte(s[:i], '@'); j >= 0 {
		return j
	}
	return i
}

// blocksTag reports whether a '#' or '@' after prev cannot start a tag.
func blocksTag(prev rune) bool {
	if prev == noPrev {
		return false
	}
	switch prev {
	case '_', '#', '@', '/', '&':
		return true
	}
	return isNameLetter(prev) || unicode.IsDigit(prev)
}

// scanTag reads a tag or mention at s[i], where s[i] is '#' or '@' and prev is
// the decoded character before it. literal(j) reports whether byte j of s was
// written escaped (such characters never belong to a tag). It returns the end
// of the name (exclusive) and whether a tag starts at i.
func scanTag(prev rune, s string, i int, literal func(int) bool) (end int, ok bool) {
	if blocksTag(prev) || i >= len(s) {
		return 0, false
	}
	mention := s[i] == '@'
	if !mention && s[i] != '#' {
		return 0, false
	}
	if literal != nil && literal(i) {
		return 0, false
	}
	return scanName(s, i+1, mention, literal)
}

// scanName reads a tag's (or with mention a mention's) name starting at
// s[start]; it returns the name's end and whether there is a name.
func scanName(s string, start int, mention bool, literal func(int) bool) (end int, ok bool) {
	j := start
	letter := false
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if literal != nil && literal(j) {
			break
		}
		if isNameChar(r) {
			if isNameLetter(r) {
				letter = true
			}
			j += size
			continue
		}
		if mention && r == '.' && j > start && j+1 < len(s) {
			r2, _ := utf8.DecodeRuneInString(s[j+1:])
			if isNameChar(r2) && (literal == nil || !literal(j+1)) {
				j++
				continue
			}
		}
		break
	}
	if j == start {
		return 0, false
	}
	if !mention && !letter {
		return 0, false
	}
	return j, true
}

// validTagName reports whether name, written after '#', reads back as exactly
// that tag.
func validTagName(name string) bool {
	end, ok := scanName(name, 0, false, nil)
	return ok && end == len(name)
}

// validMentionName reports whether name, written after '@', reads back as
// exactly that mention.
func validMentionName(name string) bool {
	end, ok := scanName(name, 0, true, nil)
	return ok && end == len(name)
}

// continuesName reports whether text written right after a tag or mention
// atom (with the same marks) would extend its name, and so must start with an
// escaped character.
func continuesName(mention bool, text string) bool {
	if text == "" {
		return false
	}
	r, size := utf8.DecodeRuneInString(text)
	if isNameChar(r) {
		return true
	}
	if mention && r == '.' && size < len(text) {
		r2, _ := utf8.DecodeRuneInString(text[size:])
		return isNameChar(r2)
	}
	return false
}

// lastRune returns the last rune of s, or noPrev for "".
func lastRune(s string) rune {
	if s == "" {
		return noPrev
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}
