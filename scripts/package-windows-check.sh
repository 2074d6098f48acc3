#!/usr/bin/env bash
# Checks a Windows installer of Galla without running it:
#   scripts/package-windows-check.sh SETUP_EXE VERSION
# It must be a 64-bit PE file (file(1)), made by NSIS, and carry VERSION in its version
# resource (the UTF-16 strings ProductVersion and FileVersion = VERSION).
set -euo pipefail
setup=$1 version=$2
what=$(file -b "$setup")
case "$what" in
PE32+*x86-64*) ;;
*) echo "package-windows: $setup is not a PE file: $what"; exit 1 ;;
esac
# NSIS's header after the stub ("NullsoftInst"; file(1) names only 32-bit ones).
grep -qa NullsoftInst "$setup" || { echo "package-windows: $setup is not an NSIS installer: $what"; exit 1; }
res=$(strings -el "$setup")
grep -qx 'ProductVersion' <<<"$res" || { echo "package-windows: $setup has no version resource"; exit 1; }
# The string after the key is its value.
pv=$(grep -A1 -x 'ProductVersion' <<<"$res" | sed -n 2p)
[ "$pv" = "$version" ] || { echo "package-windows: $setup carries ProductVersion \"$pv\", not $version"; exit 1; }
echo "package-windows: $setup: $what, ProductVersion $pv"
