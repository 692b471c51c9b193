// Drives a running folio with a client generated from its own OpenAPI document (check.sh
// generates generated/schema.d.ts first and type-checks this file against it): create a
// notebook, a note, suggest new content, approve it, page through the notes. Any unexpected
// answer exits non-zero.
import createClient from "openapi-fetch";
import type { paths } from "./generated/schema";

const baseUrl = process.env.FOLIO_URL ?? "";
const key = process.env.FOLIO_KEY ?? "";
if (!baseUrl || !key) {
  throw new Error("FOLIO_URL and FOLIO_KEY must be set");
}

const api = createClient<paths>({
  baseUrl: `${baseUrl}/api/v1`,
  headers: { Authorization: `Bearer ${key}` },
});

function check(ok: unknown, what: string): asserts ok {
  if (!ok) {
    throw new Error(`client check failed: ${what}`);
  }
}

const notebook = await api.POST("/notebooks", { body: { name: "Client check", color: "teal" } });
check(notebook.data, `create notebook: ${notebook.response.status} ${JSON.stringify(notebook.error)}`);
check(notebook.response.status === 201, "create notebook answers 201");
check(notebook.response.headers.get("Location") === `/api/v1/notebooks/${notebook.data.id}`, "notebook Location");
const notebookId: string = notebook.data.id;

const content = "# 1:1 with Bob\n\nTalked about #hiring with @bob.\n\n> **Decision:** hire 2 engineers";
const note = await api.POST("/notes", { body: { content, notebookId, targetAt: "2026-12-01" } });
check(note.data, `create note: ${note.response.status} ${JSON.stringify(note.error)}`);
check(note.data.hasDecision, "hasDecision derived from the content");
check(note.data.tags.map((t) => `${t.kind}:${t.name}`).join(",") === "TAG:hiring,PERSON:bob", `tags ${JSON.stringify(note.data.tags)}`);
check(note.data.targetAt === "2026-12-01T00:00:00.000Z", `targetAt ${note.data.targetAt}`);
const noteId: string = note.data.id;

const suggested = content + "\n\nFollow up with @carol.";
const suggestion = await api.POST("/notes/{id}/suggest", {
  params: { path: { id: noteId } },
  body: { content: suggested, rationale: "add the follow-up" },
});
check(suggestion.data, `suggest: ${suggestion.response.status} ${JSON.stringify(suggestion.error)}`);
check(suggestion.data.status === "PENDING", "a new suggestion is PENDING");
check(suggestion.data.originalContent === note.data.content, "originalContent is the note's content");

// GET /notes/{id} has two representations (JSON, and the content alone as text/markdown): a
// helper narrows the answer to the JSON one, as a typed client must.
const getNote = async (id: string) => {
  const r = await api.GET("/notes/{id}", { params: { path: { id } } });
  check(typeof r.data === "object" && r.data !== null, `GET /notes/{id}: ${r.response.status}`);
  return r.data as Exclude<typeof r.data, string | undefined>;
};
const markdown = await api.GET("/notes/{id}", { params: { path: { id: noteId } }, headers: { Accept: "text/markdown" }, parseAs: "text" });
check(markdown.data === note.data.content, `the Markdown representation is the content: ${markdown.data}`);

const pending = await getNote(noteId);
check(pending.pendingSuggestion?.id === suggestion.data.id, "the note shows its pending suggestion");

const approved = await api.POST("/suggestions/{id}/approve", { params: { path: { id: suggestion.data.id } } });
check(approved.data?.status === "APPROVED", `approve: ${approved.response.status} ${JSON.stringify(approved.error)}`);

const again = await api.POST("/suggestions/{id}/approve", { params: { path: { id: suggestion.data.id } } });
check(again.response.status === 409 && again.error?.error.code === "SUGGESTION_ALREADY_RESOLVED", "approving twice is 409");

const after = await getNote(noteId);
check(after.content === suggested, `the approved content is the note's: ${after.content}`);
check(after.pendingSuggestion === null, "nothing pending after approval");

for (let i = 0; i < 4; i++) {
  const r = await api.POST("/notes", { body: { content: `note ${i} #paging`, notebookId } });
  check(r.response.status === 201, `create note ${i}`);
}
const seen: string[] = [];
let cursor: string | undefined;
for (let pages = 0; ; pages++) {
  check(pages < 10, "paging ends");
  const page = await api.GET("/notes", { params: { query: { notebookId, limit: 2, cursor } } });
  check(page.data, `list notes: ${page.response.status} ${JSON.stringify(page.error)}`);
  seen.push(...page.data.data.map((n) => n.id));
  if (page.data.nextCursor === null) {
    break;
  }
  cursor = page.data.nextCursor;
}
check(seen.length === 5 && new Set(seen).size === 5 && seen[4] === noteId, `paged through ${JSON.stringify(seen)}`);

const missing = await api.GET("/notes/{id}", { params: { path: { id: "nope" } } });
check(missing.response.status === 404 && missing.error?.error.code === "NOTE_NOT_FOUND", "an unknown note is 404 NOTE_NOT_FOUND");

console.log(`client check passed: notebook ${notebookId}, note ${noteId} (suggested, approved), ${seen.length} notes in pages of 2`);
