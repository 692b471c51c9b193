// Package imports is the import (CONTRACT.md section 24): a ZIP of Markdown files read back into
// notebooks, notes and tasks, for POST /import and `folio import`. It reads folio's own export (a
// round trip: notebooks, notes, tasks, their dates, archived, tags and mentions) and the Markdown
// folders other tools export (Obsidian vaults, Notion and Bear exports: one note per .md file,
// front matter mapped where its meaning is known, folders as notebooks).
//
// An archive is checked whole before anything is written (archive.go): a hostile one (a path
// leaving its folder, a link, an archive inside, over 50 MB or 10,000 entries, a compression ratio
// over 100) is refused. Then every item is created through its own module's service, as POST
// /notebooks, /notes and /tasks create them (the item limit, tags, search index, audit entries
// and events alike), all in one transaction (db.Atomically): an import lands whole or not at all.
// Nothing is dropped silently: the answer lists each file whose content was altered and each file
// that was not imported, with why.
package imports

import (
	"archive/zip"
	"context"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.uber.org/fx"
	"go.yaml.in/yaml/v3"

	"folio/modules/document"
	"folio/platform/auth"
	"folio/platform/db"
)

// The writes an import makes, each the use case of its module (app/ports.go binds them): an
// import creates nothing that the API could not create one request at a time.
type (
	// CheckNotebook answers whether p may add items to the notebook id, with the codes of
	// CONTRACT.md section 6 (404 NOTEBOOK_NOT_FOUND, 403 KEY_NOTEBOOK_MISMATCH, ...).
	CheckNotebook func(ctx context.Context, p *auth.Principal, id string) error
	// CreateNotebook makes a notebook as POST /notebooks without workspaceId does (a workspace-
	// scoped key's lands in its workspace) and returns its id and colour: a colour folio does not
	// know is the default one.
	CreateNotebook func(ctx context.Context, p *auth.Principal, name, color string) (id, colour string, err error)
	// CreateNote creates a note as POST /notes does.
	CreateNote func(ctx context.Context, p *auth.Principal, n Note) error
	// CreateTask creates a task as POST /tasks does.
	CreateTask func(ctx context.Context, p *auth.Principal, t Task) error
)

// Note is a note to create: what POST /notes takes, and what only an import gives (archived,
// createdAt and updatedAt; zero times are now).
type Note struct {
	NotebookID           string
	Content              document.Parsed
	TargetAt, FollowUpAt *time.Time
	Archived             bool
	CreatedAt, UpdatedAt time.Time
}

// Task is a task to create, as Note is a note. Status and Priority "" are the defaults.
type Task struct {
	NotebookID              string
	Title, Status, Priority string
	Notes                   document.Parsed
	DueAt                   *time.Time
	TargetAt, FollowUpAt    *time.Time
	Archived                bool
	CreatedAt, UpdatedAt    time.Time
}

// ServiceParams are what the import writes through.
type ServiceParams struct {
	fx.In
	CheckNotebook  CheckNotebook
	CreateNotebook CreateNotebook
	CreateNote     CreateNote
	CreateTask     CreateTask
}

// Service runs imports.
type Service struct{ p ServiceParams }

// NewService returns the import service.
func NewService(p ServiceParams) *Service { return &Service{p: p} }

// Result is what an import did: the counts of what it created, the files it altered and the
// files it did not import, in the archive's order.
type Result struct {
	Notebooks, Notes, Tasks int
	Changed                 []FileNote
	Skipped                 []FileNote
	// Notebook is the one notebook that received the import (the notebookId given, or the only one
	// made), "" when there are several or none: the answer's Location.
	Notebook string
}

// FileNote is what happened to one file (or folder, named with a trailing "/").
type FileNote struct{ File, Note string }

// Import reads the ZIP in r (size bytes) into the notebook notebookID, or, when it is "", into
// new notebooks named after the ZIP's folders. A refused archive or notebook changes nothing;
// neither does a failed create (403 ITEM_LIMIT_REACHED, say): every write is in one transaction.
func (s *Service) Import(ctx context.Context, p *auth.Principal, r io.ReaderAt, size int64, notebookID string) (Result, error) {
	a, err := openArchive(r, size)
	if err != nil {
		return Result{}, err
	}
	if notebookID != "" {
		if err := s.p.CheckNotebook(ctx, p, notebookID); err != nil {
			return Result{}, err
		}
	} else if p.NotebookID != nil {
		return Result{}, errCreateByKey
	}
	run := &run{svc: s, p: p, archive: a, into: notebookID}
	err = db.Atomically(ctx, run.all)
	if err != nil {
		return Result{}, err
	}
	return run.result, nil
}

// run is one import under way.
type run struct {
	svc     *Service
	p       *auth.Principal
	archive *archive
	into    string
	folders map[string]*folder // by key
	root    string             // the one folder every file lies in, when there is one
	result  Result
}

// folder is a notebook of the import: a folder of the ZIP.
type folder struct {
	key, name, color string
	meta             string // its notebook.yaml, when it has one
	folio            bool   // a notebook folder of folio's export
	id               string // the notebook, once made
}

func (r *run) all(ctx context.Context) error {
	r.plan()
	for _, f := range r.archive.files {
		if err := r.file(ctx, f); err != nil {
			return err
		}
	}
	// A notebook of folio's export that holds nothing is made too: the round trip keeps it.
	for _, f := range r.archive.files {
		if fo := r.folders[dirOf(f.Name)]; fo != nil && fo.folio && path.Base(f.Name) == notebookFile && r.into == "" {
			if _, err := r.notebook(ctx, fo); err != nil {
				return err
			}
		}
	}
	if r.into != "" {
		r.result.Notebook = r.into
	}
	return nil
}

// notebookFile is the file folio's export writes in each notebook's folder (app/export).
const notebookFile = "notebook.yaml"

// folioFolder is the name folio's export gives a notebook's folder: a slug, a dash and its id.
var folioFolder = regexp.MustCompile(`^(.*)-([a-z][a-z0-9]{23})$`)

// plan finds the notebook folders: each top folder of folio's export (it holds notebook.yaml, or
// is named <slug>-<id> with notes/ or tasks/ in it), read with its notebook.yaml; the others come
// as they are met (folderOf).
func (r *run) plan() {
	r.folders = map[string]*folder{}
	tops := map[string]bool{}
	for _, f := range r.archive.files {
		top, rest, nested := strings.Cut(f.Name, "/")
		if !nested {
			tops[""] = true
			continue
		}
		tops[top] = true
		isMeta := rest == notebookFile
		inItems := strings.HasPrefix(rest, "notes/") || strings.HasPrefix(rest, "tasks/")
		if !isMeta && !(inItems && folioFolder.MatchString(top)) {
			continue
		}
		fo := r.folders[top]
		if fo == nil {
			fo = &folder{key: top, folio: true}
			if m := folioFolder.FindStringSubmatch(top); m != nil {
				fo.name = m[1]
			} else {
				fo.name = top
			}
			r.folders[top] = fo
		}
		if isMeta {
			r.readNotebookFile(f, fo)
		}
	}
	if len(tops) == 1 && !tops[""] {
		for top := range tops {
			if r.folders[top] == nil {
				r.root = top
			}
		}
	}
}

// readNotebookFile takes a notebook's name and colour from its notebook.yaml.
func (r *run) readNotebookFile(f *zip.File, fo *folder) {
	data, ok, err := readFile(f, 64<<10)
	var nb struct{ Name, Color string }
	if err != nil || !ok || yaml.Unmarshal(data, &nb) != nil || !validName(nb.Name) {
		r.result.Changed = append(r.result.Changed, FileNote{f.Name, "holds no notebook name of 1 to 40 characters (without NUL); the notebook is named after its folder"})
		return
	}
	fo.name, fo.color, fo.meta = nb.Name, nb.Color, f.Name
}

// maxName is the longest notebook name (CONTRACT.md section 1).
const maxName = 40

func validName(name string) bool {
	return strings.TrimSpace(name) != "" && utf8.RuneCountInString(name) <= maxName && !strings.ContainsRune(name, 0)
}

// folderOf is the notebook folder of a file: its folio notebook folder, or its own folder (the
// folder all files share left out of the name).
func (r *run) folderOf(name string) *folder {
	if top, _, nested := strings.Cut(name, "/"); nested && r.folders[top] != nil && r.folders[top].folio {
		return r.folders[top]
	}
	key := dirOf(name)
	if fo := r.folders[key]; fo != nil {
		return fo
	}
	fo := &folder{key: key}
	switch rel := strings.TrimPrefix(strings.TrimPrefix(key, r.root), "/"); {
	case rel == "" && r.root != "":
		fo.name = r.root
	case rel == "":
		fo.name = "Import"
	default:
		fo.name = rel
	}
	if !validName(fo.name) {
		full := fo.name
		fo.name = strings.TrimSpace(path.Base(full))
		if utf8.RuneCountInString(fo.name) > maxName {
			fo.name = strings.TrimSpace(string([]rune(fo.name)[:maxName]))
		}
		why := "the notebook's name is at most 40 characters: " + quote(full) + " became " + quote(fo.name)
		if fo.name == "" {
			fo.name = "Import"
			why = "the folder's name is blank; the notebook is named Import"
		}
		r.result.Changed = append(r.result.Changed, FileNote{key + "/", why})
	}
	r.folders[key] = fo
	return fo
}

// notebook is the folder's notebook, made on first use.
func (r *run) notebook(ctx context.Context, fo *folder) (string, error) {
	if r.into != "" {
		return r.into, nil
	}
	if fo.id == "" {
		id, colour, err := r.svc.p.CreateNotebook(ctx, r.p, fo.name, fo.color)
		if err != nil {
			return "", err
		}
		if fo.color != "" && colour != fo.color {
			r.result.Changed = append(r.result.Changed, FileNote{fo.meta, "the colour " + quote(fo.color) + " is not one of folio's; the notebook is " + colour})
		}
		fo.id = id
		r.result.Notebooks++
		if r.result.Notebooks == 1 {
			r.result.Notebook = id
		} else {
			r.result.Notebook = ""
		}
	}
	return fo.id, nil
}

// file imports one file of the archive, or says why not.
func (r *run) file(ctx context.Context, f *zip.File) error {
	skip := func(why string) error {
		r.result.Skipped = append(r.result.Skipped, FileNote{f.Name, why})
		return nil
	}
	base := path.Base(f.Name)
	switch {
	case base == notebookFile && r.folders[dirOf(f.Name)] != nil:
		if r.into != "" {
			return skip("is the notebook of folio's export; the import went into the notebook given by notebookId")
		}
		return nil // read by plan
	case strings.HasPrefix(f.Name, "__MACOSX/") || strings.HasPrefix(base, "._"):
		return skip("is macOS metadata, not a note")
	case hidden(f.Name):
		return skip("is in a hidden folder or is a hidden file (.obsidian, .trash, ...): not imported")
	case f.Flags&0x1 != 0:
		return skip("is encrypted")
	}
	switch ext := strings.ToLower(path.Ext(base)); ext {
	case ".md", ".markdown":
	case ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp", ".tif", ".tiff", ".heic":
		return skip("is an image: folio stores no images (a note that showed it links to it)")
	default:
		return skip("is not a Markdown file: only .md files are imported")
	}
	data, ok, err := readFile(f, maxFileBytes)
	if err != nil {
		// openArchive read it whole already: an entry that reads otherwise now refuses the
		// import, which rolls back what was written.
		return errEntry(f.Name, readError(f, err))
	}
	if !ok {
		return skip("is larger than 1 MiB: a note holds at most 100,000 characters")
	}
	fo := r.folderOf(f.Name)
	it, why := readItem(f.Name, data, fo.folio)
	if why != "" {
		return skip(why)
	}
	field := "content"
	if it.task {
		field = "notes"
	}
	doc, changes, why := toDocument(field, it.text, it.tags, it.lineOffset)
	if why != "" {
		return skip(why)
	}
	for _, c := range append(it.changes, changes...) {
		r.result.Changed = append(r.result.Changed, FileNote{f.Name, c})
	}
	nb, err := r.notebook(ctx, fo)
	if err != nil {
		return err
	}
	if it.task {
		r.result.Tasks++
		return r.svc.p.CreateTask(ctx, r.p, Task{NotebookID: nb, Title: it.title, Status: it.status, Priority: it.priority, Notes: doc,
			DueAt: it.dueAt, TargetAt: it.targetAt, FollowUpAt: it.followUp, Archived: it.archived, CreatedAt: it.createdAt, UpdatedAt: it.updatedAt})
	}
	r.result.Notes++
	return r.svc.p.CreateNote(ctx, r.p, Note{NotebookID: nb, Content: doc, TargetAt: it.targetAt, FollowUpAt: it.followUp,
		Archived: it.archived, CreatedAt: it.createdAt, UpdatedAt: it.updatedAt})
}

// hidden reports whether a path has a part that begins with a dot.
func hidden(name string) bool {
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}

func quote(s string) string { return strconv.Quote(s) }
