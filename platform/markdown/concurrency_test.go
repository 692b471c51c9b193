package markdown_test

import (
	"sync"
	"testing"

	"folio/platform/markdown"
)

// TestConcurrentUse runs Parse and Render from many goroutines (run with
// -race): the goldmark parser and the writer pool are shared.
func TestConcurrentUse(t *testing.T) {
	small, _ := benchInputs(t)
	want := markdown.Render(mustParse(t, small))
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				d, err := markdown.Parse(small)
				if err != nil {
					t.Error(err)
					return
				}
				if got := markdown.Render(d); got != want {
					t.Error("concurrent Render differs")
					return
				}
			}
		}()
	}
	wg.Wait()
}
