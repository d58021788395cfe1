package tools

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
)

// walkEntry is one file or directory found by [walker].
type walkEntry struct {
	rel   string // slash path relative to the walk root
	abs   string
	isDir bool
	// regular is true for regular files (grep searches only those; symlinks are not followed).
	regular bool
}

// dirFuture is a directory being read in the background.
type dirFuture struct {
	done     chan struct{}
	entries  []walkEntry
	children []*dirFuture // parallel to entries; nil for non-directories
}

// walker lists a tree with parallel directory reads but yields entries in one deterministic
// order (depth first, names sorted bytewise), so output and limits do not depend on
// scheduling. Directory reads run ahead of the consumer, bounded by a semaphore, and stop
// when ctx is cancelled, which is how a walk ends early at a result limit.
type walker struct {
	ctx context.Context
	sem chan struct{}
}

func newWalker(ctx context.Context) *walker {
	return &walker{ctx: ctx, sem: make(chan struct{}, max(4, runtime.GOMAXPROCS(0)*2))}
}

// start begins reading dir (absolute) whose path relative to the root is rel ("" for root).
func (w *walker) start(dir, rel string, stack *ignoreStack) *dirFuture {
	f := &dirFuture{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		select {
		case w.sem <- struct{}{}:
		case <-w.ctx.Done():
			return
		}
		ents, err := readDirSorted(dir)
		var ign []byte
		if err == nil {
			for _, e := range ents {
				if e.Name() == ".gitignore" && e.Type().IsRegular() {
					ign, _ = readRegularFile(filepath.Join(dir, ".gitignore"))
					break
				}
			}
		}
		<-w.sem
		if err != nil {
			return
		}
		if ign != nil {
			stack = stack.push(parseIgnore(dir, ign))
		}
		slashDir := filepath.ToSlash(dir)
		for _, e := range ents {
			name := e.Name()
			isDir := e.IsDir()
			if isDir && name == ".git" {
				continue
			}
			abs := dir + string(filepath.Separator) + name
			if stack != nil && stack.ignored(slashDir+"/"+name, isDir) {
				continue
			}
			r := name
			if rel != "" {
				r = rel + "/" + name
			}
			f.entries = append(f.entries, walkEntry{rel: r, abs: abs, isDir: isDir, regular: e.Type().IsRegular()})
			var child *dirFuture
			if isDir && w.ctx.Err() == nil {
				child = w.start(abs, r, stack)
			}
			f.children = append(f.children, child)
		}
	}()
	return f
}

// walk visits the tree under f in order until visit returns false or ctx ends; it reports
// whether it ran to the end.
func (w *walker) walk(f *dirFuture, visit func(walkEntry) bool) bool {
	select {
	case <-f.done:
	case <-w.ctx.Done():
		return false
	}
	for i, e := range f.entries {
		if !visit(e) {
			return false
		}
		if c := f.children[i]; c != nil {
			if !w.walk(c, visit) {
				return false
			}
		}
	}
	return w.ctx.Err() == nil
}

// walkTree walks root (an existing directory) with .gitignore files applied, calling visit
// for every entry in order; visit returns false to stop. Background reads are cancelled and
// finished before it returns.
func walkTree(ctx context.Context, root string, visit func(walkEntry) bool) {
	ctx, cancel := context.WithCancel(ctx)
	w := newWalker(ctx)
	rootF := w.start(filepath.Clean(root), "", parentIgnores(root))
	w.walk(rootF, visit)
	cancel()
	waitAll(rootF)
}

// waitAll waits for every started read under f, so no goroutine outlives the walk.
func waitAll(f *dirFuture) {
	<-f.done
	for _, c := range f.children {
		if c != nil {
			waitAll(c)
		}
	}
}

// toSlashRel is rel with OS separators replaced, for output.
func toSlashRel(p string) string { return strings.ReplaceAll(p, string(filepath.Separator), "/") }
