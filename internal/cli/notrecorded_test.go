package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"galla/pos"
)

func TestCheckoutExitCodesOfAJournalThatCannotBeWritten(t *testing.T) {
	disk := errors.New("no space left on device")
	notRecorded := fmt.Errorf("pay: %w", &pos.NotRecordedError{OrderID: "G20261122100000-0a1b2c3d", Err: disk})
	assert.Equal(t, exitNotRecorded, checkoutErrorCode(notRecorded), "money may have moved")
	assert.Equal(t, 4, exitNotRecorded)
	assert.Equal(t, "A payment may have been taken for order G20261122100000-0a1b2c3d: do not charge again; free disk space, then run galla reconcile",
		pos.Sentence(notRecorded))
	assert.Equal(t, exitCannotWork, checkoutErrorCode(fmt.Errorf("open: %w: %w", pos.ErrNotJournaled, disk)), "nothing moved")
}
