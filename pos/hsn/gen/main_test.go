package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"galla/pos/hsn"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const head = "section,hscode,description,parent,level\n"

// TestRead keeps the HS's codes, sorted, and leaves out UN Comtrade's own.
func TestRead(t *testing.T) {
	rows, err := read(strings.NewReader(head +
		"I,01,Animals; live,TOTAL,2\n" +
		"I,0101,\"Horses, asses, mules and hinnies; live\",01,4\n" +
		"I,010130,Asses; live,0101,6\n" +
		"I,010121,\"Horses; live, pure-bred breeding animals\",0101,6\n" +
		"TOTAL,99,Commodities not specified according to kind,TOTAL,2\n" +
		"TOTAL,9999,Commodities not specified according to kind,99,4\n" +
		"TOTAL,TOTAL,Total of all HS2022 commodities,TOTAL,5\n"))
	require.NoError(t, err)
	assert.Equal(t, []row{
		{"01", "Animals; live"},
		{"0101", "Horses, asses, mules and hinnies; live"},
		{"010121", "Horses; live, pure-bred breeding animals"},
		{"010130", "Asses; live"},
	}, rows)
}

// TestReadRefuses a file whose rows do not nest or whose layout changed.
func TestReadRefuses(t *testing.T) {
	for name, csv := range map[string]string{
		"header":         "section,code,description,parent,level\nI,01,Animals,TOTAL,2\n",
		"parent missing": head + "I,0101,Horses,01,4\n",
		"parent wrong":   head + "I,01,Animals,TOTAL,2\nI,02,Meat,TOTAL,2\nI,0101,Horses,02,4\n",
		"level":          head + "I,01,Animals,TOTAL,2\nI,0101,Horses,01,6\n",
		"not digits":     head + "I,0A,Animals,TOTAL,2\n",
		"eight digits":   head + "I,01,Animals,TOTAL,2\nI,0101,Horses,01,4\nI,010121,Horses,0101,6\nI,01012100,Horses,010121,8\n",
		"twice":          head + "I,01,Animals,TOTAL,2\nI,01,Animals,TOTAL,2\n",
		"no description": head + "I,01,,TOTAL,2\n",
		"tab":            head + "I,01,\"Animals;\tlive\",TOTAL,2\n",
	} {
		_, err := read(strings.NewReader(csv))
		assert.Error(t, err, name)
	}
}

// TestReadTariff keeps the 8-digit codes under the HS's subheadings, gives
// a code its dropped leading zero back, makes a description one line, keeps
// the first of two rows of a code and names the items of a subheading the
// HS edition lacks.
func TestReadTariff(t *testing.T) {
	hs := []row{{"01", "Animals; live"}, {"0101", "Horses"}, {"010121", "Horses; pure-bred"}, {"010129", "Horses; other"}, {"85", "Electrical machinery"}, {"8517", "Telephone sets"}, {"851713", "Smartphones"}}
	items, left, err := readTariff(strings.NewReader("HSN_CD,HSN_Description\n"+
		"1,LIVE ANIMALS\n"+ // a chapter: the HS's
		"101,LIVE HORSES\n"+
		"10121,HORSES\n"+
		"1012100,\"LIVE HORSES :\nPURE-BRED   BREEDING ANIMALS\"\n"+
		"85171300,SMARTPHONES\n"+
		"85171300,SMARTPHONES AGAIN\n"+
		"85171211,PUSH BUTTON TYPE\n"+ // HS 2017's subheading 851712
		"1012910,HORSES FOR POLO\n"), hs)
	require.NoError(t, err)
	assert.Equal(t, []row{
		{"01012100", "LIVE HORSES : PURE-BRED BREEDING ANIMALS"},
		{"01012910", "HORSES FOR POLO"},
		{"85171300", "SMARTPHONES"},
	}, items)
	assert.Equal(t, []string{"85171211"}, left)

	for name, csv := range map[string]string{
		"not digits":     "HSN_CD,HSN_Description\n8517.13.00,SMARTPHONES\n",
		"no description": "HSN_CD,HSN_Description\n85171300,\n",
		"one column":     "HSN_CD\n85171300\n",
		"no tariff item": "HSN_CD,HSN_Description\n8517,TELEPHONE SETS\n",
		"empty":          "",
	} {
		_, _, err := readTariff(strings.NewReader(csv), hs)
		assert.Error(t, err, name)
	}
}

// TestRunTariff writes a master the package reads, naming both sources, with
// the tariff items beside the HS's codes in order.
func TestRunTariff(t *testing.T) {
	dir := t.TempDir()
	in, tariff, out := filepath.Join(dir, "hs.csv"), filepath.Join(dir, "tariff.csv"), filepath.Join(dir, "m.tsv.gz")
	require.NoError(t, os.WriteFile(in, []byte(head+"I,85,Electrical machinery,TOTAL,2\nI,8517,Telephone sets,85,4\nI,851713,Smartphones,8517,6\nI,851714,Other telephones,8517,6\n"), 0o644))
	require.NoError(t, os.WriteFile(tariff, []byte("HSN_CD,HSN_Description\n85171300,SMARTPHONES\n85171400,OTHER TELEPHONES\n"), 0o644))
	require.NoError(t, run(in, out, "hs@c1 data.csv", "HS 2022", tariffList{tariff, "tariff@c2 list.csv", "CC0 1.0"}))
	gz, err := os.ReadFile(out)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	require.NoError(t, err)
	raw, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, "# HS 2022, hs@c1 data.csv, ODC PDDL 1.0: 4 codes\n"+
		"# India's tariff items, tariff@c2 list.csv, CC0 1.0: 2 codes\n"+
		"85\tElectrical machinery\n8517\tTelephone sets\n851713\tSmartphones\n85171300\tSMARTPHONES\n851714\tOther telephones\n85171400\tOTHER TELEPHONES\n", string(raw))
	m, err := hsn.Read(string(raw))
	require.NoError(t, err)
	assert.Equal(t, []string{"85171300"}, m.TariffItems("851713"))
}
