// Package ui holds Galla's Fyne screens. It talks only to pos; no business rule lives
// here.
package ui
