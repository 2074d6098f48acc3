package gateway

import "testing"

// BenchmarkDecodeLenientInquiry decodes the inquiry answer a card checkout reads
// to learn its outcome (docs/benchmarks.md, "Card checkout").
func BenchmarkDecodeLenientInquiry(b *testing.B) {
	data := []byte(sampleInquiry)
	for b.Loop() {
		var q Inquiry
		if err := decodeLenient(data, &q); err != nil {
			b.Fatal(err)
		}
	}
}
