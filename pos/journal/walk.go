package journal

import (
	"encoding/binary"
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
)

// bbolt's page flags and element sizes (internal/common/page.go).
const (
	pageFlagBranch   = 0x01
	pageFlagLeaf     = 0x02
	leafFlagBucket   = 0x01
	elementSize      = 16
	inBucketSize     = 16
	maxTreeDepth     = 64
	errWalkPageRange = "page %d is outside the file's %d pages"
)

// walkTree reads the page tree of the snapshot tx sees from the file itself
// (ReadAt, not bbolt's memory map) and checks what bbolt would follow blindly:
// every page id below the high-water mark, every page's header naming it, its
// overflow inside the file, element offsets inside the page, page types, inline
// buckets, no page reached twice (no cycle). bbolt's own check (Tx.Check) runs in
// a goroutine of its own and reads pages through the map, where a page id past
// the end of the file is a fault no recover can catch; after walkTree it only
// meets pages that are there. The pages reachable from tx's root are not
// rewritten while tx is open (bbolt copies on write), so the walk is consistent
// beside appends.
//
// With edge set, a branch page leads the walk only to its last child: the walk
// reads each bucket's root and its right edge, the pages the next Append
// rewrites (the log's keys only grow, and a new order sorts last), a few pages
// per bucket whatever the size of the file. That is what start-up checks; the
// whole tree is walked by VerifyFile.
func walkTree(tx *bolt.Tx, edge bool) error {
	f, err := os.Open(tx.DB().Path())
	if err != nil {
		return err
	}
	defer f.Close()
	ps := uint64(tx.DB().Info().PageSize)
	w := &walker{f: f, pageSize: ps, hw: uint64(tx.Size()) / ps, seen: map[uint64]bool{}, edge: edge}
	return w.tree(uint64(tx.Cursor().Bucket().Root()), 0)
}

// walker is one walk of walkTree.
type walker struct {
	f        *os.File
	pageSize uint64
	hw       uint64 // the high-water page id: pages below it are in the file
	seen     map[uint64]bool
	edge     bool // follow only the last child of a branch page
}

var le = binary.LittleEndian

// page reads page id with its overflow pages.
func (w *walker) page(id uint64) ([]byte, error) {
	if id < 2 || id >= w.hw {
		return nil, fmt.Errorf(errWalkPageRange, id, w.hw)
	}
	if w.seen[id] {
		return nil, fmt.Errorf("page %d is reached twice", id)
	}
	// The page itself in one read (it is below the high-water mark, so in
	// the file), its overflow pages in a second once its header says how
	// many.
	buf := make([]byte, w.pageSize)
	if _, err := w.f.ReadAt(buf, int64(id*w.pageSize)); err != nil {
		return nil, fmt.Errorf("page %d cannot be read: %w", id, err)
	}
	if got := le.Uint64(buf); got != id {
		return nil, fmt.Errorf("page %d holds the header of page %d", id, got)
	}
	over := uint64(le.Uint32(buf[12:]))
	if id+over >= w.hw {
		return nil, fmt.Errorf("page %d runs %d pages past the file's %d", id, over, w.hw)
	}
	if over > 0 {
		whole := make([]byte, (over+1)*w.pageSize)
		copy(whole, buf)
		if _, err := w.f.ReadAt(whole[w.pageSize:], int64((id+1)*w.pageSize)); err != nil {
			return nil, fmt.Errorf("page %d cannot be read: %w", id, err)
		}
		buf = whole
	}
	for i := id; i <= id+over; i++ {
		w.seen[i] = true
	}
	return buf, nil
}

// tree walks the tree whose root is page id.
func (w *walker) tree(id uint64, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("page %d is deeper than any journal's tree", id)
	}
	p, err := w.page(id)
	if err != nil {
		return err
	}
	return w.node(p, id, depth)
}

// node checks page p (id 0 for an inline bucket's page) and walks its children.
func (w *walker) node(p []byte, id uint64, depth int) error {
	if len(p) < pageHeaderSize {
		return fmt.Errorf("page %d is shorter than a page header", id)
	}
	flags, count := le.Uint16(p[8:]), uint64(le.Uint16(p[10:]))
	if pageHeaderSize+count*elementSize > uint64(len(p)) {
		return fmt.Errorf("page %d claims %d elements, more than it holds", id, count)
	}
	for i := uint64(0); i < count; i++ {
		at := pageHeaderSize + i*elementSize
		el := p[at : at+elementSize]
		switch {
		case flags == pageFlagBranch && id != 0:
			pos, ksize, child := uint64(le.Uint32(el)), uint64(le.Uint32(el[4:])), le.Uint64(el[8:])
			if at+pos+ksize > uint64(len(p)) {
				return fmt.Errorf("page %d: element %d lies outside the page", id, i)
			}
			if w.edge && i != count-1 {
				continue
			}
			if err := w.tree(child, depth+1); err != nil {
				return err
			}
		case flags == pageFlagLeaf:
			fl, pos := le.Uint32(el), uint64(le.Uint32(el[4:]))
			ksize, vsize := uint64(le.Uint32(el[8:])), uint64(le.Uint32(el[12:]))
			end := at + pos + ksize + vsize
			if end > uint64(len(p)) {
				return fmt.Errorf("page %d: element %d lies outside the page", id, i)
			}
			if fl&leafFlagBucket == 0 {
				continue
			}
			v := p[at+pos+ksize : end]
			if len(v) < inBucketSize {
				return fmt.Errorf("page %d: bucket %d has no header", id, i)
			}
			if root := le.Uint64(v); root != 0 {
				if err := w.tree(root, depth+1); err != nil {
					return err
				}
			} else if err := w.node(v[inBucketSize:], 0, depth+1); err != nil {
				return err
			}
		default:
			return fmt.Errorf("page %d has the type %#x where a branch or leaf belongs", id, flags)
		}
	}
	if flags != pageFlagBranch && flags != pageFlagLeaf {
		return fmt.Errorf("page %d has the type %#x where a branch or leaf belongs", id, flags)
	}
	return nil
}
