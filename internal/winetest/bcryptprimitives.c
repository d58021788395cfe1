/*
 * Test-only stand-in for Windows' bcryptprimitives.dll, for make test-windows under Wine 8.0
 * (see docs/testing.md, "Windows under Wine"). Go 1.26's runtime takes its random bytes from
 * bcryptprimitives.dll's ProcessPrng, which Wine 8.0 does not have, so every Go program dies
 * at start-up there. This DLL exports ProcessPrng on top of RtlGenRandom (advapi32's
 * SystemFunction036), which Wine has. It goes into the test prefix's system32 only: the
 * shipped pi-rpc.exe is unchanged, and on Windows (8 and later) the real DLL is used.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
    return TRUE;
}
