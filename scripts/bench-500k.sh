#!/usr/bin/env bash
# bench-500k.sh: the real galla binary on a grown data directory against a
# fresh one, paired in one run (docs/benchmarks.md "500 thousand events, whole
# process"; issue 25's "Done when", issue 22's start-up on a big journal).
#
# The grown data directory holds the repository's growth generator's journal
# (pos/journal TestGrowDataDir: busy days of 200 sales up to yesterday, the
# last OPEN_DAYS of them never closed by a Z report), keyed with the data
# directory's own journal key as the terminal keys it; the fresh one holds
# nothing. Each gets the same manager and shop, one warm-up round (a shift,
# a phone sale, a cash sale) and a backup dated yesterday, as a counter in use
# has: then the till's snapshots, the journal's marks and the backups are
# where a counter's own commands leave them. Both are kept as templates in $DIR and made again only when EVENTS or
# OPEN_DAYS change (or with FRESH=1).
#
# Each of N rounds copies the two templates anew (untimed) and runs, on the
# grown and the fresh copy in turn (which goes first alternating):
#   shift-open   galla shift open --float 100000
#   phone        galla checkout of a phone with its IMEI (a new one each time), cash
#   cash-shift   galla checkout of two cables, cash, with the shift open
#   report       galla report (the day's X report)
#   staff-list   galla staff list
#   close-day    galla close-day (after the shift is closed, untimed): the Z
#                report, the day's backup (an increment of yesterday's; with
#                BASE=1, the day that makes a new base of the next base
#                being built; with CHUNK=1, a day that copies a chunk of
#                it; with FIRST=1, a counter's first backup, the
#                whole file) and its check
#   verify       galla journal verify (the first VERIFY rounds only)
# timing each whole process (exec to exit) and its peak resident memory
# (/usr/bin/time -f %M). It prints each command's median over the rounds on
# both, the ratio of the medians (grown / fresh) and the peak memories.
#
#   N=5 bash scripts/bench-500k.sh
#   EVENTS=200000 OPEN_DAYS=40 N=3 bash scripts/bench-500k.sh
#   GALLA=/path/to/other/galla bash scripts/bench-500k.sh   # another build on the same templates
#   BASE=1 N=3 bash scripts/bench-500k.sh   # close-day making a new base of the next base, all copied
#   CHUNK=1 N=3 bash scripts/bench-500k.sh  # close-day copying a chunk of the next base (not its last)
#   FIRST=1 N=3 bash scripts/bench-500k.sh  # close-day writing a counter's first backup (the whole file)
#   LATE=1 N=3 bash scripts/bench-500k.sh   # the same, 30 busy days after the base (about 21 MB changed since it; with CHUNK=1 or BASE=1 too)
#
# The machine is shared: read the ratios, taken in one run, not the times.
set -euo pipefail

cd "$(dirname "$0")/.."
N=${N:-5}
EVENTS=${EVENTS:-500000}
OPEN_DAYS=${OPEN_DAYS:-100}
VERIFY=${VERIFY:-2}
DIR=${DIR:-/tmp/galla-bench-500k}
PIN=432100
export GALLA_PIN=$PIN

[[ -x /usr/bin/time ]] || { echo "bench-500k: /usr/bin/time is needed (apt-get install time)" >&2; exit 2; }
mkdir -p "$DIR"
if [[ -z "${GALLA:-}" ]]; then
	GALLA=$DIR/galla
	go build -o "$GALLA" .
fi

# g DATA ARGS...: the binary on data directory DATA, quiet.
g() {
	local data=$1
	shift
	"$GALLA" --data "$data" "$@" >/dev/null 2>>"$DIR/stderr.log"
}

# imei N: a valid IMEI (Luhn) of unit N, none the generator's.
imei() {
	local body sum=0 i d
	body=$(printf '35%012d' "$1")
	for ((i = 0; i < 14; i++)); do
		d=${body:i:1}
		if ((i % 2 == 1)); then
			d=$((d * 2))
			((d > 9)) && d=$((d - 9))
		fi
		sum=$((sum + d))
	done
	echo "$body$(((10 - sum % 10) % 10))"
}

unit=$(date +%s)
# warm DATA: the commands of one round, untimed (the warm-up), and the list
# of open sales that close-day reads.
warm() {
	local data=$1
	unit=$((unit + 1))
	g "$data" shift open --float 100000
	g "$data" checkout --staff Meera --items PH-SAM-A55-128 --imei "$(imei $unit)" --pay cash
	g "$data" checkout --staff Meera --items ACC-CBL-CC1M:2 --pay cash
	g "$data" shift close --counted 100000
	g "$data" sales --open
}

# setup makes the two templates.
setup() {
	rm -rf "$DIR/tmpl"
	mkdir -p "$DIR/tmpl"
	for d in big fresh; do
		g "$DIR/tmpl/$d" staff list # the data directory and its journal key
	done
	echo "bench-500k: writing the grown journal ($EVENTS events, the last $OPEN_DAYS days never closed)..." >&2
	GALLA_GROW_DIR=$DIR/tmpl/big GALLA_GROW_EVENTS=$EVENTS GALLA_GROW_OPEN_DAYS=$OPEN_DAYS \
		go test -count=1 -timeout 60m -run '^TestGrowDataDir$' ./pos/journal/ >&2
	for d in big fresh; do
		printf '%s\n' "$PIN" | "$GALLA" --data "$DIR/tmpl/$d" staff add Meera --role manager >/dev/null 2>>"$DIR/stderr.log"
		g "$DIR/tmpl/$d" shop set --name "Galla Mobiles" --address "1 MG Road, Pune" --state 27 --gstin 27AAPFU0939F1ZV
		warm "$DIR/tmpl/$d"
	done
	echo "$EVENTS $OPEN_DAYS" >"$DIR/tmpl/made"
}

if [[ "${FRESH:-}" == 1 || ! -f "$DIR/tmpl/made" || "$(cat "$DIR/tmpl/made")" != "$EVENTS $OPEN_DAYS" ]]; then
	setup
fi

# A counter in use has the backup its last close-day wrote: each template gets
# a day backup dated yesterday, untimed, once (templates made before this step
# get it on their next run), written by the journal's own BackupDay
# (pos/journal TestBackupDataDir) without a Z report, so that the days left
# open stay open. The timed close-day then writes today's backup beside it,
# an increment of it, as every close-day but a counter's first does. BASE=1
# times instead the close-day that makes a new base: each round's copies get,
# untimed, the next base all copied, the copy of the newest backup
# (TestBackupDataDir with GALLA_BACKUP_NEXT=1; the fresh journal, smaller
# than a chunk, has none), so that the timed close-day writes the day's pages
# into it and what the journal grew by, and makes it the day's base; CHUNK=1
# leaves two chunks, so that the timed close-day copies one and makes no base
# (the days while the next base is built). FIRST=1 times a counter's first
# backup, with no backup in the copies: the whole file.
yesterday=$(date -d yesterday +%F)
if [[ ! -f "$DIR/tmpl/backed-up" ]]; then
	for d in big fresh; do
		GALLA_BACKUP_DIR=$DIR/tmpl/$d GALLA_BACKUP_DAY=$yesterday \
			go test -count=1 -timeout 30m -run '^TestBackupDataDir$' ./pos/journal/ >&2
	done
	echo "$yesterday" >"$DIR/tmpl/backed-up"
fi

# LATE=1 times the same commands on a counter some weeks after its base was
# made: the grown copy (and the fresh one, untouched) of $DIR/tmpl-late,
# made once from the templates above, holds LATE_DAYS (30) busy days of 200
# sales appended through the journal's own Append, one commit an event, each
# backed up as its close-day would, after a base made the day before the
# first (pos/journal TestGrowDaysSinceBase): about 21 MB of pages changed
# since the base, as a counter's before its next base is made, its
# increments a chain of a day each. The days are the last LATE_DAYS before
# today (open in the grown journal); one warm-up round after them leaves the
# till's state where its own commands would.
TMPL=$DIR/tmpl
if [[ "${LATE:-}" == 1 ]]; then
	TMPL=$DIR/tmpl-late
	late="$(cat "$DIR/tmpl/made") $(cat "$DIR/tmpl/backed-up") ${LATE_DAYS:-30} chained"
	if [[ ! -f "$TMPL/made" || "$(cat "$TMPL/made")" != "$late" ]]; then
		rm -rf "$TMPL"
		mkdir -p "$TMPL"
		cp -a "$DIR/tmpl/big" "$DIR/tmpl/fresh" "$TMPL/"
		echo "bench-500k: appending ${LATE_DAYS:-30} busy days since the base..." >&2
		GALLA_GROW_SINCE_DIR=$TMPL/big GALLA_GROW_SINCE_DAYS=${LATE_DAYS:-30} \
			go test -count=1 -timeout 30m -run '^TestGrowDaysSinceBase$' ./pos/journal/ >&2
		warm "$TMPL/big"
		echo "$late" >"$TMPL/made"
	fi
fi

R=$DIR/results
rm -rf "$R"
mkdir -p "$R"

# timed NAME WHICH DATA ARGS...: one command, its wall time in ms and peak
# memory in KiB appended to $R/NAME.WHICH.
timed() {
	local name=$1 which=$2 data=$3 t0 t1 code=0
	shift 3
	t0=$(date +%s%N)
	/usr/bin/time -o "$R/mem" -f '%M' "$GALLA" --data "$data" "$@" >/dev/null 2>>"$DIR/stderr.log" || code=$?
	t1=$(date +%s%N)
	if ((code != 0)); then
		echo "bench-500k: $name on $which failed ($code); see $DIR/stderr.log" >&2
		tail -3 "$DIR/stderr.log" >&2
		exit 1
	fi
	echo "$(((t1 - t0) / 1000000)) $(tail -1 "$R/mem")" >>"$R/$name.$which"
}

# pair NAME ARGS...: NAME on the grown and the fresh copy in turn.
pair() {
	local name=$1 first
	shift
	first=$((round % 2))
	for k in 0 1; do
		if (((first + k) % 2 == 0)); then
			timed "$name" big "$DIR/run/big" "$@"
		else
			timed "$name" fresh "$DIR/run/fresh" "$@"
		fi
	done
}

uptime >"$R/load"
for ((round = 0; round < N; round++)); do
	rm -rf "$DIR/run"
	mkdir -p "$DIR/run"
	cp -a "$TMPL/big" "$TMPL/fresh" "$DIR/run/"
	if [[ "${FIRST:-}" == 1 ]]; then
		rm -rf "$DIR/run/big/backups" "$DIR/run/fresh/backups"
	elif [[ "${BASE:-}" == 1 ]]; then
		GALLA_BACKUP_DIR=$DIR/run/big GALLA_BACKUP_NEXT=1 \
			go test -count=1 -run '^TestBackupDataDir$' ./pos/journal/ >/dev/null
	elif [[ "${CHUNK:-}" == 1 ]]; then
		GALLA_BACKUP_DIR=$DIR/run/big GALLA_BACKUP_NEXT=1 GALLA_BACKUP_NEXT_LEFT=2 \
			go test -count=1 -run '^TestBackupDataDir$' ./pos/journal/ >/dev/null
	fi
	# The copies go to the disk before anything is timed: otherwise the first
	# command's fsync of the journal waits for the copy's 300 MB of dirty
	# pages (shift open 172 ms against 51 on the fresh copy, 2026-11-27, and
	# 50 ms on the grown copy from the second command on), which no counter's
	# own journal meets.
	sync
	unit=$((unit + 2))
	pair shift-open shift open --float 100000
	pair phone checkout --staff Meera --items PH-SAM-A55-128 --imei "$(imei $unit)" --pay cash
	unit=$((unit + 1)) # the fresh copy sold the same IMEI: both are new to their journal
	pair cash-shift checkout --staff Meera --items ACC-CBL-CC1M:2 --pay cash
	pair report report
	pair staff-list staff list
	g "$DIR/run/big" shift close --counted 100000
	g "$DIR/run/fresh" shift close --counted 100000
	pair close-day close-day
	if ((round < VERIFY)); then
		pair verify journal verify
	fi
	echo "bench-500k: round $((round + 1)) of $N done" >&2
done
uptime >>"$R/load"

# median FILE COLUMN
median() { awk -v c="$2" '{print $c}' "$1" | sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
maxof() { awk -v c="$2" 'BEGIN{m=0} $c>m{m=$c} END{print m}' "$1"; }

events=$(cat "$DIR/tmpl/made")
printf '%s\n' "grown: ${events% *} events, the last ${events#* } days never closed; $N rounds"
if [[ "${LATE:-}" == 1 ]]; then
	printf '%s\n' "late: ${LATE_DAYS:-30} busy days appended since the base"
fi
printf 'load: %s\n' "$(tr '\n' ' ' <"$R/load" | sed 's/  */ /g')"
printf '%-11s %5s %11s %11s %9s %16s\n' command runs grown-ms fresh-ms x-fresh "peak MiB g/f"
for name in shift-open phone cash-shift report staff-list close-day verify; do
	[[ -f "$R/$name.big" ]] || continue
	b=$(median "$R/$name.big" 1)
	f=$(median "$R/$name.fresh" 1)
	mb=$(maxof "$R/$name.big" 2)
	mf=$(maxof "$R/$name.fresh" 2)
	awk -v n="$name" -v r="$(wc -l <"$R/$name.big")" -v b="$b" -v f="$f" -v mb="$mb" -v mf="$mf" \
		'BEGIN {printf "%-11s %5d %11.0f %11.0f %9.2f %8.0f/%.0f\n", n, r, b, f, b/f, mb/1024, mf/1024}'
done
