package httpx

import (
	"bytes"
	"reflect"
	"testing"
)

// onceTarget has every kind of field Bind fills: plain strings (read as tokens by bindOnce), a
// Markdown one, numbers, booleans, arrays, pointers and Optionals (nullable or not), some of them
// from an embedded set, and the fields an echoed response makes "set by the server".
type onceTarget struct {
	Name    string           `json:"name" binding:"required"`
	Content string           `json:"content" markdown:"true"`
	Count   int              `json:"count"`
	Done    bool             `json:"done"`
	Labels  []string         `json:"labels"`
	Ref     Optional[string] `json:"ref" nullable:"true"`
	Flag    Optional[bool]   `json:"flag"`
	onceShared
	Echoes[struct {
		ID string `json:"id"`
	}]
}

type onceShared struct {
	Due *string          `json:"dueAt"`
	Pin Optional[string] `json:"pin" binding:"required"`
}

// sharedName has two fields of one JSON name (one promoted from an embedded set), which the
// reference reading both fills.
type sharedName struct {
	sharedInner
	B string `json:"x"`
}

type sharedInner struct {
	A string `json:"x"`
}

// TestBindOnceDeclines: bindOnce leaves to the reference reading a type with two fields of one
// name, and a dst that is not zero (it could not put it back exactly).
func TestBindOnceDeclines(t *testing.T) {
	var s sharedName
	if bindOnce([]byte(`{"x":"v"}`), &s) {
		t.Fatalf("bindOnce read a type with a shared name: %+v", s)
	}
	filled := onceTarget{Labels: []string{"before"}}
	if bindOnce([]byte(`{"name":"a","pin":"p","labels":["x"]}`), &filled) || filled.Labels[0] != "before" {
		t.Fatalf("bindOnce read into a filled dst: %+v", filled)
	}
}

// TestBindOnceAgrees: where bindOnce reads a body it reads it as the reference reading does
// (decodeObject, then bindFields) and only bodies the reference accepts; where it declines, dst is
// as it was. The fuzz seeds run as a test on every go test.
func TestBindOnceAgrees(t *testing.T) {
	for i, body := range onceSeeds {
		if read := checkBindOnce(t, []byte(body)); read != (i < onceReads) {
			t.Errorf("%q: bindOnce read it: %v, want %v", body, read, i < onceReads)
		}
	}
}

func FuzzBindOnce(f *testing.F) {
	for _, s := range onceSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkBindOnce(t, bytes.TrimSpace(body)) })
}

// onceSeeds are bodies: the first onceReads of them bindOnce reads itself, the others (refused,
// or accepted but unusual) it leaves to the reference reading.
var onceSeeds = []string{
	`{"name":"a","pin":"p"}`,
	`{"name":"a","pin":"p","content":"# T\n\n> **Decision:** ship\u0000 it","count":3,"done":true,"labels":["x","y"],"ref":"r","flag":false,"dueAt":"d"}`,
	`{"name":"caf\u00e9 \"q\" \ud83d\ude00 \\ \/ \b\f\n\r\t","pin":""}`,
	`{"pin":"p","name":"a","ref":null}`,
	`{ "name" : "a" , "pin" : "p" , "labels" : [ ] , "count" : -7 }`,
	// Accepted, left to the reference: a repeated member (the last one counts).
	`{"name":"a","pin":"p","name":"b"}`,
	// Refused.
	`{"pin":"p","name":"a","ref":null,"dueAt":null}`,
	`{"name":"a","pin":"p","count":1e2}`,
	`{"name":"a","pin":"p","count":1.5}`,
	`{"name":"a","pin":"p","flag":null}`,
	`{"name":null,"pin":"p"}`,
	`{"name":"a"}`,
	`{"name":"a\u0000","pin":"p"}`,
	`{"name":"a","pin":"p","id":"x"}`,
	`{"name":"a","pin":"p","colour":"red"}`,
	`{"Name":"a","pin":"p"}`,
	`{"name":5,"pin":"p"}`,
	`{"name":["a"],"pin":"p"}`,
	`{"name":"a","pin":"p"} x`,
	`{"name":"a","pin":"p"}{}`,
	`{"name":"a","pin":"p",}`,
	`{"name":"a","pin":`,
	`{"name":"a","pin":"p","labels":{}}`,
	`{"name":"a","pin":"p","dueAt":5}`,
	`{}`,
	`[]`,
}

const onceReads = 5

// checkBindOnce compares bindOnce with the reference reading on body and reports whether
// bindOnce read it.
func checkBindOnce(t *testing.T, body []byte) bool {
	t.Helper()
	var want onceTarget
	obj, err := decodeObject(body)
	if err == nil {
		err = bindFields(obj, &want)
	}
	var got onceTarget
	if !bindOnce(body, &got) {
		if !reflect.ValueOf(got).IsZero() {
			t.Fatalf("%q: bindOnce declined and left %+v", body, got)
		}
		return false
	}
	if err != nil {
		t.Fatalf("%q: bindOnce read a body the reference refuses (%v)", body, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: bindOnce read %+v, the reference %+v", body, got, want)
	}
	return true
}
