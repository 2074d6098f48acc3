#!/usr/bin/env bash
# The dependency direction of DESIGN.md section 1.
set -euo pipefail
fail=0
say() { echo "depcheck: $*"; fail=1; }

deps=$(go list -deps ./pos/)
if grep -E '^fyne.io/' <<<"$deps" >/dev/null; then say "pos depends on fyne"; fi
if grep -E '^go.etcd.io/bbolt' <<<"$deps" >/dev/null; then say "pos depends on bbolt"; fi
if go list -f '{{join .Imports "\n"}}' ./pos/ | grep -qx 'net/http'; then say "pos imports net/http"; fi
if grep -E '^github.com/jackc/pgx' <<<"$deps" >/dev/null; then say "pos depends on pgx"; fi
# The terminal's side of the store's wire carries no database driver.
for p in ./store/link/ ./store/api/; do
	if go list -deps "$p" | grep -E '^(github.com/jackc/pgx|galla/store$)' >/dev/null; then say "$p depends on pgx or the store server"; fi
done

while read -r pkg imports; do
	case "$pkg" in
	galla | galla/internal/cli | galla/ui | galla/ui/*) ;;
	*) grep -qE '(^| )fyne.io/' <<<"$imports" && say "$pkg imports fyne (only ui and the command line may)" ;;
	esac
	case "$pkg" in
	galla/pos/journal) ;;
	*) grep -qE '(^| )go.etcd.io/bbolt' <<<"$imports" && say "$pkg imports bbolt (only pos/journal may)" ;;
	esac
	case "$pkg" in
	galla/store | galla/store/*) ;;
	*) grep -qE '(^| )github.com/jackc/pgx' <<<"$imports" && say "$pkg imports pgx (only store may)" ;;
	esac
	case "$pkg" in
	galla/gateway) grep -qE '(^| )galla(/| |$)' <<<"$imports" && say "gateway imports a package of ours" ;;
	galla/receipts | galla/receipts/*) grep -qE '(^| )galla/(pos|ui|gateway)' <<<"$imports" && say "receipts imports pos, ui or gateway" ;;
	galla/pos | galla/pos/*) grep -qE '(^| )galla/(ui|internal)' <<<"$imports" && say "$pkg imports ui or internal" ;;
	galla/ui | galla/ui/*) grep -qE '(^| )galla/(gateway|receipts|pos/journal)(/| |$)' <<<"$imports" && say "$pkg imports gateway, receipts or pos/journal (ui talks to pos only)" ;;
	# The command line opens the terminal (the journal, the gateway, the store
	# link) and its window; the other internal packages serve pos or the window.
	galla/internal/cli) ;;
	galla/internal/*) grep -qE '(^| )galla/(ui|pos/journal)(/| |$)' <<<"$imports" && say "$pkg imports ui or pos/journal" ;;
	galla/assets) grep -qE '(^| )galla/' <<<"$imports" && say "assets imports a package of ours" ;;
	esac
	# Leaves and adapters: what each package's doc comment says it may import.
	case "$pkg" in
	galla/pos/gstr | galla/pos/hsn | galla/internal/testclock | galla/internal/version | galla/internal/atomicfile | galla/store/pgtest)
		grep -qE '(^| )galla(/| |$)' <<<"$imports" && say "$pkg imports a package of ours (it is a leaf)" ;;
	galla/gateway/irp) grep -qE '(^| )galla(/| |$)' <<<"$imports" && say "$pkg imports a package of ours (it is a leaf)" ;;
	galla/gateway/irp/sandbox) grep -oE '(^| )galla(/[^ ]*)?' <<<"$imports" | grep -qvE '^ ?galla/(gateway/irp|internal/atomicfile)$' && say "gateway/irp/sandbox imports more of ours than gateway/irp and internal/atomicfile" ;;
	galla/gateway/sandbox) grep -oE '(^| )galla(/[^ ]*)?' <<<"$imports" | grep -qvE '^ ?galla/(gateway|internal/atomicfile)$' && say "gateway/sandbox imports more of ours than gateway and internal/atomicfile" ;;
	galla/internal/config | galla/internal/phonepage) grep -oE '(^| )galla(/[^ ]*)?' <<<"$imports" | grep -qvE '^ ?galla/pos$' && say "$pkg imports more of ours than pos (the port it implements)" ;;
	esac
	case "$pkg" in
	galla) ;;
	*) grep -qE '(^| )galla/internal/cli( |$)' <<<"$imports" && say "$pkg imports internal/cli (only main may)" ;;
	esac
done < <(go list -f '{{.ImportPath}} {{join .Imports " "}}' ./...)
exit $fail
