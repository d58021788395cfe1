//go:build !windows

package session

// renameError is the error of the rename that replaces path: on Unix a rename replaces a file
// that others hold open, so it is what the system said.
func renameError(err error, path string) error { return err }
