package session

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
)

// renameError is the error of the rename that replaces path. Windows refuses to replace a
// file that another program has open without sharing its deletion (most programs, and Go's
// os.Open, open files that way), so that refusal is said in words: close it there and retry.
func renameError(err error, path string) error {
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION) {
		return fmt.Errorf("cannot replace %s: another program has it open, and Windows does not let an open file be replaced; close it there and try again (%w)", path, err)
	}
	return err
}
