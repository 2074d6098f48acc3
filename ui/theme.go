package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Text sizes meant to be read from a metre away.
const (
	sizeTotal  float32 = 44 // the sale's total
	sizeResult float32 = 56 // PAID, FAILED, UNKNOWN
	sizeBig    float32 = 26 // headings and secondary totals
)

// counterTheme is Fyne's default theme, a little larger, with the variant chosen by
// the shop (light or dark) rather than by the desktop.
type counterTheme struct {
	dark bool
}

var _ fyne.Theme = (*counterTheme)(nil)

func (t *counterTheme) variant() fyne.ThemeVariant {
	if t.dark {
		return theme.VariantDark
	}
	return theme.VariantLight
}

// Color returns the default theme's colour for the shop's variant, whatever the
// desktop's.
func (t *counterTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return theme.DefaultTheme().Color(n, t.variant())
}

// Font returns the default theme's font.
func (t *counterTheme) Font(s fyne.TextStyle) fyne.Resource { return theme.DefaultTheme().Font(s) }

// Icon returns the default theme's icon.
func (t *counterTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }

// Size enlarges text and hit targets for a counter screen.
func (t *counterTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNameText:
		return 16
	case theme.SizeNameHeadingText:
		return 26
	case theme.SizeNameSubHeadingText:
		return 20
	case theme.SizeNameInputBorder:
		return 2
	}
	return theme.DefaultTheme().Size(n)
}

// Colours of the payment result, the same in both variants.
var (
	colPaid    = color.NRGBA{R: 0x1b, G: 0x8a, B: 0x3a, A: 0xff}
	colFailed  = color.NRGBA{R: 0xc6, G: 0x28, B: 0x28, A: 0xff}
	colWarn    = color.NRGBA{R: 0xe6, G: 0x7e, B: 0x00, A: 0xff}
	colSandbox = color.NRGBA{R: 0xe6, G: 0x7e, B: 0x00, A: 0xff}
	colLive    = color.NRGBA{R: 0x1b, G: 0x8a, B: 0x3a, A: 0xff}
)
