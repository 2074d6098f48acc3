package irp_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/irp"
	"galla/gateway/irp/sandbox"
)

// openOn is a client of a sandbox kept in the file at path, a fresh one each
// call as a new run of the program opens it.
func openOn(t *testing.T, path string, clk *clock) (*irp.Client, *sandbox.Sandbox) {
	t.Helper()
	sb, err := sandbox.Open(path, clk.Now)
	require.NoError(t, err)
	c, err := irp.New("https://irp.sandbox.invalid", sandbox.Credentials(sellerGSTIN),
		irp.WithHTTPClient(&http.Client{Transport: sb.Transport()}), irp.WithPublicKey(sb.PublicKey()), irp.WithEncryptionKey(sb.EncryptionKey()), irp.WithClock(clk.Now))
	require.NoError(t, err)
	return c, sb
}

// TestSandboxStateOutlivesTheProcess: an IRN registered by one sandbox on a
// state file is known to a fresh sandbox on the same file: a second generate
// is a duplicate, the document is found by its details, its IRN is cancelled
// there, and a third sandbox sees it cancelled. The acknowledgement numbers go
// on from the last one kept.
func TestSandboxStateOutlivesTheProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "irp-sandbox.json")
	clk := &clock{t: saleDay}
	inv := mustBuild(t, invoiceDoc())

	first, _ := openOn(t, path, clk)
	reg, err := first.Generate(t.Context(), inv)
	require.NoError(t, err)

	second, sb := openOn(t, path, clk)
	assert.Equal(t, 1, sb.Registered())
	_, err = second.Generate(t.Context(), inv)
	require.ErrorIs(t, err, irp.ErrDuplicate, "the next run's sandbox knows the document")
	got, err := second.GetByDocument(t.Context(), "INV", inv.DocDtls.No, saleDay)
	require.NoError(t, err)
	assert.Equal(t, reg, got)
	note, err := second.Generate(t.Context(), mustBuild(t, creditNoteDoc()))
	require.NoError(t, err)
	assert.NotEqual(t, reg.AckNo, note.AckNo, "a new acknowledgement number, not the first one's again")
	clk.Add(time.Hour)
	_, err = second.Cancel(t.Context(), reg.Irn, irp.CancelOrder, "sale voided")
	require.NoError(t, err)

	third, sb := openOn(t, path, clk)
	assert.Equal(t, 2, sb.Registered())
	got, err = third.GetByDocument(t.Context(), "INV", inv.DocDtls.No, saleDay)
	require.NoError(t, err)
	assert.Equal(t, "CNL", got.Status)
	_, err = third.Cancel(t.Context(), reg.Irn, irp.CancelOrder, "again")
	assert.ErrorIs(t, err, irp.ErrCancelled)

	// The 24 hours run from the acknowledgement kept in the file.
	clk.Add(24 * time.Hour)
	_, err = third.Cancel(t.Context(), note.Irn, irp.CancelOrder, "late")
	assert.ErrorIs(t, err, irp.ErrCancelWindow)

	// A sandbox without a file keeps nothing.
	mem := sandbox.New(clk.Now)
	assert.Equal(t, 0, mem.Registered())
}

// TestSandboxDamagedStateFile: a state file that is not a snapshot stops Open
// with a sentence naming it, and is left as it was.
func TestSandboxDamagedStateFile(t *testing.T) {
	for name, content := range map[string]string{
		"cut off":       `{"v":1,"ack_no":112610000000001,"docs":[{"gstin":"27AAP`,
		"other version": `{"v":9,"docs":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "irp-sandbox.json")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
			_, err := sandbox.Open(path, nil)
			require.ErrorIs(t, err, sandbox.ErrDamaged)
			assert.Contains(t, err.Error(), path+" cannot be read as the IRP sandbox's registrations")
			assert.Contains(t, err.Error(), "move it away to start an empty sandbox")
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, content, string(after))
		})
	}
}

// TestSandboxStateNotSaved: a registration the sandbox cannot keep in its file
// is undone and refused (5001), so the document is not registered and may be
// sent again.
func TestSandboxStateNotSaved(t *testing.T) {
	// A name the file system takes, but not with the temporary file's
	// prefix and suffix: the snapshot cannot be written beside it.
	name := strings.Repeat("s", 245) + ".json"
	clk := &clock{t: saleDay}
	c, sb := openOn(t, filepath.Join(t.TempDir(), name), clk)
	_, err := c.Generate(t.Context(), mustBuild(t, invoiceDoc()))
	var ie *irp.Error
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "5001", ie.Code)
	assert.Contains(t, ie.Message, "save state")
	assert.Equal(t, 0, sb.Registered())
	_, err = c.GetByDocument(t.Context(), "INV", "T1/2627/000123", saleDay)
	assert.ErrorIs(t, err, irp.ErrNotFound)
}

// TestSandboxesSideBySide: two sandboxes open on one file at once (the window
// and a command beside it) each answer from what the other wrote: a document
// one registered is a duplicate to the other, found by the other, and neither
// drops the other's registrations when it writes.
func TestSandboxesSideBySide(t *testing.T) {
	path := filepath.Join(t.TempDir(), "irp-sandbox.json")
	clk := &clock{t: saleDay}
	window, _ := openOn(t, path, clk)
	command, _ := openOn(t, path, clk)
	inv := mustBuild(t, invoiceDoc())

	reg, err := window.Generate(t.Context(), inv)
	require.NoError(t, err)
	_, err = command.Generate(t.Context(), inv)
	require.ErrorIs(t, err, irp.ErrDuplicate)
	note, err := command.Generate(t.Context(), mustBuild(t, creditNoteDoc()))
	require.NoError(t, err)
	got, err := window.GetByDocument(t.Context(), irp.TypeCreditNote, creditNoteDoc().Number, saleDay)
	require.NoError(t, err)
	assert.Equal(t, note.Irn, got.Irn)
	_, err = window.Cancel(t.Context(), reg.Irn, irp.CancelOrder, "sale voided")
	require.NoError(t, err)

	_, sb := openOn(t, path, clk)
	assert.Equal(t, 2, sb.Registered(), "neither write dropped the other's registration")
	later, _ := openOn(t, path, clk)
	got, err = later.GetByDocument(t.Context(), "INV", inv.DocDtls.No, saleDay)
	require.NoError(t, err)
	assert.Equal(t, "CNL", got.Status)
}

// TestSandboxFileDamagedWhileOpen: a state file damaged under an open sandbox
// refuses its next call (5001) with the sentence, and is left as it is.
func TestSandboxFileDamagedWhileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "irp-sandbox.json")
	clk := &clock{t: saleDay}
	c, _ := openOn(t, path, clk)
	_, err := c.Generate(t.Context(), mustBuild(t, invoiceDoc()))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte("{not json"), 0o600))
	_, err = c.Generate(t.Context(), mustBuild(t, creditNoteDoc()))
	var ie *irp.Error
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "5001", ie.Code)
	assert.Contains(t, ie.Message, "cannot be read as the IRP sandbox's registrations")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "{not json", string(raw))
}
