#!/bin/sh
# The fast checks: userspace tests of the pure algorithm sources the kernel
# compiles (each harness under tools/testing/ that has a 'check' target and
# is ours), and checkpatch --strict on every patch and every overlay source.
# Usage: mk/check-fast.sh PRISTINE OUTDIR RESULT_FILE
# RESULT_FILE receives "passed failed skipped" for the final summary.
set -u
pristine=$(cd "$1" && pwd)
out=$2
result=$3
mkdir -p "$out"
rm -f "$result"
passed=0 failed=0

count() {
	if [ "$1" = 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "check-fast: FAIL: $2"
	fi
}

# Userspace harnesses: their last line is "N passed, N failed".
for mk in tools/testing/*/Makefile; do
	[ -f "$mk" ] || continue
	dir=$(dirname "$mk")
	name=$(basename "$dir")
	echo "check-fast: $dir"
	make -s -C "$dir" BASE="$pristine" O="$out/$name" check > "$out/$name.log" 2>&1
	rc=$?
	tail -n 5 "$out/$name.log" | sed 's/^/  /'
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/$name.log" | tail -n 1)
	if [ -z "$line" ]; then
		count 1 "$dir: no summary line (exit $rc)"
		continue
	fi
	p=$(echo "$line" | sed 's/^\([0-9]*\) passed.*/\1/')
	f=$(echo "$line" | sed 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/')
	passed=$((passed + p))
	failed=$((failed + f))
	[ "$rc" = 0 ] || count 1 "$dir: make check exited $rc"
done

checkpatch="perl $pristine/scripts/checkpatch.pl --strict --no-tree --quiet --show-types"
n=0
for p in $(grep -v -e '^#' -e '^[[:space:]]*$' series/series 2>/dev/null); do
	# From series/: at the top of a git work tree checkpatch takes a
	# patch that git tracks for a source file.
	(cd series && $checkpatch "$p") > "$out/checkpatch.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] || sed 's/^/  /' "$out/checkpatch.log"
	count "$rc" "checkpatch series/$p"
	n=$((n + 1))
done
for f in $(find arch tools Documentation -type f \( -name '*.[ch]' -o -name Makefile \) | grep -v /build/ | LC_ALL=C sort); do
	$checkpatch -f "$f" > "$out/checkpatch.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] || sed 's/^/  /' "$out/checkpatch.log"
	count "$rc" "checkpatch $f"
	n=$((n + 1))
done
echo "check-fast: checkpatch --strict on $n patches and files"
echo "$passed $failed 0" > "$result"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
