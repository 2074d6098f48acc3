/*
 * A stand-in for Windows' bcryptprimitives.dll, for running Galla.exe under a
 * Wine that lacks it (Debian 12's Wine 8). Go's runtime (1.22 and later) takes
 * its random bytes from ProcessPrng, which Windows 10 and later export from
 * bcryptprimitives.dll; without it Galla.exe stops before main. This one
 * answers ProcessPrng with advapi32's RtlGenRandom (SystemFunction036), which
 * every Wine has.
 *
 * It is built by scripts/wine-run-test.sh with mingw-w64 and copied into the
 * throwaway Wine prefix of that test only: the installer never carries it (a
 * real Windows has its own), and packaging/windows/galla.nsi is checked for that.
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
