package assets

import _ "embed"

//go:embed catalog.json
var catalogJSON string

// SampleCatalog returns the sample catalog of an Indian electronics store as the JSON
// array that pos.LoadCatalogJSON reads: phones whose product codes carry the brand
// EMI offers of the sandbox (IMEI per unit), TVs and appliances, accessories and a few
// items at 0%, 5% and 12% GST. Each call returns a fresh copy.
func SampleCatalog() []byte { return []byte(catalogJSON) }
