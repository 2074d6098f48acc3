#!/usr/bin/env bash
# Installs the .deb on this machine and uses it as a shop owner would:
#   scripts/deb-test.sh DEB VERSION
# dpkg -i; galla --version answers with VERSION and the default data directory
# under a fresh HOME; the installed binary, started with no flags, draws its
# window under Xvfb and makes its journal in that directory; dpkg -r removes the
# program and leaves the data directory and the journal in place.
set -euo pipefail
deb=$1 version=$2
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
if dpkg-query -W -f='${Status}' galla 2>/dev/null | grep -q 'install ok installed'; then
	echo "deb test: a galla package is installed on this machine already; remove it first (dpkg -r galla)"; exit 1
fi
work=$(mktemp -d)
removed=0
cleanup() {
	[ "$removed" = 1 ] || $SUDO dpkg -r galla >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# dpkg waits for nobody: another apt or dpkg run on the machine holds its lock
# for a while, so the install waits up to two minutes for it.
installed=1
for _ in $(seq 1 60); do
	if $SUDO dpkg -i "$deb" >"$work/dpkg.log" 2>&1; then installed=0; break; fi
	grep -q 'lock' "$work/dpkg.log" || break
	sleep 2
done
if [ "$installed" != 0 ]; then
	# Only missing libraries are tolerated: apt installs what Depends names.
	grep -q 'dependency problems' "$work/dpkg.log" || { cat "$work/dpkg.log"; exit 1; }
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -f -y -qq >/dev/null
fi
dpkg-query -W -f='${Status} ${Version}\n' galla | grep -q "install ok installed $version-" || { echo "deb test: galla $version is not installed"; exit 1; }
[ "$(command -v galla)" = /usr/bin/galla ] || { echo "deb test: galla is not /usr/bin/galla"; exit 1; }
test -f /usr/share/applications/galla.desktop
test -f /usr/share/icons/hicolor/256x256/apps/galla.png

home=$work/home
mkdir -p "$home"
data=$home/.local/share/galla
run() { env -i PATH=/usr/bin:/bin HOME="$home" "$@"; }
out=$(run galla --version)
echo "$out" | sed 's/^/deb test: /'
echo "$out" | head -1 | grep -qx "Galla $version" || { echo "deb test: --version does not say Galla $version"; exit 1; }
echo "$out" | grep -qx "data directory: $data (the default for this system)" || { echo "deb test: --version does not name $data"; exit 1; }

cat >"$work/inner.sh" <<'INNER'
#!/usr/bin/env bash
set -euo pipefail
work=$1 home=$2
env -i PATH=/usr/bin:/bin HOME="$home" DISPLAY="$DISPLAY" XAUTHORITY="${XAUTHORITY:-}" galla >"$work/galla.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
	if xwininfo -root -tree 2>/dev/null | grep -q '"Galla'; then break; fi
	if ! kill -0 $pid 2>/dev/null; then echo "deb test: galla exited early:"; cat "$work/galla.log"; exit 1; fi
	sleep 0.5
done
xwininfo -root -tree | grep -q '"Galla' || { echo "deb test: no Galla window appeared"; cat "$work/galla.log"; exit 1; }
sleep 3
import -window root "$work/shot.png"
colours=$(identify -format '%k' "$work/shot.png")
echo "deb test: screenshot has $colours colours"
if [ "$colours" -lt 8 ]; then echo "deb test: the window looks blank"; exit 1; fi
INNER
chmod +x "$work/inner.sh"
xvfb-run -a -s '-screen 0 1366x768x24' "$work/inner.sh" "$work" "$home"
test -s "$data/journal.db" || { echo "deb test: the window made no journal in $data"; exit 1; }
before=$(sha256sum "$data/journal.db")

$SUDO dpkg -r galla >/dev/null
removed=1
if dpkg-query -W -f='${Status}' galla 2>/dev/null | grep -q 'install ok installed'; then echo "deb test: dpkg -r left galla installed"; exit 1; fi
[ ! -e /usr/bin/galla ] || { echo "deb test: /usr/bin/galla is still there"; exit 1; }
[ "$(sha256sum "$data/journal.db")" = "$before" ] || { echo "deb test: removing the package changed the journal"; exit 1; }
echo "deb test: installed, drew its window, removed; the journal in $data is untouched"
