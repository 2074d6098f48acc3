// Package assets embeds Galla's icon, fonts and sample catalog. It imports nothing of
// Galla's and no fyne.
package assets
