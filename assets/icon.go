package assets

import _ "embed" // the icon below is embedded with go:embed

//go:embed icon.png
var icon []byte

// Icon returns Galla's 512×512 PNG icon (a cash box with a coin). The slice is
// shared: callers must not modify it.
func Icon() []byte { return icon }
