package imports

import (
	"fmt"
	"strconv"

	"folio/platform/apierr"
	"folio/platform/httpx"
)

// The imports module's errors: every refusal of an archive is 400 VALIDATION_ERROR naming the
// body and what is wrong with it (CONTRACT.md section 24), and nothing is written.
var (
	errContentType = apierr.Validation("the body must be a ZIP archive sent with Content-Type: application/zip")
	errNotZip      = apierr.Validation("body: not a ZIP archive")
	errTooLarge    = apierr.Validation("body: the ZIP is over the %s limit", httpx.SizeText(MaxBytes))
	// errCreateByKey: without notebookId an import makes notebooks, which a notebook-scoped key
	// cannot (as POST /notebooks).
	errCreateByKey = apierr.ErrInsufficient.WithMessage("a notebook-scoped key cannot create notebooks: import into its notebook with query parameter \"notebookId\"")
)

func errTooManyEntries(n int) error {
	return apierr.Validation("body: the ZIP has %d entries, over the limit of %d", n, MaxEntries)
}

func errRatio(compressed, uncompressed uint64) error {
	return apierr.Validation("body: the ZIP expands from %d to %d bytes, over %d times its size", compressed, uncompressed, MaxRatio)
}

// errEntry refuses the archive for one of its entries.
func errEntry(name, why string) error {
	return apierr.Validation("%s", fmt.Sprintf("body: the ZIP's entry %s %s; nothing was imported", strconv.Quote(name), why))
}
