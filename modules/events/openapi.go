package events

import (
	_ "embed"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"folio/modules/journal"
	"folio/platform/apidoc"
)

// openapiYAML is the module's part of the OpenAPI document: its routes, beside its handler. Its
// event types are not listed in it: openAPIPart adds them from the modules' declarations.
//
//go:embed openapi.yaml
var openapiYAML []byte

// openAPIPart is the module's fragment with what the declared event types decide: the EventType
// enum, the enum of an event's resourceType, and the Event's oneOf (an unreadable resource's null
// data, then one branch per data schema with the types that carry it). A module that declares an
// event type (journal.DeclareEvents) thus appears in the document without editing this module.
func openAPIPart(c *journal.Catalog) (apidoc.Part, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(openapiYAML, &doc); err != nil {
		return apidoc.Part{}, fmt.Errorf("events openapi: %w", err)
	}
	schemas, _ := dig(doc, "components", "schemas")
	eventType, ok1 := dig(schemas, "EventType")
	event, ok2 := dig(schemas, "Event")
	resourceType, ok3 := dig(event, "properties", "resourceType")
	if !ok1 || !ok2 || !ok3 {
		return apidoc.Part{}, fmt.Errorf("events openapi: EventType or Event.properties.resourceType missing")
	}
	var resources, schemaOrder []string
	typesOf := map[string][]any{}
	for _, t := range c.Types() {
		if !slices.Contains(resources, t.Resource) {
			resources = append(resources, t.Resource)
		}
		if _, seen := typesOf[t.Schema]; !seen {
			schemaOrder = append(schemaOrder, t.Schema)
		}
		typesOf[t.Schema] = append(typesOf[t.Schema], t.Name)
	}
	slices.Sort(resources)
	slices.Sort(schemaOrder)
	eventType["enum"] = toAny(c.Names())
	resourceType["enum"] = toAny(resources)
	oneOf := []any{map[string]any{
		"required":    []any{"data"},
		"description": "An event whose resource the caller cannot read now.",
		"properties":  map[string]any{"data": map[string]any{"type": "null"}},
	}}
	for _, schema := range schemaOrder {
		oneOf = append(oneOf, map[string]any{
			"required": []any{"type", "data"},
			"properties": map[string]any{
				"type": map[string]any{"enum": typesOf[schema]},
				"data": map[string]any{"$ref": "#/components/schemas/" + schema},
			},
		})
	}
	event["oneOf"] = oneOf
	out, err := yaml.Marshal(doc)
	if err != nil {
		return apidoc.Part{}, err
	}
	return apidoc.Part{Name: "events", YAML: out}, nil
}

// dig follows keys down nested maps.
func dig(m map[string]any, keys ...string) (map[string]any, bool) {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	return m, true
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
