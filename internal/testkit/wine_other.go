//go:build !windows

package testkit

import "testing"

// UnderWine reports whether the test runs under Wine; never, off Windows.
func UnderWine() bool { return false }

// SkipUnderWine skips the test under Wine (see the Windows build); off Windows it does nothing.
func SkipUnderWine(t testing.TB, why string) { t.Helper() }
