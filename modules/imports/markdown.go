package imports

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"folio/modules/document"
	"folio/platform/apierr"
	"folio/platform/markdown"
)

// maxRepairs bounds how many constructs of one file are converted (each costs a parse of it).
const maxRepairs = 200

// toDocument turns an item's Markdown into the document folio stores. What the API refuses but an
// import can keep in another form is converted, and each conversion is said (changes): an image
// becomes a link to its file (`![a](x.png)` → `[a](x.png)`), a link of a scheme folio does not
// store (obsidian://, file://, data:) becomes its text. The front matter's tags that the Markdown
// lacks are added at its end as #tags. why is not empty when the file cannot be imported (over
// the length limit, lists nested too deep, ...). lineOffset is added to the text's line numbers to
// name the file's lines.
func toDocument(field, text string, tags []string, lineOffset int) (doc document.Parsed, changes []string, why string) {
	var images []int
	var schemes []string
	for range maxRepairs {
		parsed, err := document.Parse(field, text)
		if err == nil {
			if missing := missingTags(parsed, tags); len(missing) > 0 {
				text = strings.TrimRight(text, "\n") + "\n\n#" + strings.Join(missing, " #") + "\n"
				changes = append(changes, "front matter tags were added at its end: #"+strings.Join(missing, " #"))
				tags = nil
				continue
			}
			if len(images) == 1 {
				changes = append(changes, fmt.Sprintf("an image became a link to its file (line %d): folio stores no images", images[0]))
			} else if len(images) > 1 {
				changes = append(changes, fmt.Sprintf("%d images became links to their files (lines %s): folio stores no images", len(images), lineList(images)))
			}
			changes = append(changes, schemes...)
			return parsed, changes, ""
		}
		var me *markdown.Error
		if !errors.As(err, &me) {
			return document.Parsed{}, nil, "cannot be imported: " + apierr.From(err).Message
		}
		fixed, ok := "", false
		switch me.Construct {
		case markdown.ConstructImage:
			if fixed, ok = imageToLink(text, me.Line); ok {
				images = append(images, me.Line+lineOffset)
			}
		case markdown.ConstructScheme:
			if fixed, ok = linkToText(text, me.Line, me.Detail); ok {
				schemes = append(schemes, fmt.Sprintf("a link with the scheme %q became text (line %d): folio links only to http, https and mailto", me.Detail, me.Line+lineOffset))
			}
		case markdown.ConstructLength:
			return document.Parsed{}, nil, "cannot be imported: " + apierr.From(err).Message
		}
		if !ok {
			me.Line += lineOffset
			return document.Parsed{}, nil, "cannot be imported: " + me.Error()
		}
		text = fixed
	}
	return document.Parsed{}, nil, fmt.Sprintf("cannot be imported: more than %d images and links to convert", maxRepairs)
}

// missingTags are the tags (front matter's) that doc does not have.
func missingTags(doc document.Parsed, tags []string) []string {
	if len(tags) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, t := range doc.Doc.Tags() {
		if t.Sigil == markdown.SigilTag {
			have[strings.ToLower(t.Name)] = true
		}
	}
	var out []string
	for _, t := range tags {
		if !have[strings.ToLower(t)] {
			out = append(out, t)
			have[strings.ToLower(t)] = true
		}
	}
	return out
}

// imageToLink drops the "!" of the first image on line (1-based) outside code: the image becomes
// a link to the same file, with the same text.
func imageToLink(text string, line int) (string, bool) {
	return onLine(text, line, func(l string) (string, bool) {
		i := indexOutsideCode(l, func(rest string) bool { return strings.HasPrefix(rest, "![") })
		if i < 0 {
			return "", false
		}
		return l[:i] + l[i+1:], true
	})
}

// linkToText makes the first link to scheme on line (outside code) plain text, escaping what
// makes it a link; a reference definition of that scheme anywhere is escaped when the line has
// no such link (the error names the line of the link that uses it).
func linkToText(text string, line int, scheme string) (string, bool) {
	dest := regexp.MustCompile(`(?i)^\]\(\s*<?\s*` + regexp.QuoteMeta(scheme) + `:`)
	auto := regexp.MustCompile(`(?i)^<` + regexp.QuoteMeta(scheme) + `:`)
	fixed, ok := onLine(text, line, func(l string) (string, bool) {
		if i := indexOutsideCode(l, func(rest string) bool { return dest.MatchString(rest) }); i >= 0 {
			return l[:i+1] + `\` + l[i+1:], true // ](  →  ]\(
		}
		if i := indexOutsideCode(l, func(rest string) bool { return auto.MatchString(rest) }); i >= 0 {
			return l[:i] + `\` + l[i:], true // <scheme:  →  \<scheme:
		}
		return "", false
	})
	if ok {
		return fixed, true
	}
	def := regexp.MustCompile(`(?im)^( {0,3})(\[[^\]\n]+\]:[ \t]*<?` + regexp.QuoteMeta(scheme) + `:)`)
	if loc := def.FindStringSubmatchIndex(text); loc != nil {
		return text[:loc[4]] + `\` + text[loc[4]:], true
	}
	return "", false
}

// onLine applies fix to line n (1-based) of text.
func onLine(text string, n int, fix func(line string) (string, bool)) (string, bool) {
	lines := strings.Split(text, "\n")
	if n < 1 || n > len(lines) {
		return "", false
	}
	fixed, ok := fix(lines[n-1])
	if !ok {
		return "", false
	}
	lines[n-1] = fixed
	return strings.Join(lines, "\n"), true
}

// indexOutsideCode is the index of the first position of line where match holds, outside code
// spans (backtick runs closed on the line) and not escaped by a backslash; -1 when none.
func indexOutsideCode(line string, match func(rest string) bool) int {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\':
			i++ // the next character is escaped
		case c == '`':
			n := 1
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			run := strings.Repeat("`", n)
			if end := closingRun(line[i+n:], run); end >= 0 {
				i += n + end + n - 1
			} else {
				i += n - 1
			}
		case match(line[i:]):
			return i
		}
	}
	return -1
}

// closingRun is the index in s of a backtick run exactly as long as run, or -1.
func closingRun(s, run string) int {
	for from := 0; ; {
		j := strings.Index(s[from:], run)
		if j < 0 {
			return -1
		}
		j += from
		end := j + len(run)
		if (j == 0 || s[j-1] != '`') && (end == len(s) || s[end] != '`') {
			return j
		}
		for end < len(s) && s[end] == '`' {
			end++
		}
		from = end
	}
}

// lineList is "3, 5 and 9" (two lines at least).
func lineList(lines []int) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = fmt.Sprint(l)
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
