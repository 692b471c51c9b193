package events

import (
	_ "embed"
	"slices"

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
	return apidoc.Generated("events", openapiYAML, func(doc map[string]any) error {
		eventType, err := apidoc.Node(doc, "components", "schemas", "EventType")
		if err != nil {
			return err
		}
		event, err := apidoc.Node(doc, "components", "schemas", "Event")
		if err != nil {
			return err
		}
		resourceType, err := apidoc.Node(event, "properties", "resourceType")
		if err != nil {
			return err
		}
		var resources, schemas []string
		typesOf := map[string][]string{}
		for _, t := range c.Types() {
			if !slices.Contains(resources, t.Resource) {
				resources = append(resources, t.Resource)
			}
			if _, seen := typesOf[t.Schema]; !seen {
				schemas = append(schemas, t.Schema)
			}
			typesOf[t.Schema] = append(typesOf[t.Schema], t.Name)
		}
		slices.Sort(resources)
		slices.Sort(schemas)
		eventType["enum"] = apidoc.Enum(c.Names())
		resourceType["enum"] = apidoc.Enum(resources)
		oneOf := []any{map[string]any{
			"required":    []any{"data"},
			"description": "An event whose resource the caller cannot read now.",
			"properties":  map[string]any{"data": map[string]any{"type": "null"}},
		}}
		for _, schema := range schemas {
			oneOf = append(oneOf, map[string]any{
				"required": []any{"type", "data"},
				"properties": map[string]any{
					"type": map[string]any{"enum": apidoc.Enum(typesOf[schema])},
					"data": map[string]any{"$ref": "#/components/schemas/" + schema},
				},
			})
		}
		event["oneOf"] = oneOf
		return nil
	})
}
