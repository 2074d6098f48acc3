#!/usr/bin/env bash
# Starts the real binary under Xvfb with a fresh data directory, waits for its window,
# takes a screenshot and checks that the window drew something (not a blank frame).
# SHOT=path keeps the screenshot.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/galla" .
shot=${SHOT:-$work/shot.png}
cat >"$work/inner.sh" <<'INNER'
#!/usr/bin/env bash
set -euo pipefail
work=$1; shot=$2
"$work/galla" --data "$work/data" >"$work/galla.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
	if xwininfo -root -tree 2>/dev/null | grep -q '"Galla'; then break; fi
	if ! kill -0 $pid 2>/dev/null; then echo "window test: galla exited early:"; cat "$work/galla.log"; exit 1; fi
	sleep 0.5
done
xwininfo -root -tree | grep -q '"Galla' || { echo "window test: no Galla window appeared"; cat "$work/galla.log"; exit 1; }
sleep 3
import -window root "$shot"
colours=$(identify -format '%k' "$shot")
echo "window test: screenshot has $colours colours"
if [ "$colours" -lt 8 ]; then echo "window test: the window looks blank"; exit 1; fi
INNER
chmod +x "$work/inner.sh"
xvfb-run -a -s '-screen 0 1366x768x24' "$work/inner.sh" "$work" "$shot"
