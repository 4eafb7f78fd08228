#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Rewrite every patch of series/series so that it applies to the base plus
# the patches before it exactly (no offset, no fuzz), keeping its mail
# header. A patch that needs fuzz is not touched: fix it by hand.
# Usage: mk/refresh.sh PRISTINE
set -eu
pristine=$(cd "$1" && pwd)
repo=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/refresh.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/old" "$tmp/new"

for p in $(grep -v -e '^#' -e '^[[:space:]]*$' series/series); do
	f=series/$p
	files=$(sed -n 's|^+++ b/\([^	]*\).*|\1|p' "$f")
	for n in $files; do
		[ -e "$tmp/new/$n" ] && continue
		# The base holds it, or it is a new file an earlier patch
		# introduced, as the overlay holds it.
		for src in "$pristine/$n" "$repo/$n"; do
			[ -f "$src" ] || continue
			mkdir -p "$tmp/new/$(dirname "$n")"
			cp "$src" "$tmp/new/$n"
			break
		done
	done
	rm -rf "$tmp/old" && cp -a "$tmp/new" "$tmp/old"
	(cd "$tmp/new" && patch -s -p1 --fuzz=0 --no-backup-if-mismatch < "$repo/$f") ||
		{ echo "refresh: $p needs fuzz; fix it by hand" >&2; exit 1; }
	{
		sed -n '1,/^---$/p' "$f"
		"$repo/mk/mkdiff.sh" "$tmp/old" "$tmp/new" $files
	} > "$tmp/patch"
	if ! cmp -s "$tmp/patch" "$f"; then
		cp "$tmp/patch" "$f"
		echo "refresh: $p"
	fi
done
