package markdown

import (
	"html"
	"net/url"
	"strconv"
	"strings"
)

// HTMLLinks are the addresses HTML gives tags and mentions (a web page of the tag or the
// person); nil functions leave them as text.
type HTMLLinks struct {
	Tag    func(name string) string
	Person func(name string) string
	// HeadingOffset moves headings down (1: `#` is h2), for a page whose own title is the h1.
	HeadingOffset int
}

// HTML writes a stored document as HTML for a browser. It is built from the document's tree,
// never from the Markdown the document was parsed from: every text is escaped, the dialect has no
// raw HTML, and a link keeps its address only when it is relative or http, https or mailto (a
// javascript: or data: link is shown as its text).
func HTML(d Doc, links HTMLLinks) string {
	w := htmlWriter{links: links}
	w.blocks(d.Content, false)
	return w.b.String()
}

type htmlWriter struct {
	b     strings.Builder
	links HTMLLinks
}

func (w *htmlWriter) blocks(nodes []Node, tight bool) {
	for i := range nodes {
		w.block(&nodes[i], tight)
	}
}

func (w *htmlWriter) block(n *Node, tight bool) {
	switch n.Type {
	case TypeParagraph:
		if tight {
			w.inline(n.Content)
			return
		}
		w.b.WriteString("<p>")
		w.inline(n.Content)
		w.b.WriteString("</p>\n")
	case TypeHeading:
		level := min(int(n.Attrs.Level)+w.links.HeadingOffset, 6)
		tag := "h" + strconv.Itoa(max(level, 1))
		w.b.WriteString("<" + tag + ">")
		w.inline(n.Content)
		w.b.WriteString("</" + tag + ">\n")
	case TypeHorizontalRule:
		w.b.WriteString("<hr>\n")
	case TypeCodeBlock:
		w.b.WriteString("<pre><code")
		if n.Attrs.Language != "" {
			w.b.WriteString(` class="language-` + html.EscapeString(strings.Fields(n.Attrs.Language)[0]) + `"`)
		}
		w.b.WriteString(">" + html.EscapeString(n.Text) + "</code></pre>\n")
	case TypeBulletList, TypeOrderedList:
		tag := "ul"
		if n.Type == TypeOrderedList {
			tag = "ol"
		}
		w.b.WriteString("<" + tag)
		if n.Type == TypeOrderedList && n.Attrs.Start != 1 {
			w.b.WriteString(` start="` + strconv.Itoa(int(n.Attrs.Start)) + `"`)
		}
		w.b.WriteString(">\n")
		for i := range n.Content {
			item := &n.Content[i]
			w.b.WriteString("<li")
			switch item.Attrs.Task {
			case TaskOpen:
				w.b.WriteString(` class="task-item"><span class="task-box" aria-hidden="true">☐</span><span class="sr-only">To do: </span>`)
			case TaskDone:
				w.b.WriteString(` class="task-item task-done"><span class="task-box" aria-hidden="true">☑</span><span class="sr-only">Done: </span>`)
			default:
				w.b.WriteString(">")
			}
			w.blocks(item.Content, n.Attrs.Tight)
			w.b.WriteString("</li>\n")
		}
		w.b.WriteString("</" + tag + ">\n")
	case TypeBlockquote:
		w.b.WriteString("<blockquote>\n")
		w.blocks(n.Content, false)
		w.b.WriteString("</blockquote>\n")
	case TypeCallout:
		label := strings.TrimSuffix(calloutText(n.Attrs.Label), ":")
		w.b.WriteString(`<aside class="note-callout note-callout-` + n.Attrs.Label.String() + `" aria-label="` + label + `">` + "\n")
		w.b.WriteString(`<p class="note-callout-label">` + label + "</p>\n")
		w.blocks(n.Content, false)
		w.b.WriteString("</aside>\n")
	case TypeTable:
		w.b.WriteString("<div class=\"table-scroll\"><table>\n")
		for ri := range n.Content {
			w.b.WriteString("<tr>")
			for ci := range n.Content[ri].Content {
				cell := &n.Content[ri].Content[ci]
				tag := "td"
				if cell.Type == TypeTableHeader {
					tag = "th"
				}
				w.b.WriteString("<" + tag + ">")
				for k := range cell.Content {
					w.inline(cell.Content[k].Content)
				}
				w.b.WriteString("</" + tag + ">")
			}
			w.b.WriteString("</tr>\n")
		}
		w.b.WriteString("</table></div>\n")
	}
}

// markElements are the HTML elements of the marks other than a link.
var markElements = map[MarkType]string{
	MarkBold: "strong", MarkItalic: "em", MarkStrike: "s", MarkUnderline: "u", MarkCode: "code",
}

// inline writes inline nodes, each text with its marks (a link outside the others).
func (w *htmlWriter) inline(nodes []Node) {
	for i := range nodes {
		n := &nodes[i]
		var closers []string
		inLink := false
		for _, m := range n.Marks {
			switch m.Type {
			case MarkLink:
				if href, ok := safeHref(m.Href); ok {
					w.b.WriteString(`<a href="` + html.EscapeString(href) + `"`)
					if m.Title != "" {
						w.b.WriteString(` title="` + html.EscapeString(m.Title) + `"`)
					}
					w.b.WriteString(` rel="noopener noreferrer">`)
					closers = append(closers, "</a>")
					inLink = true
				}
			default:
				if tag, ok := markElements[m.Type]; ok {
					w.b.WriteString("<" + tag + ">")
					closers = append(closers, "</"+tag+">")
				}
			}
		}
		switch n.Type {
		case TypeText:
			w.b.WriteString(html.EscapeString(n.Text))
		case TypeHardBreak:
			w.b.WriteString("<br>\n")
		case TypeTag:
			w.named("#", "tag", n.Text, w.links.Tag, inLink)
		case TypeMention:
			w.named("@", "person", n.Text, w.links.Person, inLink)
		}
		for j := len(closers) - 1; j >= 0; j-- {
			w.b.WriteString(closers[j])
		}
	}
}

// named writes a tag or mention, as a link when the caller gave its address (and it is not in a
// link already).
func (w *htmlWriter) named(sigil, class, name string, href func(string) string, inLink bool) {
	text := html.EscapeString(sigil + name)
	if href == nil || inLink {
		w.b.WriteString(`<span class="` + class + `">` + text + "</span>")
		return
	}
	w.b.WriteString(`<a class="` + class + `" href="` + html.EscapeString(href(name)) + `">` + text + "</a>")
}

// safeHref keeps a link's address when it cannot run script: relative, or http, https, mailto.
func safeHref(href string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return "", false
	}
	switch strings.ToLower(u.Scheme) {
	case "", "http", "https", "mailto":
		return href, true
	}
	return "", false
}
