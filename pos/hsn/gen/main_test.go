package main

import (
	"strings"
	"testing"

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
