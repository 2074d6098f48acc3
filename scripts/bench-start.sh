#!/usr/bin/env bash
# Cold start to the first frame (DESIGN.md section 7: at most 1.5x a bare Fyne
# window in the same run).
#
# Under one Xvfb server, starts a bare Fyne window (scripts/testdata/barewindow,
# the floor) and the real `galla --data DIR` N times each, in turn, and measures
# for each start the time from exec to its window being mapped on screen (found by
# title in `xwininfo -root -tree`, its map state read with `xwininfo -id`, polled
# every 10 ms). Fyne maps the
# window when it shows it, and the first frame is drawn right after; both
# programs are measured the same way, so the ratio holds even though the poll adds
# up to ~15 ms to each start. One start of each is made first and not counted
# (it fills the disk cache and creates galla's data directory, so the counted
# starts open an existing journal, as a terminal does every morning).
#
# Prints each start, the medians, and x-floor = median(galla) / median(bare).
# N=10 by default; run as `bash scripts/bench-start.sh` or `N=20 bash scripts/bench-start.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10}
for tool in xvfb-run xwininfo; do
	command -v "$tool" >/dev/null || { echo "bench-start: $tool is missing (make deps installs it)"; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/galla" .
go build -o "$work/bare" ./scripts/testdata/barewindow

cat >"$work/inner.sh" <<'INNER'
#!/usr/bin/env bash
set -euo pipefail
work=$1; n=$2
now() { date +%s%N; }

# shown PATTERN: whether a window whose title matches the grep -E PATTERN is mapped.
shown() {
	local id
	for id in $(xwininfo -root -tree 2>/dev/null | grep -E "$1" | awk '{print $1}'); do
		xwininfo -id "$id" 2>/dev/null | grep -q 'Map State: IsViewable' && return 0
	done
	return 1
}

# once PATTERN CMD...: starts CMD, waits for a mapped window whose title matches
# PATTERN, prints the microseconds that took, and stops CMD.
once() {
	local pat=$1; shift
	local t0 t1 pid
	t0=$(now)
	"$@" >"$work/out.log" 2>&1 &
	pid=$!
	until shown "$pat"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "bench-start: $1 exited before its window appeared:" >&2; cat "$work/out.log" >&2; return 1
		fi
		if (( $(now) - t0 > 60000000000 )); then
			echo "bench-start: no window from $1 within 60 s" >&2; kill "$pid"; return 1
		fi
		sleep 0.01
	done
	t1=$(now)
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	# The window must be gone before the next start looks for one.
	while xwininfo -root -tree 2>/dev/null | grep -qE "$pat"; do sleep 0.01; done
	echo $(( (t1 - t0) / 1000 ))
}

bare() { once '"Bare Fyne window"' "$work/bare"; }
galla() { once '"Galla' "$work/galla" --data "$work/data"; }

bare >/dev/null
galla >/dev/null
: >"$work/bare.txt"; : >"$work/galla.txt"
for i in $(seq 1 "$n"); do
	b=$(bare); g=$(galla)
	echo "$b" >>"$work/bare.txt"; echo "$g" >>"$work/galla.txt"
	awk -v i="$i" -v b="$b" -v g="$g" 'BEGIN { printf "start %2d: bare %6.1f ms  galla %6.1f ms\n", i, b/1000, g/1000 }'
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
mb=$(median "$work/bare.txt"); mg=$(median "$work/galla.txt")
awk -v b="$mb" -v g="$mg" -v n="$n" 'BEGIN {
	printf "median of %d starts: bare Fyne window %.1f ms, galla %.1f ms\n", n, b/1000, g/1000
	printf "x-floor %.2f (budget 1.5)\n", g/b
}'
INNER
chmod +x "$work/inner.sh"
# -noreset: Xvfb would otherwise reset whenever its last client leaves, and a
# program started during the reset cannot connect.
xvfb-run -a -s '-screen 0 1366x768x24 -noreset' "$work/inner.sh" "$work" "$N"
