package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unicode/utf8"
)

// writeFileAtomic replaces path (a real path: no symlink in it) with data through a temp
// file in the same directory and a rename, so a reader never sees half a file and an
// abandoned write leaves the old content. ctx is checked just before the rename: once the
// rename starts the write is complete. An existing file keeps its permission bits.
//
// Only a regular file is ever replaced: path is checked again just before the rename, and a
// new file is put in place with a hard link, which fails rather than replace whatever
// appeared there meanwhile (a symlink, a FIFO), so the rename can never turn a link into a
// regular file. File systems without hard links fall back to check-then-rename.
func writeFileAtomic(ctx context.Context, path string, data []byte) error {
	perm := fs.FileMode(0o644)
	existed := false
	st, err := os.Lstat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return &specialFileError{path: path, kind: kindOf(st.Mode())}
	case err == nil:
		perm, existed = st.Mode().Perm(), true
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+tempStem(filepath.Base(path))+".pi-rpc-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() { _ = os.Remove(tmp) }() // after a rename there is nothing left to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return errAborted
	}
	if !existed {
		if err := os.Link(tmp, path); err == nil {
			return nil
		}
		// EEXIST: something appeared there meanwhile, judged below. Any other error: the file
		// system has no hard links (vfat, some FUSE mounts); a real problem fails the rename too.
	}
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return &specialFileError{path: path, kind: kindOf(st.Mode())}
	}
	return os.Rename(tmp, path)
}

// tempStem shortens a file name for its temp file's name, so a name near the 255-byte limit
// still gets a temp file beside it.
func tempStem(base string) string {
	const max = 64
	if len(base) <= max {
		return base
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(base[cut]) {
		cut--
	}
	return base[:cut]
}

// mkdirAllTracked creates dir and its missing parents like os.MkdirAll, returning the
// directories it created, shallowest first, so a write that fails afterwards can remove
// them ([removeCreated]) and leave the tree as it was.
func mkdirAllTracked(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Lstat(d)
		if err == nil {
			if !st.IsDir() {
				return nil, &fs.PathError{Op: "mkdir", Path: d, Err: syscall.ENOTDIR}
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil {
			if st, serr := os.Lstat(missing[i]); errors.Is(err, fs.ErrExist) && serr == nil && st.IsDir() {
				continue // made by someone else meanwhile: not ours to remove
			}
			removeCreated(created)
			return nil, err
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// removeCreated removes directories made by [mkdirAllTracked], deepest first. os.Remove
// removes only empty directories, so anything another writer put there meanwhile stays.
func removeCreated(created []string) {
	for i := len(created) - 1; i >= 0; i-- {
		_ = os.Remove(created[i])
	}
}
