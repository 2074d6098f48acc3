package receipts

import (
	"bytes"
	"errors"
	"image/png"
	"strings"
	"testing"

	"galla/assets"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/image/font/sfnt"
)

func TestAmount(t *testing.T) {
	tests := []struct {
		paise int64
		want  string
	}{
		{0, "0.00"},
		{5, "0.05"},
		{99999, "999.99"},
		{100000, "1,000.00"},
		{7499900, "74,999.00"},
		{12345678, "1,23,456.78"},
		{1234567800, "1,23,45,678.00"},
		{-12345678, "-1,23,456.78"},
		{9223372036854775807, "92,23,37,20,36,85,47,758.07"},
		{-9223372036854775808, "-92,23,37,20,36,85,47,758.08"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Amount(tt.paise), "Amount(%d)", tt.paise)
	}
	assert.Equal(t, "₹74,999.00", Money(7499900, "₹"))
	assert.Equal(t, "-Rs.1.00", Money(-100, "Rs."))
}

func TestWords(t *testing.T) {
	tests := []struct {
		paise int64
		want  string
	}{
		{7499900, "Rupees Seventy-Four Thousand Nine Hundred Ninety-Nine Only"},
		{0, "Rupees Zero Only"},
		{50, "Rupees Fifty Paise Only"},
		{100, "Rupees One Only"},
		{1105, "Rupees Eleven and Five Paise Only"},
		{10000000, "Rupees One Lakh Only"},
		{1234567850, "Rupees One Crore Twenty-Three Lakh Forty-Five Thousand Six Hundred Seventy-Eight and Fifty Paise Only"},
		{100000000000, "Rupees One Hundred Crore Only"},
		{10000000000000, "Rupees Ten Thousand Crore Only"},
		{100000000000000, "Rupees One Lakh Crore Only"},
		{-2000, "Minus Rupees Twenty Only"},
		{9000000, "Rupees Ninety Thousand Only"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Words(tt.paise), "Words(%d)", tt.paise)
	}
}

func TestQRRoundTrip(t *testing.T) {
	tests := []QRPayload{
		{MerchantOrderID: "GAL-1", ServiceOrderID: "152300", PaymentID: "152300_1", Amount: 7499900},
		{MerchantOrderID: "a|b%c", ServiceOrderID: "", PaymentID: "%7C", Amount: -1},
	}
	for _, p := range tests {
		text := SignQR(testKey, p)
		assert.True(t, strings.HasPrefix(text, "GALLA1|"), "SignQR = %q", text)
		got, err := ParseQR(testKey, text)
		require.NoError(t, err)
		assert.Equal(t, p, got)
		got, err = VerifyQR(testKey, " "+text+"\n")
		require.NoError(t, err)
		assert.Equal(t, p, got)
	}
}

func TestQRForged(t *testing.T) {
	good := SignQR(testKey, QRPayload{MerchantOrderID: "GAL-1", ServiceOrderID: "152300", PaymentID: "152300_1", Amount: 7499900})
	i := strings.LastIndexByte(good, '|')
	tests := map[string]struct {
		key  []byte
		text string
	}{
		"amount changed":   {testKey, strings.Replace(good, "|7499900|", "|100|", 1)},
		"order changed":    {testKey, strings.Replace(good, "GAL-1", "GAL-2", 1)},
		"another key":      {[]byte("another terminal"), good},
		"no signature":     {testKey, good[:i]},
		"empty signature":  {testKey, good[:i+1]},
		"signature cut":    {testKey, good[:len(good)-1]},
		"garbage":          {testKey, "hello"},
		"empty":            {testKey, ""},
		"other version":    {testKey, resign("GALLA2|GAL-1|1|1|100")},
		"too few fields":   {testKey, resign("GALLA1|GAL-1|1|100")},
		"amount not a num": {testKey, resign("GALLA1|GAL-1|1|1|1e5")},
		"bad escape":       {testKey, resign("GALLA1|GAL%zz|1|1|100")},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := ParseQR(tt.key, tt.text)
			assert.ErrorIs(t, err, ErrForgedQR)
		})
	}
}

// resign signs an arbitrary body with testKey, to test what ParseQR makes of a
// correctly signed text in a wrong shape.
func resign(body string) string { return body + "|" + qrSig(testKey, body) }

func FuzzParseQR(f *testing.F) {
	f.Add(SignQR(testKey, QRPayload{MerchantOrderID: "GAL-1", ServiceOrderID: "1", PaymentID: "1_1", Amount: 100}))
	f.Add("GALLA1|a|b|c|1|sig")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ParseQR(testKey, text)
		if err != nil {
			require.ErrorIs(t, err, ErrForgedQR)
			return
		}
		again, err := ParseQR(testKey, SignQR(testKey, p))
		require.NoError(t, err)
		require.Equal(t, p, again)
	})
}

func TestESCPOSNativeQRBytes(t *testing.T) {
	r := Receipt{Kind: KindSale, QR: "GALLA1|A|B|C|1|xyz"}
	var b bytes.Buffer
	require.NoError(t, ESCPOS(&b, r, Profile{Width: 48}))
	// Written out by hand from the GS ( k specification (Epson ESC/POS, QR Code).
	want := []byte{
		0x1d, 0x28, 0x6b, 0x04, 0x00, 0x31, 0x41, 0x32, 0x00, // fn 165: model 2
		0x1d, 0x28, 0x6b, 0x03, 0x00, 0x31, 0x43, 0x06, // fn 167: module 6 dots
		0x1d, 0x28, 0x6b, 0x03, 0x00, 0x31, 0x45, 0x31, // fn 169: error correction M
		0x1d, 0x28, 0x6b, 0x15, 0x00, 0x31, 0x50, 0x30, // fn 180: store 18+3 bytes
		'G', 'A', 'L', 'L', 'A', '1', '|', 'A', '|', 'B', '|', 'C', '|', '1', '|', 'x', 'y', 'z',
		0x1d, 0x28, 0x6b, 0x03, 0x00, 0x31, 0x51, 0x30, // fn 181: print
	}
	out := b.Bytes()
	assert.True(t, bytes.HasPrefix(out, []byte{0x1b, 0x40, 0x1b, 0x74, 0x00}), "starts with ESC @ and ESC t 0: % x", out[:5])
	i := bytes.Index(out, want)
	require.GreaterOrEqual(t, i, 0, "the QR commands are in the output: % x", out)
	assert.Equal(t, []byte{0x1b, 0x61, 0x01}, out[i-3:i], "the QR code is centred (ESC a 1)")
	assert.True(t, bytes.HasSuffix(out, []byte{0x1d, 0x56, 0x42, 0x00}), "ends with GS V 66 0 (no drawer pulse asked)")
}

func TestESCPOSLongQRLength(t *testing.T) {
	text := strings.Repeat("x", 300)
	b, err := appendQR(nil, text, QRNative)
	require.NoError(t, err)
	store := []byte{0x1d, 0x28, 0x6b, 0x2f, 0x01, 0x31, 0x50, 0x30} // 303 = 0x012f: pL 0x2f, pH 0x01
	assert.True(t, bytes.Contains(b, store), "pL pH of a 303-byte store command")
}

func TestESCPOSCommands(t *testing.T) {
	tests := []struct {
		name string
		p    Profile
		r    Receipt
		has  [][]byte
		not  [][]byte
	}{
		{
			name: "drawer pulse and code page",
			p:    Profile{Width: 80, CodePage: 19, DrawerPulse: true},
			r:    Receipt{Kind: KindSale, Total: 100},
			has:  [][]byte{{0x1b, 0x74, 19}, {0x1d, 0x56, 0x42, 0x00, 0x1b, 0x70, 0x00, 0x19, 0xfa}},
		},
		{
			name: "double size bold total",
			p:    Profile{Width: 48},
			r:    Receipt{Kind: KindSale, Total: 7499900},
			has:  [][]byte{append([]byte{0x1b, 0x45, 0x01, 0x1d, 0x21, 0x11}, "TOTAL"...), []byte("Rs.74,999.00"), {0x1d, 0x21, 0x00}},
		},
		{
			name: "rupee byte of the code page",
			p:    Profile{Width: 48, HasRupee: true, RupeeByte: 0xd5},
			r:    Receipt{Kind: KindSale, Total: 7499900},
			has:  [][]byte{{0xd5, '7', '4', ','}},
			not:  [][]byte{[]byte("Rs."), []byte("₹")},
		},
		{
			name: "control characters cannot inject commands",
			p:    Profile{Width: 48},
			r:    Receipt{Kind: KindSale, Lines: []Line{{Name: "Evil\x1bp\x00\x19\xfa\x1dV\x00 café — “x” • 5×", Qty: 1}}},
			has:  [][]byte{[]byte("Evilp?V cafe - \"x\" * 5x")},
			not:  [][]byte{{0x1b, 'p'}, {0x1d, 'V', 0x00}},
		},
		{
			name: "raster QR",
			p:    Profile{Width: 58, QRMode: QRRaster},
			r:    Receipt{Kind: KindSale, QR: "GALLA1|A|B|C|1|xyz"},
			// version 2: 25 modules and a quiet zone of 4 a side, 33 × 6 = 198 dots:
			// 25 bytes a row, 198 rows
			has: [][]byte{{0x1d, 0x76, 0x30, 0x00, 25, 0x00, 198, 0x00}},
			not: [][]byte{{0x1d, 0x28, 0x6b}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, ESCPOS(&b, tt.r, tt.p))
			for _, h := range tt.has {
				assert.True(t, bytes.Contains(b.Bytes(), h), "output has % x", h)
			}
			for _, n := range tt.not {
				assert.False(t, bytes.Contains(b.Bytes(), n), "output has no % x", n)
			}
		})
	}
}

func TestNeverMoreThanLastFour(t *testing.T) {
	r := cardSale()
	r.Tenders[0].CardLast4 = "4111111111111111" // a caller's mistake must not print a card number
	var b bytes.Buffer
	require.NoError(t, Text(&b, r, 48))
	assert.NotContains(t, b.String(), "411111")
	assert.Contains(t, b.String(), "VISA •••• 1111")
}

func TestESCPOSRasterSize(t *testing.T) {
	b, err := appendQRRaster(nil, "GALLA1|A|B|C|1|xyz")
	require.NoError(t, err)
	require.Greater(t, len(b), 8)
	head := b[:8]
	rowBytes := int(head[4]) | int(head[5])<<8
	rows := int(head[6]) | int(head[7])<<8
	assert.Equal(t, []byte{0x1d, 0x76, 0x30, 0x00}, head[:4])
	assert.Equal(t, rowBytes*rows, len(b)-8, "GS v 0 is followed by exactly xL..yH's worth of raster data")
	assert.Equal(t, 0, rows%qrModule)
}

func TestBadWidth(t *testing.T) {
	var b bytes.Buffer
	assert.Error(t, Text(&b, cardSale(), 40))
	assert.Error(t, ESCPOS(&b, cardSale(), Profile{Width: 0}))
	rd, err := NewRenderer()
	require.NoError(t, err)
	assert.Error(t, rd.PNG(&b, cardSale(), 48))
}

func TestPNGQRDecodes(t *testing.T) {
	rd, err := NewRenderer()
	require.NoError(t, err)
	for _, mm := range []int{58, 80} {
		r := emiSale()
		var b bytes.Buffer
		require.NoError(t, rd.PNG(&b, r, mm))
		img, err := png.Decode(&b)
		require.NoError(t, err)
		bmp, err := gozxing.NewBinaryBitmapFromImage(img)
		require.NoError(t, err)
		res, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
		require.NoError(t, err, "the QR code on the %d mm PNG decodes", mm)
		assert.Equal(t, r.QR, res.GetText())
		p, err := ParseQR(testKey, res.GetText())
		require.NoError(t, err)
		assert.Equal(t, int64(7499900), p.Amount)
		assert.Equal(t, "15230000012346_1", p.PaymentID)
	}
}

func TestPNGHasRupee(t *testing.T) {
	rd, err := NewRenderer()
	require.NoError(t, err)
	for _, data := range [][]byte{assets.MonoRegular(), assets.MonoBold()} {
		f, err := sfnt.Parse(data)
		require.NoError(t, err)
		gi, err := f.GlyphIndex(&sfnt.Buffer{}, '₹')
		require.NoError(t, err)
		assert.NotZero(t, gi, "the embedded font has a glyph for ₹")
	}
	g, ok := rd.sets[0][0].glyphs['₹']
	require.True(t, ok)
	assert.NotEmpty(t, g.pix, "₹ is drawn in advance")
}

func TestImageConcurrent(t *testing.T) {
	rd, err := NewRenderer()
	require.NoError(t, err)
	r := emiSale()
	r.Lines[0].Name = "Ωmega phone ✓ Ünïcödé" // runes outside the atlas
	want, err := rd.Image(r, 80)
	require.NoError(t, err)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			got, err := rd.Image(r, 80)
			if err == nil && !samePixels(want, got) {
				err = errors.New("different picture")
			}
			errs <- err
		}()
	}
	for range 4 {
		assert.NoError(t, <-errs)
	}
}

func TestInstalments(t *testing.T) {
	tests := []struct {
		plan EMIPlan
		want string
	}{
		{EMIPlan{TenureMonths: 6, Monthly: 1301518, LastMonthly: 1301518}, "6 instalments of 13,015.18"},
		{EMIPlan{TenureMonths: 6, Monthly: 1249983, LastMonthly: 1249985}, "5 of 12,499.83 and a last of 12,499.85"},
		{EMIPlan{TenureMonths: 3, Monthly: 1000000}, "3 instalments of 10,000.00"},
		{EMIPlan{TenureMonths: 1, Monthly: 1000000, LastMonthly: 1000000}, "1 instalment of 10,000.00"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, instalments(tt.plan), "instalments(%+v)", tt.plan)
	}
}

// A credit note whose lines and tax add up to a paisa less than it gives back
// prints that paisa as its round-off, as the invoice does: on the thermal note
// (its value, then the round-off, before the credit) and on its A4 page.
func TestCreditNoteRoundOff(t *testing.T) {
	r := creditNote()
	r.Total++
	r.RoundOff = 1
	var b bytes.Buffer
	require.NoError(t, Text(&b, r, 42))
	text := b.String()
	assert.Contains(t, text, "\nCredit note value                 1,000.00\nRound off                            +0.01\n")
	assert.Less(t, strings.Index(text, "Round off"), strings.LastIndex(text, "CREDIT"), "before the credit's total")
	assert.Contains(t, text, "₹1,000.01")
	page := PageText(r)
	assert.Regexp(t, `Round off +\+0\.01\n`, page)
	assert.Less(t, strings.Index(page, "Round off"), strings.LastIndex(page, "CREDIT"), "before the credit's total")

	r.Total--
	r.RoundOff = 0
	b.Reset()
	require.NoError(t, Text(&b, r, 42))
	assert.NotContains(t, b.String(), "Round off")
	assert.NotContains(t, PageText(r), "Round off")
}
