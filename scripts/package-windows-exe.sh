#!/usr/bin/env bash
# Builds Galla.exe for 64-bit Windows with its icon, version resource and manifest:
#   scripts/package-windows-exe.sh VERSION BUILD OUT_EXE [go build flags...]
# fyne package -os windows is not used: it builds the program a second time after
# adding the resources, without the -ldflags given to it, which loses the
# version stamp and the static link of mingw-w64's libssp (without it Galla.exe
# does not start on a Windows without mingw-w64: "libssp-0.dll was not found").
# The resources are made here the way fyne does, with goversioninfo (the module
# fyne's tool uses, pinned by go.mod).
set -euo pipefail
version=$1 build=$2 out=$3
shift 3
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
work=$(mktemp -d)
syso=$here/zz_galla_windows_amd64.syso
trap 'rm -rf "$work" "$syso"' EXIT
IFS=. read -r major minor patch <<<"$version"
sed "s/@VERSION@/$version.$build/" packaging/windows/galla.exe.manifest.in >"$work/galla.exe.manifest"
GOOS= GOARCH= CGO_ENABLED=0 go run github.com/josephspurrier/goversioninfo/cmd/goversioninfo -64 \
	-icon packaging/windows/galla.ico -manifest "$work/galla.exe.manifest" \
	-product-version "$version" -file-version "$version" \
	-ver-major "$major" -ver-minor "$minor" -ver-patch "$patch" -ver-build "$build" \
	-product-ver-major "$major" -product-ver-minor "$minor" -product-ver-patch "$patch" -product-ver-build "$build" \
	-o "$syso" packaging/windows/versioninfo.json
mkdir -p "$(dirname "$out")"
GOOS=windows GOARCH=amd64 CGO_ENABLED=1 go build "$@" -o "$out" .
bash scripts/package-windows-dlls.sh "$out"
