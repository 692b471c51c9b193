package web

// TEMPORARY: a stub document until the apidoc branch serves the real one.

import (
	"github.com/gin-gonic/gin"

	"folio/platform/httpx"
)

type stubDoc struct{}

func (stubDoc) Register(r httpx.Router) {
	r.Public.GET("/api/v1/openapi.json", func(c *gin.Context) {
		c.Data(200, "application/json", []byte(`{"openapi":"3.1.0","info":{"title":"folio","version":"1"},
"paths":{"/notes":{"get":{"summary":"List notes","operationId":"listNotes","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"data":{"type":"array","items":{"type":"string"}},"nextCursor":{"type":["string","null"]}}}}}}}},
"post":{"summary":"Create a note","requestBody":{"content":{"application/json":{"schema":{"type":"object","required":["content"],"properties":{"content":{"type":"string","maxLength":100000}}}}}},"responses":{"201":{"description":"created"}}}},
"/notebooks":{"get":{"summary":"List notebooks","responses":{"200":{"description":"ok"}}},"post":{"summary":"Create a notebook","responses":{"201":{"description":"created"}}}},
"/tasks":{"get":{"summary":"List tasks","responses":{"200":{"description":"ok"}}}}},
"components":{"securitySchemes":{"apiKey":{"type":"http","scheme":"bearer"}}},"security":[{"apiKey":[]}]}`))
	})
}
