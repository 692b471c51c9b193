package journal

import (
	"fmt"
	"slices"
	"sort"

	"go.uber.org/fx"
)

// EventType is one type of event a module emits, as the module declares it (DeclareEvents): the
// feed accepts exactly the declared types, and the OpenAPI document's EventType enum and Event
// schema are assembled from the declarations, so a new module edits no list elsewhere.
type EventType struct {
	Name     string // "note.created"
	Resource string // the resourceType of its events: "note"
	// Schema is the OpenAPI schema of the event's data, under #/components/schemas ("Note").
	Schema string
	// Deletion marks a delete's event: its data is only the deleted id (DeletedSchema), shown to
	// whoever can still read the notebook it was deleted from (see DataResource).
	Deletion bool
}

// DeletedSchema is the data schema of a delete event ({id}); the events module defines it.
const DeletedSchema = "DeletedResource"

// ItemEvents are the four events of an item kind's flows (the item kernel emits them: created,
// updated, deleted, restored), with schema the item's API schema.
func ItemEvents(kind, schema string) []EventType {
	out := make([]EventType, 0, 4)
	for _, verb := range []string{"create", "update", "delete", "restore"} {
		past, _ := PastTense(verb)
		e := EventType{Name: kind + "." + past, Resource: kind, Schema: schema}
		if verb == "delete" {
			e.Schema, e.Deletion = DeletedSchema, true
		}
		out = append(out, e)
	}
	return out
}

// DeclareEvents joins the "eventTypes" value group the Catalog reads:
// fx.Provide(journal.DeclareEvents(journal.ItemEvents("note", "Note")...)).
func DeclareEvents(types ...EventType) any {
	return fx.Annotate(func() []EventType { return types }, fx.ResultTags(`group:"eventTypes,flatten"`))
}

// Catalog is every declared event type, sorted by name.
type Catalog struct {
	types []EventType
	names []string
}

// CatalogParams are what NewCatalog collects.
type CatalogParams struct {
	fx.In
	Types []EventType `group:"eventTypes"`
}

// NewCatalog sorts the declarations; a name declared twice, or one without a resource or a
// schema, is a wiring error that stops the start.
func NewCatalog(p CatalogParams) (*Catalog, error) { return BuildCatalog(p.Types) }

// BuildCatalog is NewCatalog without fx.
func BuildCatalog(types []EventType) (*Catalog, error) {
	types = slices.Clone(types)
	sort.Slice(types, func(i, j int) bool { return types[i].Name < types[j].Name })
	c := &Catalog{types: types, names: make([]string, len(types))}
	for i, t := range types {
		if t.Name == "" || t.Resource == "" || t.Schema == "" {
			return nil, fmt.Errorf("journal: event type %+v: name, resource and schema are required", t)
		}
		if i > 0 && types[i-1].Name == t.Name {
			return nil, fmt.Errorf("journal: event type %q is declared twice", t.Name)
		}
		c.names[i] = t.Name
	}
	return c, nil
}

// Names lists the declared type names, sorted. The caller must not change it.
func (c *Catalog) Names() []string { return c.names }

// Types lists the declarations, sorted by name.
func (c *Catalog) Types() []EventType { return slices.Clone(c.types) }

// Has says whether name is a declared type.
func (c *Catalog) Has(name string) bool {
	_, ok := slices.BinarySearch(c.names, name)
	return ok
}

func (c *Catalog) lookup(name string) (EventType, bool) {
	i, ok := slices.BinarySearch(c.names, name)
	if !ok {
		return EventType{}, false
	}
	return c.types[i], true
}

// Module provides the catalog of event types.
var Module = fx.Module("journal", fx.Provide(NewCatalog))
