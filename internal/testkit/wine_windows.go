package testkit

import (
	"sync"
	"testing"

	"golang.org/x/sys/windows"
)

// UnderWine reports whether the test runs under Wine rather than on Windows: Wine's ntdll.dll
// exports wine_get_version, Windows' does not. make test-windows runs the Windows test
// binaries under Wine (docs/testing.md, "Windows under Wine").
var UnderWine = sync.OnceValue(func() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
})

// SkipUnderWine skips the test under Wine, which lacks what it needs; why says what (it is
// part of the skip message).
func SkipUnderWine(t testing.TB, why string) {
	t.Helper()
	if UnderWine() {
		t.Skip("skipped under Wine: " + why)
	}
}
