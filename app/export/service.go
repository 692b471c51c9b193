// Package export is the export module: a ZIP of everything a principal can read (CONTRACT.md
// section 17), streamed page by page in constant memory, for GET /export, `folio export` and the
// settings UI's download. It reads through the notebooks, notes and tasks services, so an export
// sees exactly what the API's lists show the same principal.
package export

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"folio/modules/notebooks"
	"folio/modules/notes"
	"folio/modules/tasks"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/paginate"
)

// The use cases the export reads, narrowed to their lists. module.go binds them. They are the
// API's own lists (GET /notebooks, /notes, /tasks) but for the rendering: the export renders each
// item once, without the render cache.
type (
	// Notebooks lists the notebooks a principal can see.
	Notebooks interface {
		ListPage(ctx context.Context, p *auth.Principal, q paginate.Query) (paginate.Page[notebooks.Response], error)
	}
	// Notes lists notes.
	Notes interface {
		Search(ctx context.Context, p *auth.Principal, q notes.ListQuery) (paginate.Page[notes.Response], error)
	}
	// Tasks lists tasks.
	Tasks interface {
		Search(ctx context.Context, p *auth.Principal, q tasks.ListQuery) (paginate.Page[tasks.Response], error)
	}
)

// Service writes exports.
type Service struct {
	notebooks Notebooks
	notes     Notes
	tasks     Tasks
	clock     clock.Clock
}

// NewService returns the export service.
func NewService(nb Notebooks, n Notes, t Tasks, clk clock.Clock) *Service {
	return &Service{notebooks: nb, notes: n, tasks: t, clock: clk}
}

// pageSize is how many rows one query reads: the whole export holds one page of one list at a
// time (and the ZIP writer's buffer), whatever the number of items.
var pageSize = strconv.Itoa(paginate.MaxLimit)

// FileName is the name an export is offered under (Content-Disposition, the settings UI).
func (s *Service) FileName() string {
	return "folio-export-" + s.clock.Now().UTC().Format("2006-01-02") + ".zip"
}

// Check reads the first page of the principal's notebooks: an error here (the database is down,
// say) can still be answered as an error, before the first byte of the ZIP is written.
func (s *Service) Check(ctx context.Context, p *auth.Principal) error {
	one := "1"
	_, err := s.notebooks.ListPage(ctx, p, paginate.Query{Limit: &one})
	return err
}

// Write writes the ZIP of everything p can read to w: per notebook a folder with its
// NotebookFile, per note <folder>/notes/<id>.md and per task <folder>/tasks/<id>.md (archived ones
// included), each a YAML front matter block with every field of the API's resource but the
// Markdown, then the Markdown. Entries are written as the pages are read; nothing is held beyond one page.
func (s *Service) Write(ctx context.Context, p *auth.Principal, w io.Writer) error {
	zw := zip.NewWriter(w)
	err := eachPage(func(page paginate.Query) (paginate.Page[notebooks.Response], error) {
		return s.notebooks.ListPage(ctx, p, page)
	}, func(nb notebooks.Response) error {
		return s.writeNotebook(ctx, zw, p, nb)
	})
	if err != nil {
		return err
	}
	return zw.Close()
}

// NotebookFile is the file in each notebook's folder that holds the notebook itself (its
// resource as GET /notebooks/:id answers it, as YAML): what an import needs to make the notebook
// again with its name and colour, which the folder's name keeps only as a slug.
const NotebookFile = "notebook.yaml"

// writeNotebook writes a notebook's NotebookFile, then its notes and tasks, the active ones then
// the archived ones: what GET /notes and GET /tasks list with notebookId and archived.
func (s *Service) writeNotebook(ctx context.Context, zw *zip.Writer, p *auth.Principal, nb notebooks.Response) error {
	folder := FolderName(nb.Name, nb.ID)
	if err := writeNotebookFile(zw, folder+"/"+NotebookFile, nb); err != nil {
		return err
	}
	for _, archived := range []string{"false", "true"} {
		err := eachPage(func(page paginate.Query) (paginate.Page[notes.Response], error) {
			var q notes.ListQuery
			q.Query, q.NotebookID, q.Archived = page, nb.ID, &archived
			return s.notes.Search(ctx, p, q)
		}, func(resp notes.Response) error {
			return writeEntry(zw, folder+"/notes/"+resp.ID+".md", resp, "content", resp.UpdatedAt)
		})
		if err != nil {
			return err
		}
		err = eachPage(func(page paginate.Query) (paginate.Page[tasks.Response], error) {
			var q tasks.ListQuery
			q.Query, q.NotebookID, q.Archived = page, nb.ID, &archived
			return s.tasks.Search(ctx, p, q)
		}, func(resp tasks.Response) error {
			return writeEntry(zw, folder+"/tasks/"+resp.ID+".md", resp, "notes", resp.UpdatedAt)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// eachPage calls each for every row of a keyset list, one page in memory at a time.
func eachPage[R any](list func(paginate.Query) (paginate.Page[R], error), each func(R) error) error {
	q := paginate.Query{Limit: &pageSize}
	for {
		page, err := list(q)
		if err != nil {
			return err
		}
		for _, r := range page.Data {
			if err := each(r); err != nil {
				return err
			}
		}
		if page.NextCursor == nil {
			return nil
		}
		q.Cursor = *page.NextCursor
	}
}

// writeNotebookFile writes the notebook's resource as a YAML document.
func writeNotebookFile(zw *zip.Writer, name string, nb notebooks.Response) error {
	y, _, err := FrontMatter(nb, "")
	if err != nil {
		return err
	}
	fw, err := createFile(zw, name, nb.UpdatedAt)
	if err != nil {
		return err
	}
	_, err = fw.Write(y)
	return err
}

// createFile starts the file name in the ZIP, dated updatedAt (the resource's, RFC 3339).
func createFile(zw *zip.Writer, name, updatedAt string) (io.Writer, error) {
	modified, _ := time.Parse(time.RFC3339Nano, updatedAt)
	return zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: modified})
}

// writeEntry writes one item's file: the resource's JSON fields but bodyField as YAML front
// matter, in the resource's field order, then bodyField's Markdown.
func writeEntry(zw *zip.Writer, name string, resource any, bodyField, updatedAt string) error {
	fm, body, err := FrontMatter(resource, bodyField)
	if err != nil {
		return err
	}
	fw, err := createFile(zw, name, updatedAt)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.Grow(len(fm) + len(body) + 16)
	buf.WriteString("---\n")
	buf.Write(fm)
	buf.WriteString("---\n\n")
	buf.WriteString(body)
	if body != "" && !strings.HasSuffix(body, "\n") {
		buf.WriteByte('\n')
	}
	_, err = fw.Write(buf.Bytes())
	return err
}

// FrontMatter returns the YAML of resource's JSON fields but bodyField, in their JSON order, and
// bodyField's string value. Going through JSON keeps the front matter exactly the API's fields and
// names; yaml.v3 quotes every string that would read back as another type (a date, a number,
// true), so a static-site tool reads the same values the API returns.
func FrontMatter(resource any, bodyField string) ([]byte, string, error) {
	raw, err := json.Marshal(resource)
	if err != nil {
		return nil, "", err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var ordered yaml.Node
	if err := decodeNode(dec, &ordered); err != nil {
		return nil, "", err
	}
	var body string
	kept := ordered.Content[:0]
	for i := 0; i+1 < len(ordered.Content); i += 2 {
		if ordered.Content[i].Value == bodyField {
			body = ordered.Content[i+1].Value
			continue
		}
		kept = append(kept, ordered.Content[i], ordered.Content[i+1])
	}
	ordered.Content = kept
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&ordered); err != nil {
		return nil, "", err
	}
	return out.Bytes(), body, enc.Close()
}

// decodeNode reads the next JSON value of dec into n, keeping the order of object keys.
func decodeNode(dec *json.Decoder, n *yaml.Node) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
			for dec.More() {
				keyTok, err := dec.Token()
				if err != nil {
					return err
				}
				key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: keyTok.(string)}
				val := &yaml.Node{}
				if err := decodeNode(dec, val); err != nil {
					return err
				}
				n.Content = append(n.Content, key, val)
			}
		} else {
			n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
			for dec.More() {
				val := &yaml.Node{}
				if err := decodeNode(dec, val); err != nil {
					return err
				}
				n.Content = append(n.Content, val)
			}
		}
		_, err = dec.Token() // the closing delimiter
		return err
	case string:
		*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
		if strings.Contains(v, "\n") {
			n.Style = yaml.LiteralStyle
		}
	case json.Number:
		*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: v.String()}
		if strings.ContainsAny(v.String(), ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(v)}
	case nil:
		*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	return nil
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9]+`)

// FolderName is a notebook's folder in the ZIP: its name as a lower-case ASCII slug (at most 60
// characters; "notebook" when nothing is left), a dash, and its id, which keeps two notebooks of
// the same name apart and every path free of "..", slashes and characters a file system refuses.
func FolderName(name, id string) string {
	slug := strings.Trim(unsafeChars.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(slug) > 60 {
		slug = strings.TrimRight(slug[:60], "-")
	}
	if slug == "" {
		slug = "notebook"
	}
	return slug + "-" + id
}
