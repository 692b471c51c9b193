package httpx

import (
	"net/http"

	"github.com/klauspost/compress/gzhttp"
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
// Only gzip: gzhttp would otherwise prefer zstd when a client offers both, and the contract
// promises gzip. ETags pass through unchanged on compressed responses (gzhttp's default; no
// SuffixETag or DropETag): folio's ETags name a resource's state and are compared with If-Match
// and If-None-Match by that state, so a "-gzip" suffix (Apache's way) or a weakened W/ tag (nginx's
// way) would make the ETag a gzip-accepting client got fail its next If-Match (a strong
// comparison). Strictly, RFC 9110 wants a strong validator to change with the content coding; the
// one thing that breaks is byte ranges across codings, and folio serves no ranges. Caches keep
// the two codings apart by Vary: Accept-Encoding.
func Compress(h http.Handler) (http.Handler, error) {
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(CompressMinSize), gzhttp.EnableZstd(false))
	if err != nil {
		return nil, err
	}
	return wrap(h), nil
}
