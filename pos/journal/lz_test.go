package journal

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	kflate "github.com/klauspost/compress/flate"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// stdInflate inflates b with the standard library's reader and eventDict.
func stdInflate(t testing.TB, b []byte) []byte {
	t.Helper()
	r := flate.NewReaderDict(bytes.NewReader(b), []byte(eventDict))
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	return out
}

// bodies is the bodies of a busy day's events and of the representative
// script's, as sealPrev compresses them.
func bodies(t testing.TB) [][]byte {
	var s script
	evs := append(s.busyDay("2026-11-21", 200, 1), s.representative(t)...)
	out := make([][]byte, 0, len(evs))
	for _, ev := range evs {
		ev.Seq, ev.PrevHash, ev.Hash = 0, "", ""
		if ev.V == 0 {
			ev.V = pos.EventVersion
		}
		b, err := json.Marshal(ev)
		require.NoError(t, err)
		out = append(out, b)
	}
	return out
}

// Every body the encoder writes inflates with the standard library's reader and
// the dictionary to the body itself: event bodies, and bodies made to reach
// every length and distance code (repeats, text from the dictionary, random
// bytes, every byte value, the longest body it takes).
func TestLZRoundTrip(t *testing.T) {
	e := &lzEncoder{x: eventDictIndex()}
	check := func(src []byte) {
		t.Helper()
		got := stdInflate(t, e.encode(nil, src))
		require.True(t, bytes.Equal(src, got), "body of %d bytes: inflated to %d bytes that differ", len(src), len(got))
	}
	for _, b := range bodies(t) {
		check(b)
	}
	check(nil)
	check([]byte("{"))
	check([]byte(`{"v"`))
	check([]byte(eventDict[:300]))
	check([]byte(eventDict[len(eventDict)-400:]))
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	check(all)
	check(bytes.Repeat([]byte("a"), lzMaxBody))
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := rng.IntN(lzMaxBody + 1)
		src := make([]byte, 0, n)
		for len(src) < n {
			switch rng.IntN(4) {
			case 0: // a piece of the dictionary
				at := rng.IntN(len(eventDict))
				src = append(src, eventDict[at:min(len(eventDict), at+rng.IntN(300))]...)
			case 1: // a repeat of what came before, at any distance
				if len(src) > 0 {
					at := rng.IntN(len(src))
					src = append(src, src[at:min(len(src), at+3+rng.IntN(300))]...)
				}
			case 2: // random bytes
				for range rng.IntN(40) {
					src = append(src, byte(rng.IntN(256)))
				}
			default: // digits
				for range rng.IntN(20) {
					src = append(src, byte('0'+rng.IntN(10)))
				}
			}
		}
		check(src[:n])
	}
}

// The distance codes of RFC 1951 3.2.5, at the edges of each.
func TestLZDistanceCodes(t *testing.T) {
	base := []int{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	for sym, b := range base {
		top := 32768
		if sym+1 < len(base) {
			top = base[sym+1] - 1
		}
		for _, d := range []int{b, top} {
			s, nb, extra := distCode(d)
			require.Equal(t, sym, s, "distance %d", d)
			require.Equal(t, b+extra, d, "distance %d", d)
			require.Less(t, extra, 1<<nb, "distance %d", d)
		}
	}
}

// The bodies the encoder writes are no larger than klauspost's fastest
// DEFLATE wrote them (the compressor before): over a busy day's events and
// the representative script's, at most 2% more in total (88 against 102
// bytes a body when written). The times are logged, not judged.
func TestLZSizeAgainstKlauspost(t *testing.T) {
	bs := bodies(t)
	e := &lzEncoder{x: eventDictIndex()}
	var buf bytes.Buffer
	kw, err := kflate.NewWriterDict(&buf, kflate.BestSpeed, []byte(eventDict))
	require.NoError(t, err)
	var ours, theirs, raw int
	var tOurs, tTheirs time.Duration
	var out []byte
	for range 3 {
		ours, theirs, raw = 0, 0, 0
		for _, b := range bs {
			t0 := time.Now()
			out = e.encode(out[:0], b)
			tOurs += time.Since(t0)
			t0 = time.Now()
			buf.Reset()
			kw.Reset(&buf)
			_, _ = kw.Write(b)
			_ = kw.Close()
			tTheirs += time.Since(t0)
			ours, theirs, raw = ours+len(out), theirs+buf.Len(), raw+len(b)
		}
	}
	n := len(bs)
	t.Logf("%d bodies of %.0f bytes: ours %.1f bytes (%v each), klauspost's %.1f bytes (%v each)", n, float64(raw)/float64(n),
		float64(ours)/float64(n), tOurs/time.Duration(3*n), float64(theirs)/float64(n), tTheirs/time.Duration(3*n))
	require.LessOrEqual(t, float64(ours), 1.02*float64(theirs), "bytes of the bodies compressed")
}

// FuzzLZ: whatever the body, what the encoder writes inflates to it.
func FuzzLZ(f *testing.F) {
	f.Add([]byte(`{"v":1,"time":"2026-11-21T10:00:00+05:30","kind":"order.intent","order_id":"G-1"}`))
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff, 0}, 300))
	e := &lzEncoder{x: eventDictIndex()}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > lzMaxBody {
			src = src[:lzMaxBody]
		}
		require.True(t, bytes.Equal(src, stdInflate(t, e.encode(nil, src))), "the body inflated to other bytes")
	})
}

// The body's table is not cleared between bodies: an entry left by an earlier
// body is told apart by its number, and when the numbers run out the table is
// cleared. Bodies before, at and after that point inflate to themselves.
func TestLZBodyNumbersRunOut(t *testing.T) {
	e := &lzEncoder{x: eventDictIndex()}
	bs := bodies(t)[:40]
	for _, b := range bs[:10] {
		require.True(t, bytes.Equal(b, stdInflate(t, e.encode(nil, b))))
	}
	e.gen = 0xffff - 5
	for i, b := range bs[10:] {
		require.True(t, bytes.Equal(b, stdInflate(t, e.encode(nil, b))), "body %d, number %d", i, e.gen)
	}
	require.Less(t, e.gen, uint32(40), "the numbers began again")
}
