package httpx

import (
	"net/http"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
)

// CompressMinSize is the smallest response body that is gzip-compressed (CONTRACT.md section 11:
// 1 KiB or more). Below it the gzip header and the CPU cost more than they save.
const CompressMinSize = 1024

// Compress wraps the whole handler (the API, the settings UI and the docs page alike) in
// klauspost/compress's gzhttp: a response of CompressMinSize bytes or more is gzip-compressed when
// the request accepts gzip (q-values honoured), and every response says Vary: Accept-Encoding.
// gzhttp buffers the first CompressMinSize bytes to decide, leaves already compressed content
// types alone, and never compresses a HEAD response (some proxies mishandle an empty gzip body),
// so HEAD describes the identity representation.
//
// Stateless gzip (gzip.StatelessCompression): each write is compressed on its own, with no
// compressor kept per response. A pooled level-5 writer (gzhttp's default) holds about 1 MiB of
// match tables and history, a level-1 writer 0.8 MiB, a stateless one 8.5 KiB, and stateless is
// the cheapest in CPU too (about 2x level 1's throughput, 4.7x level 5's, on a synthetic 30 KB JSON page)
// for output about 7% larger than level 5's. Every JSON body is one write (JSON, c.Data), so
// the only split is gzhttp's: the first CompressMinSize bytes it buffered to decide, then the
// rest. Issue 17 bounds the server's resident memory at 100 MiB whatever the clients accept.
//
// Only gzip: gzhttp would otherwise prefer zstd when a client offers both, and the contract
// promises gzip. ETags pass through unchanged on compressed responses (gzhttp's default; no
// SuffixETag or DropETag): folio's ETags name a resource's state and are compared with If-Match
// and If-None-Match by that state, so a "-gzip" suffix (Apache's way) or a weakened W/ tag (nginx's
// way) would make the ETag a gzip-accepting client got fail its next If-Match (a strong
// comparison). Strictly, RFC 9110 wants a strong validator to change with the content coding; the
// one thing that breaks is byte ranges across codings, and folio serves no ranges. Caches keep
// the two codings apart by Vary: Accept-Encoding.
func Compress(h http.Handler) (http.Handler, error) {
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(CompressMinSize), gzhttp.EnableZstd(false), gzhttp.CompressionLevel(gzip.StatelessCompression))
	if err != nil {
		return nil, err
	}
	gz := wrap(h)
	// A request that does not accept any coding (no Accept-Encoding) or a HEAD is never
	// compressed: for those gzhttp only adds Vary and serves h through a writer that strips its
	// No-Gzip-Compression header, which folio never sets. They are served here without that writer
	// and gzhttp's checks, with the same Vary, so a request that does not ask for gzip pays for
	// none of it.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead && r.Header.Get("Accept-Encoding") != "" {
			gz(w, r)
			return
		}
		w.Header().Add("Vary", "Accept-Encoding")
		h.ServeHTTP(w, r)
	}), nil
}
