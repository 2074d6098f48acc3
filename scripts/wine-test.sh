#!/usr/bin/env bash
# Runs the Windows build of Galla under Wine, as a shop owner would on the counter PC:
#   scripts/wine-test.sh SETUP_EXE VERSION [SHOT_PNG]
# In a fresh Wine prefix under Xvfb:
#  1. the installer, silently (/S): Galla.exe under Program Files with its
#     uninstaller and nothing else, the Start-menu entry, the Apps & features
#     entry with the version;
#  2. the installed Galla.exe --version: VERSION, windows/amd64 and the data
#     directory under the user's %LOCALAPPDATA%\Galla;
#  3. Galla.exe started with no flags: its window is found (xdotool), captured
#     to SHOT_PNG (kept when given) and must not be blank, and it is closed as
#     a user would (WM_CLOSE);
#  4. a manager added and a cash sale made with Galla.exe's command line, whose
#     journal is then in %LOCALAPPDATA%\Galla and verifies;
#  5. the uninstaller, silently: the program, the entry and the shortcut go, the
#     data directory stays byte for byte.
# Debian 12's Wine 8 lacks bcryptprimitives.dll (Windows 10 and later), whose
# ProcessPrng Go's runtime calls before main: a stand-in built here from
# packaging/windows/wine-shim with mingw-w64 goes into this test's prefix only
# (never into the installer, which step 1 checks).
# Needs wine64, gcc-mingw-w64-x86-64, xvfb, xdotool and imagemagick (make wine-test
# installs them). Each failure is one sentence starting "wine test:".
set -euo pipefail
fail() { echo "wine test: $*"; exit 1; }
# A step that fails without its own sentence is named by its line.
trap 'echo "wine test: failed at line $LINENO: $BASH_COMMAND"' ERR
[ $# -ge 2 ] && [ -f "$1" ] || fail "usage: scripts/wine-test.sh SETUP_EXE VERSION [SHOT_PNG] (make package-windows builds the setup)"
if [ -z "${GALLA_WINE_XVFB:-}" ]; then
	command -v xvfb-run >/dev/null || fail "xvfb-run is not installed (apt-get install xvfb, or make wine-test)"
	# Everything runs under one X server: Wine keeps its display for the prefix.
	exec env GALLA_WINE_XVFB=1 xvfb-run -a -s '-screen 0 1366x768x24' bash "$0" "$@"
fi
setup=$(realpath "$1") version=$2 keep=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)

wine=${WINE:-$(command -v wine || command -v wine64 || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; } || true)}
[ -n "$wine" ] || fail "Wine is not installed (apt-get install wine64, or make wine-test)"
for tool in x86_64-w64-mingw32-gcc xdotool import identify; do
	command -v "$tool" >/dev/null || fail "$tool is not installed (make wine-test installs what it needs)"
done
wineserver=$(dirname "$(readlink -f "$(command -v "$wine")")")/wineserver
[ -x "$wineserver" ] || wineserver=/usr/lib/wine/wineserver
[ -x "$wineserver" ] || wineserver=wineserver

work=$(mktemp -d)
unset GALLA_DATA GALLA_PIN
export WINEPREFIX=$work/prefix WINEDEBUG=-all HOME=$work
# No Mono or Gecko prompts; the stand-in bcryptprimitives.dll before any built-in.
export WINEDLLOVERRIDES="mscoree,mshtml=;bcryptprimitives=n,b"
trap '"$wineserver" -k >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$wine" wineboot -i >"$work/wineboot.log" 2>&1 || { cat "$work/wineboot.log"; fail "wineboot could not make a Wine prefix"; }
"$wineserver" -w
c=$WINEPREFIX/drive_c

# The stand-in, built for this prefix alone.
x86_64-w64-mingw32-gcc -O2 -s -shared -o "$work/bcryptprimitives.dll" \
	"$here/packaging/windows/wine-shim/bcryptprimitives.c" "$here/packaging/windows/wine-shim/bcryptprimitives.def" -ladvapi32 ||
	fail "mingw-w64 could not build the bcryptprimitives.dll stand-in"
cp "$work/bcryptprimitives.dll" "$c/windows/system32/bcryptprimitives.dll"

# 1. Install.
"$wine" "$setup" /S >"$work/setup.log" 2>&1 || fail "the installer failed (/S)"
"$wineserver" -w
inst="$c/Program Files/Galla"
test -f "$inst/Galla.exe" || { ls -R "$c/Program Files" | head; fail "the installer put no Galla.exe in Program Files"; }
test -f "$inst/Uninstall Galla.exe" || fail "the installer put no uninstaller beside Galla.exe"
files=$(cd "$inst" && find . -type f | sort | tr '\n' ' ')
[ "$files" = "./Galla.exe ./Uninstall Galla.exe " ] ||
	fail "Program Files\\Galla holds $files; the installer must carry only Galla.exe and its uninstaller (the test's bcryptprimitives.dll never)"
lnk="$c/ProgramData/Microsoft/Windows/Start Menu/Programs/Galla.lnk"
test -f "$lnk" || fail "the installer made no Start-menu entry"
key='HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\Galla'
"$wine" reg query "$key" /v DisplayVersion 2>/dev/null | tr -d '\r' | grep -q "DisplayVersion.*REG_SZ.*$version\$" ||
	fail "Apps & features does not list Galla $version"
echo "wine test: installed, listed in Apps & features as $version"

user=$(ls "$c/users" | grep -vx Public | head -1)
data="$c/users/$user/AppData/Local/Galla"
windata="C:\\users\\$user\\AppData\\Local\\Galla"

# galla NAME ARGS...: runs the installed Galla.exe with standard input from
# $work/NAME.in (empty when absent) and its standard output and error in
# $work/NAME.out and $work/NAME.err; returns its exit code. Galla.exe is a GUI
# program (-H=windowsgui): Wine hands it the streams it is started with.
galla() {
	local name=$1
	shift
	[ -f "$work/$name.in" ] || : >"$work/$name.in"
	(cd "$inst" && "$wine" ./Galla.exe "$@" <"$work/$name.in" >"$work/$name.out" 2>"$work/$name.err")
}
show() { sed 's/^/  /' "$work/$1.out" "$work/$1.err"; }

# 2. --version.
galla version --version || { show version; fail "Galla.exe --version failed under Wine"; }
tr -d '\r' <"$work/version.out" >"$work/version.txt"
head -1 "$work/version.txt" | grep -qx "Galla $version" || { show version; fail "Galla.exe --version does not say Galla $version"; }
grep -q 'windows/amd64' "$work/version.txt" || { show version; fail "Galla.exe --version does not say windows/amd64"; }
grep -qF "data directory: $windata (the default for this system)" "$work/version.txt" ||
	{ show version; fail "Galla.exe --version does not name $windata as its data directory"; }
sed 's/^/wine test: /' "$work/version.txt"

# 3. The window, on the fresh data directory: the first manager's screen.
(cd "$inst" && exec "$wine" ./Galla.exe </dev/null >"$work/window.out" 2>"$work/window.err") &
pid=$!
win=
for _ in $(seq 1 120); do
	win=$(xdotool search --onlyvisible --name '^Galla' 2>/dev/null | head -1 || true)
	[ -n "$win" ] && break
	kill -0 "$pid" 2>/dev/null || { show window; fail "Galla.exe exited before it showed a window"; }
	sleep 0.5
done
[ -n "$win" ] || { show window; fail "no Galla window appeared within a minute"; }
sleep 3
shot=${keep:-$work/window.png}
import -window "$win" "$shot" || fail "the Galla window could not be captured"
geometry=$(identify -format '%wx%h' "$shot")
colours=$(identify -format '%k' "$shot")
echo "wine test: the window \"$(xdotool getwindowname "$win")\" is ${geometry}, $colours colours${keep:+, in $keep}"
[ "$colours" -ge 8 ] || fail "the Galla window looks blank ($colours colours)"
# Closed as a user closes it: WM_CLOSE, which taskkill without /f sends.
"$wine" taskkill /im Galla.exe >/dev/null 2>&1 || true
for _ in $(seq 1 60); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.5
done
if kill -0 "$pid" 2>/dev/null; then
	kill "$pid" 2>/dev/null || true
	fail "Galla.exe did not end within 30 seconds of its window being closed"
fi
test -s "$data/journal.db" || fail "the window made no journal in $windata"

# 4. A manager and a cash sale by the command line.
printf '135790\n' >"$work/staff.in"
galla staff staff add Asha --role manager || { show staff; fail "galla.exe staff add Asha --role manager failed"; }
printf '135790\n' >"$work/shift.in"
galla shift shift open --float 0 || { show shift; fail "galla.exe shift open --float 0 failed"; }
printf '135790\n' >"$work/sale.in"
galla sale checkout --staff Asha --items ACC-CASE-S24:2 --pay cash ||
	{ show sale; fail "galla.exe checkout --staff Asha --items ACC-CASE-S24:2 --pay cash failed"; }
tr -d '\r' <"$work/sale.out" | grep -q '"status": *"PAID"' || { show sale; fail "the cash sale is not PAID"; }
invoice=$(tr -d '\r' <"$work/sale.out" | sed -n 's/.*"invoice_no": *"\([^"]*\)".*/\1/p' | head -1)
[ -n "$invoice" ] || { show sale; fail "the cash sale has no invoice number"; }
order=$(tr -d '\r' <"$work/sale.out" | sed -n 's/^{"merchant_order_id": *"\([^"]*\)".*/\1/p')
test -s "$data/journal.db" || fail "no journal in $windata after the sale"
# Read back by another process from the journal: the receipt, and the whole chain.
galla receipt receipt "$order" || { show receipt; fail "galla.exe receipt $order finds no receipt of the sale"; }
grep -qF "$invoice" "$work/receipt.out" || { show receipt; fail "the receipt of $order does not name the invoice $invoice"; }
galla verify journal verify || { show verify; fail "galla.exe journal verify finds the journal damaged"; }
echo "wine test: a manager added and a cash sale paid (invoice $invoice); its journal in $windata has its receipt and verifies"

# 5. Uninstall: the program goes, the data stays.
echo "wine test: $windata holds" $(cd "$data" && find . -type f | sed 's|^\./||' | sort)
before=$(cd "$data" && find . -type f -exec sha256sum {} + | sort)
# The uninstaller copies itself to %TEMP% and runs from there: wineserver -w
# waits until every process of the prefix has ended.
"$wine" "$inst/Uninstall Galla.exe" /S >"$work/uninstall.log" 2>&1 || fail "the uninstaller failed (/S)"
"$wineserver" -w
[ ! -e "$inst/Galla.exe" ] || fail "Galla.exe is still installed after the uninstaller"
[ ! -e "$lnk" ] || fail "the Start-menu entry is still there after the uninstaller"
if "$wine" reg query "$key" >/dev/null 2>&1; then fail "Apps & features still lists Galla after the uninstaller"; fi
after=$(cd "$data" && find . -type f -exec sha256sum {} + | sort)
[ "$before" = "$after" ] || fail "the uninstaller changed the data directory $windata"
echo "wine test: uninstalled; $windata with the journal untouched (${SECONDS}s in all)"
