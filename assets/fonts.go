package assets

import _ "embed" // the fonts below are embedded with go:embed

// The receipt font: DejaVu Sans Mono 2.37 (regular and bold) from Debian's
// fonts-dejavu-core, under the Bitstream Vera licence with DejaVu's changes in the
// public domain (fonts/LICENSE-DejaVu.txt). It has the rupee sign U+20B9.
var (
	//go:embed fonts/DejaVuSansMono.ttf
	monoRegular []byte
	//go:embed fonts/DejaVuSansMono-Bold.ttf
	monoBold []byte
	//go:embed fonts/LICENSE-DejaVu.txt
	fontLicence string
)

// MonoRegular returns the TrueType bytes of DejaVu Sans Mono. The slice is shared:
// callers must not modify it.
func MonoRegular() []byte { return monoRegular }

// MonoBold returns the TrueType bytes of DejaVu Sans Mono Bold. The slice is shared:
// callers must not modify it.
func MonoBold() []byte { return monoBold }

// FontLicence returns the licence text of the embedded DejaVu fonts.
func FontLicence() string { return fontLicence }
