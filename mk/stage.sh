#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Stage the patched tree: pristine base + overlay files + quilt series.
#
# Usage: mk/stage.sh PRISTINE STAGED REPO
#
# The staged tree is a full copy of PRISTINE made once. Every later run
# builds the overlay and the patched files in a scratch directory and
# copies into STAGED only the files whose content changed, so an edit to
# one overlay file or one patch rebuilds only what depends on it. Files
# that an earlier run staged but that no longer belong to the overlay or
# the series are put back to their pristine state (or removed).
set -eu
pristine=$(cd "$1" && pwd)
staged=$2
repo=$(cd "$3" && pwd)
list=.staged-files

die() { echo "stage: $*" >&2; exit 1; }

[ -f "$pristine/Makefile" ] || die "no kernel tree at $pristine"
if [ ! -d "$staged" ]; then
	echo "stage: copying $pristine to $staged (once)"
	mkdir -p "$(dirname "$staged")"
	rm -rf "$staged.tmp"
	cp -a "$pristine" "$staged.tmp"
	mv "$staged.tmp" "$staged"
fi
staged=$(cd "$staged" && pwd)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/stage.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Overlay: every file under arch/, kernel/, tools/ and Documentation/ of the repo,
# but for the QEMU patch series in tools/testing/qemu-pmu/ (mk/qemu.sh)
# and the fuzzer of the guest tests, tools/testing/x86-perf-fuzz/
# (mk/initramfs.sh): the project's tools, not the kernel's.
(cd "$repo" && find arch kernel tools Documentation -type f 2>/dev/null |
	grep -v -e '/build/' -e '^tools/testing/qemu-pmu/' \
		-e '^tools/testing/x86-perf-fuzz/' |
	LC_ALL=C sort) > "$scratch/overlay"
patches=$(grep -v -e '^#' -e '^[[:space:]]*$' "$repo/series/series" 2>/dev/null || true)

: > "$scratch/touched"
for p in $patches; do
	[ -f "$repo/series/$p" ] || die "series names $p, but series/$p does not exist"
	sed -n 's|^+++ b/\([^	]*\).*|\1|p' "$repo/series/$p" >> "$scratch/touched"
done
LC_ALL=C sort -u -o "$scratch/touched" "$scratch/touched"

mkdir "$scratch/tree"
# A patch may also change a new file that an earlier patch introduced
# (series/overlay): the overlay holds such a file as it is introduced.
while read -r f; do
	if [ -f "$pristine/$f" ]; then
		mkdir -p "$scratch/tree/$(dirname "$f")"
		cp "$pristine/$f" "$scratch/tree/$f"
	fi
done < "$scratch/touched"
while read -r f; do
	[ -e "$pristine/$f" ] &&
		die "$f is in the base tree already: change it with a patch in series/"
	mkdir -p "$scratch/tree/$(dirname "$f")"
	cp "$repo/$f" "$scratch/tree/$f"
done < "$scratch/overlay"

if [ -n "$patches" ]; then
	if ! (cd "$scratch/tree" && QUILT_PATCHES="$repo/series" QUILT_PC=.pc \
	      quilt push -a --fuzz=0 > "$scratch/quilt.log" 2>&1); then
		sed 's/^/stage: /' "$scratch/quilt.log" >&2
		die "the series does not apply with zero fuzz (see above: patch and file)"
	fi
	if grep -q -i -e 'offset' -e 'fuzz' "$scratch/quilt.log"; then
		sed 's/^/stage: /' "$scratch/quilt.log" >&2
		die "the series applies only with an offset: refresh the patch named above"
	fi
fi

# Sync: new list = overlay + touched; also revisit what was staged before.
cat "$scratch/overlay" "$scratch/touched" | LC_ALL=C sort -u > "$scratch/new"
old=/dev/null
[ -f "$staged/$list" ] && old="$staged/$list"
LC_ALL=C sort -u "$scratch/new" "$old" | while read -r f; do
	if [ -f "$scratch/tree/$f" ]; then
		src="$scratch/tree/$f"
	elif [ -f "$pristine/$f" ]; then
		src="$pristine/$f"
	else
		if [ -e "$staged/$f" ]; then
			echo "stage: remove $f"
			rm -f "$staged/$f"
		fi
		continue
	fi
	if ! cmp -s "$src" "$staged/$f"; then
		echo "stage: update $f"
		mkdir -p "$staged/$(dirname "$f")"
		cp "$src" "$staged/$f"
	fi
done
cp "$scratch/new" "$staged/$list"
