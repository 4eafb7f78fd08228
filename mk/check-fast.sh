#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fast checks: userspace tests of the pure algorithm sources the kernel
# compiles (each harness under tools/testing/ that has a 'check' target and
# is ours), that no patch carries an author or a sign-off, and checkpatch
# --strict on every patch, every overlay file and every mk/*.sh and mk/*.c.
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

# The harness README's figures of the counter assignment come from the
# check run above and the benchmark (instructions, by callgrind):
# mk/figures.py fails when that README says something else (make figures
# rewrites it).
sched=tools/testing/x86-perf-sched
make -s -C $sched BASE="$pristine" O="$out/x86-perf-sched" bench > "$out/bench.txt" 2>&1 &&
	python3 mk/figures.py --check $sched/README "$out/x86-perf-sched.log" "$out/bench.txt"
count $? "$sched/README: the figures as its check and bench give them"

# The simulator's tables, in README and $sched/README, as sched_sim (built by
# the check run above) prints them: mk/simfigures.py runs their commands.
python3 mk/simfigures.py --check "$out/x86-perf-sched/sched_sim" "$out/simfigures"
count $? "READMEs: the simulator's tables as sched_sim prints them"

patches=$(grep -v -e '^#' -e '^[[:space:]]*$' series/series 2>/dev/null)

# No invented identity: make export takes the author and the sign-off from
# the exporter's git identity, so a patch header is Subject:, a blank line,
# the body and "---".
signed=
for p in $patches; do
	if sed -n '1,/^---$/p' "series/$p" | grep -q -e '^From: ' -e '^Signed-off-by: '; then
		echo "  series/$p: a From: or Signed-off-by: line"
		signed=1
	fi
done
count "${signed:-0}" "series patches carry no From: or Signed-off-by: line"

checkpatch="perl $pristine/scripts/checkpatch.pl --strict --no-tree --quiet --show-types"
n=0
# run_checkpatch NAME DIR ARGS...: checkpatch ARGS in DIR, one check.
run_checkpatch() {
	name=$1
	dir=$2
	shift 2
	(cd "$dir" && $checkpatch "$@") > "$out/checkpatch.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] || sed 's/^/  /' "$out/checkpatch.log"
	count "$rc" "checkpatch $name"
	n=$((n + 1))
}

# The sign-off is make export's: a patch has none here. The commits that
# Fixes: tags name are upstream's, and no tree here has upstream's history
# to look them up in (the base is Debian's tarball): the cover letters
# (series/cover/) say how each was checked.
# A fix whose message says, on a line of its own that starts "No Fixes:
# tag:", why the commit it fixes is not named goes without the tag.
for p in $patches; do
	ignore=MISSING_SIGN_OFF,UNKNOWN_COMMIT_ID
	grep -q '^No Fixes: tag: ' "series/$p" && ignore=$ignore,MISSING_FIXES_TAG
	# From series/: at the top of a git work tree checkpatch takes a
	# patch that git tracks for a source file.
	run_checkpatch "series/$p" series --ignore "$ignore" "$p"
done
# Every file the series adds to the kernel tree: sources, Makefiles,
# shell scripts, documentation, the KUnit config. The QEMU patches of
# tools/testing/qemu-pmu/ are checked by QEMU's checkpatch (mk/qemu.sh).
for f in $(find arch kernel tools Documentation -type f |
	   grep -v -e /build/ -e '^tools/testing/qemu-pmu/' | LC_ALL=C sort); do
	run_checkpatch "$f" . -f "$f"
done
# The build machinery and the CI script, though no kernel files: their
# usage lines name the script, and mount's "-t proc proc" is no repeated
# word.
for f in mk/*.sh mk/*.c .ci/run; do
	run_checkpatch "$f" . --ignore EMBEDDED_FILENAME,REPEATED_WORD -f "$f"
done
echo "check-fast: checkpatch --strict on $n patches and files"
echo "$passed $failed 0" > "$result"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
