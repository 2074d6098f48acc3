#!/usr/bin/env bash
# Wraps the Windows build of Galla in its installer with NSIS and checks the result:
#   scripts/package-windows.sh GALLA_EXE VERSION BUILD OUTDIR
# GALLA_EXE is scripts/package-windows-exe.sh's Galla.exe (mingw-w64 on Debian,
# or the native toolchain on a Windows runner). The installer must pack that
# Galla.exe alone and be a PE file made by NSIS whose version resource carries
# VERSION. make wine-test then runs it under Wine (scripts/wine-test.sh).
set -euo pipefail
exe=$1 version=$2 build=$3 out=$4
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# makensis runs in the script's directory; paths are given absolute.
cp "$exe" "$work/Galla.exe"
# packaging/windows/galla.ico is assets/icon.png in the Windows sizes, made with
# ImageMagick: convert assets/icon.png -define icon:auto-resize=256,64,48,32,16 packaging/windows/galla.ico
cp "$here/packaging/windows/galla.ico" "$work/galla.ico"
setup=$out/Galla-$version-windows-amd64-setup.exe
makensis -V4 -DVERSION="$version" -DBUILD="$build" -DEXE="$work/Galla.exe" -DICON="$work/galla.ico" \
	-DOUTFILE="$setup" "$here/packaging/windows/galla.nsi" >"$work/makensis.log" 2>&1 ||
	{ cat "$work/makensis.log"; echo "package-windows: makensis failed"; exit 1; }
grep -i 'warning' "$work/makensis.log" || true
# The installer carries Galla.exe and nothing else (its uninstaller is written
# at install time): never the bcryptprimitives.dll stand-in that the test under
# Wine builds (packaging/windows/wine-shim), nor any DLL.
packed=$(grep '^File: ' "$work/makensis.log" || true)
[ "$packed" = "$(printf 'File: "Galla.exe"->"Galla.exe" %s bytes' "$(stat -c %s "$work/Galla.exe")")" ] ||
	{ echo "package-windows: the installer must pack Galla.exe alone; makensis packed:"; echo "$packed"; exit 1; }

bash "$here/scripts/package-windows-check.sh" "$setup" "$version"
echo "$setup"
