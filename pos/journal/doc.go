// Package journal is Galla's bbolt journal, the only package that imports bbolt. It
// implements the journal interface that package pos declares.
package journal
