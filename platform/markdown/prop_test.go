package markdown

import (
	"math/rand"
	"testing"
)

func TestRandomTrees(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	fails := 0
	for i := 0; i < 3000 && fails < 3; i++ {
		data := make([]byte, 200)
		rng.Read(data)
		d := genDoc(data)
		if msg := checkTree(d); msg != "" {
			fails++
			t.Errorf("tree %d: %s", i, msg)
		}
	}
}
