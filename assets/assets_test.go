package assets

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSampleCatalog(t *testing.T) {
	var items []map[string]any
	require.NoError(t, json.Unmarshal(SampleCatalog(), &items))
	assert.GreaterOrEqual(t, len(items), 35)
	for _, it := range items {
		for _, k := range []string{"sku", "name", "price", "gst_rate", "hsn"} {
			assert.Contains(t, it, k, "item %v", it["sku"])
		}
	}

	a := SampleCatalog()
	a[0] = 'X'
	assert.Equal(t, byte('['), SampleCatalog()[0], "each call returns a fresh copy")
}
