/*
 * A stand-in for Windows' bcryptprimitives.dll, for running Galla.exe under a
 * Wine that lacks it (Debian 12's Wine 8). Go's runtime (1.22 and later) takes
 * its random bytes from ProcessPrng, which Windows 10 and later export from
 * bcryptprimitives.dll; without it Galla.exe stops before main. This one
 * answers ProcessPrng with advapi32's RtlGenRandom (SystemFunction036), which
 * every Wine has.
 *
 * scripts/wine-test.sh (make wine-test) builds it with mingw-w64 and copies
 * it into that test's throwaway Wine prefix only: a real Windows has its own,
 * and the installer never carries it (scripts/package-windows.sh checks that
 * makensis packs Galla.exe alone).
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	/* RtlGenRandom takes a ULONG: a larger request is answered in parts. */
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
