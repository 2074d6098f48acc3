package hsn

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDescription: codes of the master at each level, with the text of
// data/harmonized-system.csv (datasets/harmonized-system) copied by hand.
func TestDescription(t *testing.T) {
	for _, tt := range []struct{ code, want string }{
		{"85", "Electrical machinery and equipment and parts thereof; sound recorders and reproducers; television image and sound recorders and reproducers, parts and accessories of such articles"},
		{"97", "Works of art; collectors' pieces and antiques"},
		{"0101", "Horses, asses, mules and hinnies; live"},
		{"010121", "Horses; live, pure-bred breeding animals"},
		{"851713", "Telephone sets; smartphones for cellular or other wireless networks"},
		{"854442", "Insulated electric conductors; for a voltage not exceeding 1000 volts, fitted with connectors"},
		{"847130", "Automatic data processing machines; portable, weighing not more than 10kg, consisting of at least a central processing unit, a keyboard and a display"},
		{"3926", "Articles of plastics and articles of other materials of heading no. 3901 to 3914, n.e.c. in chapter 39"},
		// HS 2022's new headings: flat panel display modules, e-waste.
		{"8524", "Flat panel display modules, whether or not incorporating touch-sensitive screens"},
		{"8549", "Electrical and electronic waste and scrap"},
	} {
		got, ok := Description(tt.code)
		assert.True(t, ok, "Description(%q) not found", tt.code)
		assert.Equal(t, tt.want, got, "Description(%q)", tt.code)
	}
	for _, code := range []string{
		"", "0", "00", "77", "98", "99", // no such chapter (77 unused, 98 and 99 are India's, not the HS's)
		"8599", "0000", "9999", // no such heading
		"851712", // HS 2017's smartphones, split into 851713 and 851714 in HS 2022
		"851799", "999999",
		"85171300", // 8-digit tariff items are not in the HS
	} {
		_, ok := Description(code)
		assert.False(t, ok, "Description(%q) found", code)
	}
}

// TestMaster: the embedded master names its edition, holds HS 2022's 96
// chapters, 1228 headings and 5612 subheadings, each under a code of the
// level above, sorted.
func TestMaster(t *testing.T) {
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	require.NoError(t, err)
	raw, err := io.ReadAll(zr)
	require.NoError(t, err)
	first, _, _ := strings.Cut(string(raw), "\n")
	assert.True(t, strings.HasPrefix(first, "# "+Edition+", datasets/harmonized-system@"), "first line %q", first)

	m := master()
	count := map[int]int{}
	prev := ""
	for line := range strings.Lines(string(raw)) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		code, _, _ := strings.Cut(line, "\t")
		assert.Less(t, prev, code, "order")
		prev = code
		count[len(code)]++
		if len(code) > 2 {
			_, ok := m[code[:len(code)-2]]
			assert.True(t, ok, "%s has no parent %s", code, code[:len(code)-2])
		}
	}
	assert.Equal(t, map[int]int{2: 96, 4: 1228, 6: 5612}, count)
	assert.Len(t, m, 96+1228+5612)
	for ch := 1; ch <= 97; ch++ {
		code := string([]byte{byte('0' + ch/10), byte('0' + ch%10)})
		_, ok := m[code]
		assert.Equal(t, ch != 77, ok, "chapter %s", code)
	}
}

// TestParse refuses a master that is not code, tab, description.
func TestParse(t *testing.T) {
	pack := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write([]byte(s))
		require.NoError(t, zw.Close())
		return b.Bytes()
	}
	m, err := parse(pack("# source\n01\tAnimals; live\n0101\tHorses\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"01": "Animals; live", "0101": "Horses"}, m)
	_, err = parse(pack("01 Animals\n"))
	assert.Error(t, err)
	_, err = parse([]byte("not gzip"))
	assert.Error(t, err)
}

func BenchmarkFirstLookup(b *testing.B) {
	for b.Loop() {
		if _, err := parse(packed); err != nil {
			b.Fatal(err)
		}
	}
}
