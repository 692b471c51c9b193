// Package markdown is the codec between the Markdown of the API and the
// stored document: Parse reads Markdown into a Doc, Render writes a Doc back
// as canonical Markdown, and a Doc reports its tags and mentions (Tags) and
// whether it holds a Decision callout (HasDecision). It depends on goldmark
// only; no HTTP, fx or database.
//
// # Stored form
//
// A Doc is a ProseMirror/TipTap-shaped tree, stored as JSON text (Encode,
// Decode):
//
//	{"type":"doc","schemaVersion":2,"content":[
//	  {"type":"heading","attrs":{"level":2},"content":[{"type":"text","text":"Plan "},{"type":"tag","attrs":{"name":"q3"}}]},
//	  {"type":"callout","attrs":{"kind":"decision"},"content":[{"type":"paragraph","content":[...]}]}]}
//
// Block nodes: paragraph, heading{level 1-3}, bulletList{tight},
// orderedList{start,tight}, listItem{checked, for a task item}, blockquote, callout{kind: why|decision},
// codeBlock{language} (the code as a text child), horizontalRule, table,
// tableRow, tableHeader, tableCell (each cell holds one paragraph). Inline
// nodes: text with marks (bold, italic, strike, underline, code,
// link{href,title}), hardBreak, tag{name}, mention{name}. Soft line breaks
// are "\n" in text. Marks are a set kept in that schema order.
//
// # Markdown dialect
//
// CommonMark with GFM pipe tables, strikethrough and task-list items (not
// linkify), plus: `__x__` is underline (not
// strong emphasis), `#tag` and `@name` are tag and mention nodes, and a
// quote starting with `> **Why:** ` or `> **Decision:** ` is a callout
// (it may hold several blocks).
//
// Tags follow CONTRACT.md section 4 (see tags.go): '#' then letters, digits,
// '_' or '-' with at least one letter; '@' then the same plus inner dots;
// not after a letter, digit, '_', '#', '@', '/' or '&'; never in code, link
// text or URLs. A character written as a backslash escape or a character
// reference never starts or continues a tag, so `\#x` is text and the
// renderer escapes a literal '#' or '@' exactly when the scanner would read a
// tag there. Tags() are unique by kind and lower-cased name (first casing
// kept), ordered TAG then PERSON, then by lower-cased name.
//
// # Rejected (400 INVALID_MARKDOWN)
//
// Parse returns an *Error (errors.Is(err, ErrInvalid)) naming the construct
// and its line for what cannot be stored without losing content: images,
// invalid UTF-8, NUL bytes, link destinations whose scheme is not http,
// https or mailto (relative links are fine; the scheme is read as a browser
// would, and also as goldmark's HTML renderer decodes it), and lists and
// quotes nested deeper than 16 levels. The depth is checked by a linear scan
// before goldmark sees the input, and again exactly on goldmark's tree.
// Documents whose canonical Markdown would be longer than MaxLength
// characters are rejected too (ConstructLength): Parse stops as soon as a
// lower bound of the output passes the limit (reference links used many
// times, padded tables), and ParseCanonical counts the output exactly,
// giving up at a cap (see limit.go).
//
// # Normalised (presentation only; the text is kept)
//
// Headings of level 4 to 6 become level 3; table alignment is dropped; a
// table row longer than the header widens the table (its cells are kept);
// setext headings become ATX (a level 1 or 2 heading holding a line break is
// written setext); indented code becomes fenced; `*` and `+` bullets become
// `-`, `)` markers `.`; reference links become inline links (the
// definitions they used go; one nothing uses, or a duplicate, is kept as a
// link whose text is its label); task boxes are written `[ ]` and `[x]`; raw HTML is literal text (an HTML block becomes paragraphs);
// character references and escapes are decoded once (&copy; is ©); CRLF and
// a lone CR become LF; a leading BOM is dropped; `_x_` is written `*x*`,
// `~x~` as `~~x~~`, hard breaks as a backslash; nested emphasis of one kind
// collapses (marks are a set); a link inside a link keeps the inner one; a
// link without text (or of whitespace) shows its destination `<u>`; a
// link's empty title vanishes; the callout label is
// followed by one space. Canonical documents the rules that make any Doc
// canonical (whitespace at emphasis edges moves out, and so on).
//
// # Canonical form and properties
//
// Render(Parse(s)) is a fixed point: Render(Parse(Render(Parse(s)))) equals
// Render(Parse(s)) byte for byte. Parse(Render(d)) equals Canonical(d) for
// every schema-valid d, and Parse only returns canonical documents, so
// Parse(Render(d)) == d for them. The tests check, over the 652 CommonMark
// spec examples, a hand-written corpus of tricky cases, random documents
// drawn from the characters that need escaping, and two fuzz targets: the
// fixed point, the semantic round trip, that the input's text survives,
// that tags agree, and that stock goldmark renders the same HTML for an
// input and its rendering (inline marks compared as sets, inputs with `__`
// or an intended normalisation excluded). See README.md for the commands
// and the figures.
//
// # Cost
//
// Parse and Render take time linear in the input. goldmark 1.8.7 is
// superlinear on some inputs (its delimiter processing rescans earlier
// delimiters, link destinations are rescanned per "](", a "]" walks every
// later node), so emphasis, strikethrough and links use the linear parsers
// of parse_inline.go with the same rules. Two deliberate differences from
// goldmark remain there: a raw link destination may nest parentheses 32
// deep (as in cmark), and an inline link's text has no length limit
// (CommonMark has none; goldmark applies the 999-character label limit).
//
// Parse first tries a fast path (fastpath.go): goldmark builds only the
// block tree, and the codec reads each block's inline content itself by the
// same rules, giving the same document; on anything it does not read
// exactly that way (raw HTML, images, reference definitions, a link running
// over a line end, any error) it bails, and Parse reads the input again the
// full way described above. The fast path first builds that block tree
// itself (fastblock.go, goldmark's block parse followed step for step),
// and asks goldmark for it when the input holds what it does not follow
// (tabs in indentation, indented code, HTML blocks, setext headings, lazy
// lines, empty list items, ...).
package markdown
