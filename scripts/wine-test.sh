#!/usr/bin/env bash
# Runs the Windows installer under Wine, as a shop owner would on the counter PC:
#   scripts/wine-test.sh SETUP_EXE VERSION
# Silent install (/S) into a fresh Wine prefix: Galla.exe under Program Files,
# the Start-menu entry and the uninstaller, the Apps & features entry with the
# version; then a journal is put in the user's %LOCALAPPDATA%\Galla and the
# uninstaller run (/S): the program, the entry and the shortcut go, the journal
# stays byte for byte. Skipped, with a line saying so, where Wine is not installed.
set -euo pipefail
setup=$(realpath "$1") version=$2
wine=${WINE:-$(command -v wine || command -v wine64 || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; } || true)}
if [ -z "$wine" ]; then
	echo "wine test: skipped, Wine is not installed (apt-get install wine64)"
	exit 0
fi
work=$(mktemp -d)
export WINEPREFIX=$work/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" HOME=$work
wineserver=$(dirname "$wine")/wineserver
[ -x "$wineserver" ] || wineserver=wineserver
trap '"$wineserver" -k >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$wine" wineboot -i >/dev/null 2>&1
c=$WINEPREFIX/drive_c
"$wine" "$setup" /S >/dev/null 2>&1
"$wineserver" -w
inst="$c/Program Files/Galla"
test -f "$inst/Galla.exe" || { echo "wine test: no Galla.exe in Program Files"; ls -R "$c/Program Files" | head; exit 1; }
test -f "$inst/Uninstall Galla.exe" || { echo "wine test: no uninstaller"; exit 1; }
lnk="$c/ProgramData/Microsoft/Windows/Start Menu/Programs/Galla.lnk"
test -f "$lnk" || { echo "wine test: no Start-menu entry"; exit 1; }
key='HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\Galla'
"$wine" reg query "$key" /v DisplayVersion 2>/dev/null | tr -d '\r' | grep -q "DisplayVersion.*REG_SZ.*$version\$" ||
	{ echo "wine test: Apps & features does not list Galla $version"; exit 1; }

# A user's data, as Galla keeps it: the uninstaller must leave it.
user=$(ls "$c/users" | grep -vx Public | head -1)
data="$c/users/$user/AppData/Local/Galla"
mkdir -p "$data/backups"
printf 'journal' >"$data/journal.db"
printf 'backup' >"$data/backups/journal-2026-11-24.db"
before=$(cd "$data" && find . -type f -exec sha256sum {} + | sort)

# The uninstaller copies itself to %TEMP% and runs from there: wineserver -w
# waits until every process of the prefix has ended.
"$wine" "$inst/Uninstall Galla.exe" /S >/dev/null 2>&1
"$wineserver" -w
[ ! -e "$inst/Galla.exe" ] || { echo "wine test: Galla.exe is still installed"; exit 1; }
[ ! -e "$lnk" ] || { echo "wine test: the Start-menu entry is still there"; exit 1; }
if "$wine" reg query "$key" >/dev/null 2>&1; then echo "wine test: Apps & features still lists Galla"; exit 1; fi
after=$(cd "$data" && find . -type f -exec sha256sum {} + | sort)
[ "$before" = "$after" ] || { echo "wine test: the uninstaller changed the data directory"; exit 1; }
echo "wine test: installed, listed as $version, uninstalled; %LOCALAPPDATA%\\Galla untouched"
