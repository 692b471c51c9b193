package markdown

import (
	"flag"
	"math/rand"
	"testing"
)

var treeCount = flag.Int("trees", 2000, "random documents checked by TestRandomTrees")

// TestRandomTrees checks the semantic round trip on random schema-valid
// documents whose text comes from the characters that need escaping.
func TestRandomTrees(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	fails := 0
	for i := 0; i < *treeCount && fails < 3; i++ {
		data := make([]byte, 64+rng.Intn(400))
		rng.Read(data)
		if msg := checkTree(genDoc(data)); msg != "" {
			fails++
			t.Errorf("tree %d: %s", i, msg)
		}
	}
}
