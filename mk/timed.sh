#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run a stage of make check and print the wall time it took and the host
# CPU time of its processes, whatever its result: "time: STAGE N s, CPU
# M s". With -o LOG the stage's own output goes to LOG, the time line
# still to standard output. The stage's exit status is kept.
# Usage: mk/timed.sh [-o LOG] STAGE COMMAND...
log=
if [ "$1" = -o ]; then
	log=$2
	shift 2
fi
stage=$1
shift
start=$(date +%s)
if [ -n "$log" ]; then
	"$@" > "$log" 2>&1
else
	"$@"
fi
rc=$?
# times, in this shell (not a subshell of its own): the shell's user and
# system time, then its children's, as XmY.Zs
tmp=$(mktemp)
times > "$tmp"
cpu=$(awk 'NR == 2 { t = 0
	for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] }
	printf "%d", t }' "$tmp")
rm -f "$tmp"
echo "time: $stage $(($(date +%s) - start)) s, CPU $cpu s"
exit $rc
