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

	m := Embedded()
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
			_, ok := m.Description(code[:len(code)-2])
			assert.True(t, ok, "%s has no parent %s", code, code[:len(code)-2])
		}
	}
	// No list of India's tariff items ships yet (docs/gstr1.md, "HSN
	// master"): no code of 8 digits.
	assert.Equal(t, map[int]int{2: 96, 4: 1228, 6: 5612}, count)
	assert.Equal(t, 96+1228+5612, m.Len())
	for ch := 1; ch <= 97; ch++ {
		code := string([]byte{byte('0' + ch/10), byte('0' + ch%10)})
		_, ok := m.Description(code)
		assert.Equal(t, ch != 77, ok, "chapter %s", code)
	}
}

// TestRead reads a master of every level and refuses one that is not code,
// tab, description, a code of another length, or a tariff item whose
// subheading is missing.
func TestRead(t *testing.T) {
	m, err := Read("# source\n# tariff items\n01\tAnimals; live\n0101\tHorses\n010121\tHorses; pure-bred\n01012100\tPure-bred breeding horses\n010129\tHorses; other\n01012990\tOther horses\n01012910\tHorses for polo\n")
	require.NoError(t, err)
	assert.Equal(t, 7, m.Len())
	d, ok := m.Description("01012910")
	assert.True(t, ok)
	assert.Equal(t, "Horses for polo", d)
	assert.Equal(t, []string{"01012100"}, m.TariffItems("010121"))
	assert.Equal(t, []string{"01012910", "01012990"}, m.TariffItems("010129"), "sorted")
	assert.Empty(t, m.TariffItems("0101"))
	assert.Empty(t, m.TariffItems("010130"))

	for name, text := range map[string]string{
		"no tab":        "01 Animals\n",
		"no text":       "01\t\n",
		"odd length":    "010\tAnimals\n",
		"ten digits":    "0101210000\tHorses\n",
		"letters":       "0A\tAnimals\n",
		"no subheading": "01\tAnimals\n0101\tHorses\n01012100\tPure-bred breeding horses\n",
	} {
		_, err := Read(text)
		assert.Error(t, err, name)
	}
}

func BenchmarkFirstLookup(b *testing.B) {
	for b.Loop() {
		zr, err := gzip.NewReader(bytes.NewReader(packed))
		if err != nil {
			b.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Read(string(raw)); err != nil {
			b.Fatal(err)
		}
	}
}
