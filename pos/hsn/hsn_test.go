package hsn

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBuiltin: the built-in master lists each code once, of 4 or 6 digits,
// under a heading it lists, with a description of 1 to 30 characters (what
// GSTR-1's desc takes, so none is cut).
func TestBuiltin(t *testing.T) {
	m := Builtin()
	require.Equal(t, len(builtinCodes), m.Len(), "a code listed twice")
	for _, c := range builtinCodes {
		code, desc := c[0], c[1]
		require.NoError(t, checkCode(code))
		assert.Contains(t, []int{4, 6}, len(code), "code %s", code)
		n := utf8.RuneCountInString(desc)
		assert.True(t, n >= 1 && n <= 30, "code %s: description %q of %d characters", code, desc, n)
		_, ok := m.Description(code[:4])
		assert.True(t, ok, "code %s: no heading %s", code, code[:4])
	}
	d, ok := m.Description("851713")
	assert.True(t, ok)
	assert.Equal(t, "Smartphones", d)
	for _, code := range []string{"", "85", "8599", "85171300", "999999"} {
		_, ok := m.Description(code)
		assert.False(t, ok, "Description(%q) found", code)
	}
}

// TestRead reads a master of every level, and what Write wrote, and refuses
// one that is not code, tab, description, a code of another length, or a
// code whose heading is missing.
func TestRead(t *testing.T) {
	m, err := Read("# a master\n01\tAnimals; live\n0101\tHorses\n010121\tHorses; pure-bred\n01012100\tPure-bred breeding horses\n010129\tHorses; other\n01012990\tOther horses\n01012910\tHorses for polo\n")
	require.NoError(t, err)
	assert.Equal(t, 7, m.Len())
	d, ok := m.Description("01012910")
	assert.True(t, ok)
	assert.Equal(t, "Horses for polo", d)
	assert.Equal(t, []string{"01012100"}, m.TariffItems("010121"))
	assert.Equal(t, []string{"01012910", "01012990"}, m.TariffItems("010129"), "sorted")
	assert.Empty(t, m.TariffItems("0101"))
	assert.Empty(t, m.TariffItems("010130"))

	var b strings.Builder
	require.NoError(t, m.Write(&b))
	again, err := Read(b.String())
	require.NoError(t, err)
	assert.Equal(t, m, again, "Read(Write(m))")
	assert.True(t, strings.HasPrefix(b.String(), "# HSN master: 7 codes\n01\tAnimals; live\n0101\tHorses\n"), b.String())

	for name, text := range map[string]string{
		"no tab":     "01 Animals\n",
		"no text":    "01\t\n",
		"odd length": "010\tAnimals\n",
		"ten digits": "0101210000\tHorses\n",
		"letters":    "0A\tAnimals\n",
		"no heading": "01\tAnimals\n010121\tHorses; pure-bred\n",
		"empty":      "# nothing\n",
	} {
		_, err := Read(text)
		assert.Error(t, err, name)
	}
}

// TestReadPortalCSV reads the GST portal's HSN directory saved as CSV: its
// header row skipped, leading zeros a spreadsheet dropped restored, white
// space made one space, the first of two rows of a code kept; and refuses a
// file that is not CSV, has no code, a code that is not digits, or rows that
// do not nest.
func TestReadPortalCSV(t *testing.T) {
	m, err := ReadPortalCSV(strings.NewReader("\ufeffHSN_CD,HSN_Description\n" +
		"1,LIVE ANIMALS\n101,\"LIVE HORSES, ASSES,\n MULES\"\n1011010,PURE-BRED  HORSES\n" +
		"85,ELECTRICAL MACHINERY\n8517,TELEPHONE SETS\n851713,SMARTPHONES\n85171300,SMARTPHONES\n85171300,a second row\n\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"01", "0101", "01011010", "85", "8517", "851713", "85171300"}, m.Codes())
	d, _ := m.Description("0101")
	assert.Equal(t, "LIVE HORSES, ASSES, MULES", d)
	d, _ = m.Description("01011010")
	assert.Equal(t, "PURE-BRED HORSES", d)
	d, _ = m.Description("85171300")
	assert.Equal(t, "SMARTPHONES", d, "the first row of a code")
	assert.Equal(t, []string{"01011010"}, m.TariffItems("010110"), "an item whose subheading the list leaves out")

	m, err = ReadPortalCSV(strings.NewReader("8517,Telephone sets\n"))
	require.NoError(t, err, "no header row")
	assert.Equal(t, 1, m.Len())

	for name, text := range map[string]string{
		"not CSV":      "HSN_CD,HSN_Description\n8517,\"Telephone \"sets\n",
		"no code":      "HSN_CD,HSN_Description\n",
		"empty":        "",
		"one column":   "HSN_CD\n8517\n",
		"letters":      "HSN_CD,HSN_Description\n85A7,Telephone sets\n",
		"ten digits":   "HSN_CD,HSN_Description\n8517130000,Telephone sets\n",
		"no text":      "HSN_CD,HSN_Description\n8517,  \n",
		"do not nest":  "HSN_CD,HSN_Description\n85,Electrical\n85171300,Smartphones\n",
		"a JSON file":  "{\"items\": [\"8517\"]}\n",
		"binary bytes": "\x1f\x8b\x08\x00\x00\x00\x00\x00\n",
	} {
		_, err := ReadPortalCSV(strings.NewReader(text))
		assert.Error(t, err, name)
	}
}
