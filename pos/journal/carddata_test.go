package journal

import (
	"bytes"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// cardLeaks lists what in data looks like the test card's number (with or
// without separators) or a CVV field.
func cardLeaks(data []byte) []string {
	patterns := []*regexp.Regexp{
		regexp.MustCompile(`4111[ -]?1111[ -]?1111[ -]?1111`),
		regexp.MustCompile(`(?i)(cvv|cvc|card_?security_?code)\\?"?\s*[:=]\s*\\?"?\d{3,4}`),
		regexp.MustCompile(`(?i)(card_?number|pan)\\?"?\s*[:=]\s*\\?"?\d{12,19}`),
	}
	var found []string
	for _, p := range patterns {
		for _, m := range p.FindAll(data, -1) {
			found = append(found, string(m))
		}
	}
	return found
}

// readable is what a file's bytes say: the bytes as they are, followed by the
// inflated JSON of every event found in them (the bodies of format 2 are
// compressed), found as Salvage finds them, on free pages too.
func readable(t *testing.T, raw []byte) []byte {
	t.Helper()
	var rec sealer
	out := bytes.Clone(raw)
	for _, r := range scanRecords(raw, &rec) {
		js, err := r.json()
		require.NoError(t, err)
		out = append(out, js...)
	}
	return out
}

// TestNoCardDataOnDisk runs a representative day through a journal, backs it up,
// and scans the raw bytes of both files for the test card's number and a CVV.
func TestNoCardDataOnDisk(t *testing.T) {
	// The scan must be able to see card data stored through the journal: a
	// journal made to hold it (in a free-text note, as a careless caller might)
	// is caught.
	t.Run("the scan finds a leak", func(t *testing.T) {
		j := openTest(t)
		var s script
		ev := s.intent("G-LEAK", "2026-11-21", pos.TenderCard, 100)
		ev.Extra = map[string]string{"note": `card_number=` + testCardNumber + ` "cvv":"` + testCardCVV + `"`}
		appendAll(t, j, []pos.Event{ev})
		require.NoError(t, j.Close())
		raw, err := os.ReadFile(j.Path())
		require.NoError(t, err)
		assert.Len(t, cardLeaks(readable(t, raw)), 3, "the planted number and CVV")
	})

	j := openTest(t)
	var s script
	appendAll(t, j, s.representative(t))
	appendAll(t, j, s.unknownSale("G-0099", "2026-11-22", 4999))
	require.NoError(t, j.Log.Rebuild(t.Context()))
	var backup bytes.Buffer
	require.NoError(t, j.Archive.Backup(&backup))
	require.NoError(t, j.Close())

	raw, err := os.ReadFile(j.Path())
	require.NoError(t, err)
	text := readable(t, raw)
	require.Contains(t, string(text), `"kind":"payment.attempt","order_id":"G-0099","day":"2026-11-22","attempt":{"n":1,"card_brand":"VISA","card_last4":"`+testCardLast4+`"`, "the scan reads the stored events")
	assert.Empty(t, cardLeaks(text), "card data in the journal file")
	assert.Empty(t, cardLeaks(readable(t, backup.Bytes())), "card data in the backup")
}
