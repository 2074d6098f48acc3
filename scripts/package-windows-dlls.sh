#!/usr/bin/env bash
# Checks that Galla.exe needs no DLL a counter PC does not have: only Windows'
# own (the C runtime msvcrt, OpenGL and the system libraries). A mingw-w64 one
# such as libssp-0.dll or libwinpthread-1.dll would make Galla fail to start
# on a Windows without mingw-w64 ("libssp-0.dll was not found"); the Makefile
# links them statically (-extldflags=-static).
#   scripts/package-windows-dlls.sh GALLA_EXE
set -euo pipefail
exe=$1
objdump=$(command -v x86_64-w64-mingw32-objdump || command -v objdump)
dlls=$("$objdump" -p "$exe" | awk '/DLL Name:/ {print $3}' | sort -u)
[ -n "$dlls" ] || { echo "package-windows: $exe lists no DLL: not a Windows build?"; exit 1; }
bad=$(grep -viE '^(kernel32|user32|gdi32|shell32|opengl32|msvcrt|advapi32|ole32|oleaut32|ws2_32|winmm|comdlg32|imm32|dwmapi|shcore|crypt32|bcrypt|ntdll|secur32|version|uxtheme|setupapi|dinput8|xinput1_[0-9]+|winspool\.drv|userenv|iphlpapi|netapi32|mswsock|powrprof|api-ms-win-[a-z0-9-]+)(\.dll)?$' <<<"$dlls" || true)
if [ -n "$bad" ]; then
	echo "package-windows: $exe needs DLLs a Windows PC does not have:" $bad
	exit 1
fi
echo "package-windows: $exe needs only Windows' own DLLs:" $dlls
