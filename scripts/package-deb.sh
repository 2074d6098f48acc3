#!/usr/bin/env bash
# Builds the Debian package of Galla with Debian's own dpkg-deb:
#   scripts/package-deb.sh BINARY VERSION BUILD OUTDIR
# BINARY is the Linux build (go build, stamped by make); VERSION and BUILD come
# from FyneApp.toml. The package installs /usr/bin/galla, the desktop entry, the
# icon in the hicolor sizes and the copyright note; it declares the libraries the
# binary loads (linked: objdump's NEEDED; loaded at run time by GLFW: X11 and
# its extensions) and the C library version its symbols need. It never touches
# a user's data directory: nothing in it runs at install or removal.
set -euo pipefail
bin=$1 version=$2 build=$3 out=$4
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/galla
here=$(cd "$(dirname "$0")/.." && pwd)

install -D -m 0755 "$bin" "$root/usr/bin/galla"
install -D -m 0644 "$here/packaging/linux/galla.desktop" "$root/usr/share/applications/galla.desktop"
for size in 48 64 128 256 512; do
	dir=$root/usr/share/icons/hicolor/${size}x${size}/apps
	mkdir -p "$dir"
	if [ "$size" = 512 ]; then
		install -m 0644 "$here/assets/icon.png" "$dir/galla.png"
	else
		convert "$here/assets/icon.png" -resize "${size}x${size}" "$dir/galla.png"
		chmod 0644 "$dir/galla.png"
	fi
done
install -D -m 0644 "$here/packaging/linux/copyright" "$root/usr/share/doc/galla/copyright"

# The C library: the newest GLIBC_x.y symbol version the binary asks for.
glibc=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
# Linked libraries (NEEDED) must be known to this table, so that a new one is
# not left out of Depends silently.
declare -A pkg_of=(
	[libc.so.6]="libc6 (>= $glibc)" [libm.so.6]="libc6 (>= $glibc)" [libpthread.so.0]="libc6 (>= $glibc)"
	[libdl.so.2]="libc6 (>= $glibc)" [libGL.so.1]=libgl1 [libEGL.so.1]=libegl1
	[libwayland-client.so.0]=libwayland-client0
)
deps=()
for lib in $(objdump -p "$bin" | awk '/NEEDED/ {print $2}'); do
	p=${pkg_of[$lib]:-}
	if [ -z "$p" ]; then echo "package-deb: $bin needs $lib, which has no package in scripts/package-deb.sh" >&2; exit 1; fi
	deps+=("$p")
done
# Loaded with dlopen by GLFW on X11 (the counter's usual session) and Wayland.
deps+=(libx11-6 libx11-xcb1 libxcursor1 libxext6 libxi6 libxinerama1 libxrandr2 libxrender1 libxxf86vm1 libxkbcommon0 libegl1)
depends=$(printf '%s\n' "${deps[@]}" | sort -u | paste -sd, - | sed 's/,/, /g')
size=$(du -sk "$root/usr" | cut -f1)

mkdir -p "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: galla
Version: $version-$build
Architecture: $arch
Maintainer: Galla <support@galla.in>
Installed-Size: $size
Depends: $depends
Recommends: libwayland-cursor0, libwayland-egl1, gnome-keyring
Section: misc
Priority: optional
Homepage: https://galla.in
Description: point-of-sale terminal for Indian retail counters
 Galla takes card, EMI and cash sales through the payment service, prints
 GST receipts and keeps every step in a hash-chained journal. Each user's
 data (the journal, its backups and the configuration) lives in
 ~/.local/share/galla and is never touched by installing, upgrading or
 removing the package.
CONTROL
mkdir -p "$out"
deb=$out/galla_${version}-${build}_${arch}.deb
dpkg-deb --root-owner-group -Zgzip --build "$root" "$deb" >/dev/null
echo "$deb"
