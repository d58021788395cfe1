package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// installCopies runs the pi-rpc binaries under test (-pi-rpc and -base) from copies in the
// bench's directory, written as an install writes them, rather than from where the build left
// them. A binary that the Go linker has just written (through a memory mapping) sits in the
// page cache in a way that makes every page fault of a process map more of it: on the 2-core
// test machine an idle pi-rpc straight from `go build` had 32-37 MB resident, its copy (or the
// same file read back from disk) 26-27 MB. Users run an installed binary (npm writes it, or it
// is read from disk), so that is what is measured, and both builds are measured alike.
func installCopies(cfg *config) error {
	dir := filepath.Join(cfg.root, "installed")
	for i, p := range []*string{&cfg.piRPC, &cfg.base} {
		if *p == "" {
			continue
		}
		dst := filepath.Join(dir, fmt.Sprint(i), filepath.Base(*p))
		if err := copyExecutable(*p, dst); err != nil {
			return fmt.Errorf("copying %s for the bench: %w", *p, err)
		}
		*p = dst
	}
	return nil
}

// copyExecutable writes a copy of the file src at dst (its directories made), executable.
func copyExecutable(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
