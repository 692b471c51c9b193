package document

import (
	"crypto/sha256"
	"fmt"
	"runtime"
	"testing"

	"folio/platform/markdown"
)

func TestRenderMemoized(t *testing.T) {
	for i, src := range []string{
		"# Title\n\nSome **bold** text with #tag and @ann, long enough to be cached by Render.",
		"- one\n- two\n\n> **Decision:** ship it, and make this line long enough for the cache.",
	} {
		doc, err := markdown.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := markdown.Encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		want := Text(doc)
		for range 3 { // a miss, then hits
			got, err := Render(stored)
			if err != nil || got != want {
				t.Fatalf("doc %d: Render = %q, %v; want %q", i, got, err, want)
			}
		}
		if _, ok := rendered.get(sha256.Sum256(stored)); !ok {
			t.Fatalf("doc %d: not memoized", i)
		}
	}
	if _, err := Render([]byte(`{"type":"doc","schemaVersion":1,"content":[{"type":"nope"}]} padding padding`)); err == nil {
		t.Fatal("a broken document rendered")
	}
}

func TestRenderMemoBounded(t *testing.T) {
	text := string(make([]byte, 4096))
	offered := 0
	offer := func(m *renderMemo, n int) { // n texts not offered before
		for range n {
			offered++
			m.put(sha256.Sum256(fmt.Appendf(nil, "%d", offered)), text)
		}
	}
	// Each generation of a shard may pass its share of the bound by one text.
	slack := 2 * renderCacheShards * (len(text) + entryOverhead)
	for _, bound := range []int{DefaultRenderCacheBytes, 1 << 20, 32 << 20} {
		m := newRenderMemo(bound)
		offer(m, 4*bound/len(text)) // four times the bound offered
		if _, counted := m.size(); counted > bound+slack || counted < bound/2 {
			t.Errorf("bound %d: the cache holds %d bytes, want at most the bound and at least half of it", bound, counted)
		}
	}
	off := newRenderMemo(0)
	offer(off, 100)
	if entries, _ := off.size(); entries != 0 || off.enabled() {
		t.Errorf("bound 0: the cache holds %d entries, want none", entries)
	}
	m := newRenderMemo(DefaultRenderCacheBytes)
	offer(m, 1000)
	m.setBound(1 << 20) // a smaller bound holds once the generations have turned
	offer(m, 1000)
	if _, counted := m.size(); counted > 1<<20+slack {
		t.Errorf("after the bound shrank to 1 MiB the cache holds %d bytes", counted)
	}
	m.setBound(0)
	if entries, _ := m.size(); entries != 0 {
		t.Errorf("turned off, the cache still holds %d entries", entries)
	}
}

// TestRenderMemoGenerations: a hit in the old generation moves the entry to the current one, the
// oldest entries go, the newest stay, and size() counts what the cache holds.
func TestRenderMemoGenerations(t *testing.T) {
	m := newRenderMemo(DefaultRenderCacheBytes)
	text := string(make([]byte, 4096))
	var first [sha256.Size]byte
	for i := range 40_000 { // about 160 MB of text offered
		k := sha256.Sum256(fmt.Appendf(nil, "%d", i))
		if i == 0 {
			first = k
		}
		m.put(k, text)
	}
	checkSize := func() {
		t.Helper()
		entries, bytes := m.size()
		held := 0
		for i := range m.shards {
			held += len(m.shards[i].cur) + len(m.shards[i].old)
		}
		if entries != held || bytes != held*(len(text)+entryOverhead) {
			t.Fatalf("size() = %d entries, %d bytes; the cache holds %d entries of %d bytes", entries, bytes, held, len(text)+entryOverhead)
		}
	}
	checkSize()
	for k := range m.shards[0].old { // a hit in the old generation moves the entry to the current one
		m.get(k)
		break
	}
	checkSize()
	if _, ok := m.get(first); ok {
		t.Fatal("the oldest entry survived two generations")
	}
	last := sha256.Sum256(fmt.Appendf(nil, "%d", 39_999))
	if v, ok := m.get(last); !ok || v != text {
		t.Fatal("the newest entry is missing")
	}
}

// TestRenderCacheOff: with a bound of 0 (FOLIO_RENDER_CACHE_MB=0), Render and Encode keep nothing
// and Render still renders.
func TestRenderCacheOff(t *testing.T) {
	saved := rendered
	rendered = newRenderMemo(0)
	defer func() { rendered = saved }()
	doc, err := markdown.Parse("# Title\n\nSome **bold** text with #tag and @ann, long enough to be cached by Render.")
	if err != nil {
		t.Fatal(err)
	}
	stored, err := Encode(Of(doc))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got, err := Render(stored); err != nil || got != Text(doc) {
			t.Fatalf("Render = %q, %v; want %q", got, err, Text(doc))
		}
	}
	if entries, _ := rendered.size(); entries != 0 {
		t.Fatalf("the cache holds %d entries, want none", entries)
	}
}

// BenchmarkRenderUncached measures what the memo saves: decoding a stored document and rendering
// it back to Markdown, for a short note (about 500 bytes of Markdown).
func BenchmarkRenderUncached(b *testing.B) {
	doc, err := markdown.Parse("## Weekly sync\n\nDiscussed the **Q3 roadmap** with @alice and @bob. Key points:\n\n" +
		"- Migrate the billing service to the new queue\n- Review the *on-call* rotation\n- Budget (`k6` or our own)\n\n" +
		"> **Decision:** ship the new pagination behind a flag first.\n\nFollow-up with the [doc](https://example.com/d). #roadmap #meeting")
	if err != nil {
		b.Fatal(err)
	}
	stored, err := markdown.Encode(doc)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := markdown.Decode(stored); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("render", func(b *testing.B) {
		for b.Loop() {
			_ = Text(doc)
		}
	})
	b.Run("memo-hit", func(b *testing.B) {
		if _, err := Render(stored); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := Render(stored); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRenderCacheHoldsWhatItCounts: the heap the cached texts take is about what the cache counts
// against its bound (a text kept with its rendering buffer took about twice its length).
func TestRenderCacheHoldsWhatItCounts(t *testing.T) {
	const n = 4000
	stored := make([][]byte, n)
	for i := range stored {
		doc, err := markdown.Parse(fmt.Sprintf("## Weekly sync %d\n\nDiscussed the **Q3 roadmap** with @alice and @bob. Key points:\n\n"+
			"- Migrate the billing service to the new queue\n- Review the *on-call* rotation\n\n> **Decision:** ship it behind a flag. #roadmap", i))
		if err != nil {
			t.Fatal(err)
		}
		if stored[i], err = markdown.Encode(doc); err != nil {
			t.Fatal(err)
		}
	}
	saved := rendered
	rendered = newRenderMemo(DefaultRenderCacheBytes)
	defer func() { rendered = saved }()
	var before, after runtime.MemStats
	settled := func(m *runtime.MemStats) {
		runtime.GC()
		runtime.GC() // the second empties what sync.Pools kept through the first
		runtime.ReadMemStats(m)
	}
	settled(&before)
	for _, s := range stored {
		if _, err := Render(s); err != nil {
			t.Fatal(err)
		}
	}
	settled(&after)
	runtime.KeepAlive(stored)
	entries, counted := rendered.size()
	held := int(after.HeapAlloc) - int(before.HeapAlloc)
	if entries != n || held > counted*13/10 {
		t.Fatalf("%d entries counted as %d bytes take %d bytes of heap", entries, counted, held)
	}
}
