#!/usr/bin/env bash
# Runs every Fuzz target in the module briefly, one at a time, from its committed seeds.
set -euo pipefail
t=${1:-3000x}
n=0
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
		echo "fuzz $pkg $f ($t)"
		go test -run '^$' -fuzz "^$f\$" -fuzztime "$t" "$pkg" >/tmp/galla-fuzz.log 2>&1 || { cat /tmp/galla-fuzz.log; exit 1; }
		n=$((n + 1))
	done
done
echo "fuzz: $n targets ran"
