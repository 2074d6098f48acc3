package receipts

import (
	"bytes"
	"image"
	"image/png"
	"io"
	"testing"
	"time"
)

// The budgets of DESIGN.md section 7: a receipt PNG with its QR code under 5 ms,
// ESC/POS under 0.2 ms. Each has a floor measured in the same run: for the PNG,
// encoding a blank image of the same size with image/png; for ESC/POS, writing the
// same number of bytes to a bytes.Buffer. docs/benchmarks.md has the figures.

// BenchmarkPNG draws and encodes the receipt PNG and, in turn with it, encodes
// the floor (a blank image of the same size with image/png). ns/op covers both;
// png-ns is the receipt's own time, x-floor the ratio to the floor and x-budget
// the fraction of the 5 ms budget.
func BenchmarkPNG(b *testing.B) {
	rd, err := NewRenderer()
	if err != nil {
		b.Fatal(err)
	}
	r := emiSale()
	img, err := rd.Image(r, 80)
	if err != nil {
		b.Fatal(err)
	}
	blank := image.NewGray(img.Bounds())
	var pngT, floorT time.Duration
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if err := rd.PNG(io.Discard, r, 80); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := png.Encode(io.Discard, blank); err != nil {
			b.Fatal(err)
		}
		floorT += time.Since(t1)
		pngT += t1.Sub(t0)
		n++
	}
	b.ReportMetric(float64(pngT.Nanoseconds())/float64(n), "png-ns")
	b.ReportMetric(float64(pngT)/float64(floorT), "x-floor")
	b.ReportMetric(float64(pngT)/float64(n)/float64(5*time.Millisecond), "x-budget")
}

func BenchmarkPNGFloor(b *testing.B) {
	rd, err := NewRenderer()
	if err != nil {
		b.Fatal(err)
	}
	img, err := rd.Image(emiSale(), 80)
	if err != nil {
		b.Fatal(err)
	}
	blank := image.NewGray(img.Bounds())
	b.ReportAllocs()
	for b.Loop() {
		if err := png.Encode(io.Discard, blank); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkESCPOS(b *testing.B) {
	r := emiSale()
	p := Profile{Width: 80, QRMode: QRNative, DrawerPulse: true}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := ESCPOS(&buf, r, p); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(200*time.Microsecond), "x-budget")
}

func BenchmarkESCPOSRaster(b *testing.B) {
	r := emiSale()
	p := Profile{Width: 80, QRMode: QRRaster}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := ESCPOS(&buf, r, p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkESCPOSFloor(b *testing.B) {
	var out bytes.Buffer
	if err := ESCPOS(&out, emiSale(), Profile{Width: 80, QRMode: QRNative, DrawerPulse: true}); err != nil {
		b.Fatal(err)
	}
	data := out.Bytes()
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		buf.Write(data)
	}
	b.SetBytes(int64(len(data)))
}

func BenchmarkText(b *testing.B) {
	r := emiSale()
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := Text(&buf, r, 48); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewRenderer(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewRenderer(); err != nil {
			b.Fatal(err)
		}
	}
}
