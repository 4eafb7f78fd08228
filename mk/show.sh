#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What make shows of the series at work on the emulated PMU: lines of the
# output of the series' kselftests (tools/testing/selftests/perf_events/)
# and of the pmu and PEBS tests (mk/pmu-tests.sh, mk/pebs-tests.sh), each
# under a title that says what it shows. Every figure is this run's.
#
# Usage: mk/show.sh HASWELL_TESTS LOSS_TESTS SKYLAKE_TESTS
set -u
haswell=$1 loss=$2 skylake=$3

# lines FILE TEST: the diagnostic lines ("# ...") before "ok TEST " in
# the pmu or PEBS tests' part of FILE, and the result line itself.
lines() {
	tr -d '\r\000' < "$1" | awk -v t="$2" '
		/^== (pmu|pebs)$/ { on = 1; next }
		/^== / { on = 0 }
		!on { next }
		/^# / { d[++n] = $0; next }
		/^(not )?ok [0-9]+ / {
			if ($0 ~ "^(not )?ok " t " ") {
				for (i = 1; i <= n; i++)
					print "    " substr(d[i], 3)
				print "    => " $0
			}
			n = 0
		}'
}

# klines FILE CASE: what the kselftest case CASE logged in FILE's
# kselftest part (harness lines "# # FILE.c:LINE:CASE:TEXT"), and its
# result line.
klines() {
	tr -d '\r\000' < "$1" | awk -v c="$2" '
		/^== kselftest$/ { on = 1; next }
		/^== / { on = 0 }
		!on { next }
		index($0, ":" c ":") && /^# # [a-z_]+\.c:[0-9]+:/ {
			sub("^# # [a-z_]+\\.c:[0-9]+:" c ":", "")
			print "    " $0
		}
		$0 ~ "^# (not )?ok [0-9]+ [a-z_]+\\." c "( |$)" {
			print "    => " substr($0, 3)
		}'
}

# show TITLE FILE TEST [LINES]: TITLE, then LINES FILE TEST (default lines)
show() {
	echo "$1"
	out=$(${4:-lines} "$2" "$3")
	if [ -n "$out" ]; then
		echo "$out"
	else
		echo "    (no output: see $2)"
	fi
}

echo "The series at work on the emulated Haswell (QEMU, two threads of one"
echo "core), unmodified perf on /pmu-loop, a static loop of 1,000,000 loads:"
show "Hardware events count exactly (perf stat, CPU 0):" "$haswell" 1
show "Next to an idle sibling, two corrupting and two other events all
run all the time on four counters, exactly (CPU 0):" "$haswell" 14
show "CPU 0's four corrupting events: all four with the sibling offline,
idle or the switch off; half the counters while the sibling counts:" \
	"$haswell" 7
show "A corrupting event next to a sibling that holds every counter with
other events gets counters:" "$haswell" 8
show "A sibling's pinned group of four keeps its counters next to a
corrupting event (kselftest ht_bug_workaround):" "$haswell" \
	pinned_beside_corrupting klines
show "Flexible groups of N - 1, 2 and 1 events: the group of one runs past
the group of two that does not fit (kselftest flexible_groups):" \
	"$haswell" past_a_group_that_does_not_fit klines
echo "The erratum, QEMU's x-pmu-ht-erratum leak and loss models: r81d0:u on"
echo "CPU 0, the sibling CPU 1 counting r00c5 (nothing else in the model):"
echo "    model  ht_bug_workaround  CPU 1            r81d0:u (CPU 0)  CPU 1"
cat "$haswell" "$loss" | tr -d '\r\000' |
	sed -n 's/^# erratum: \([a-z]* [01] [^ ]* [0-9]* [0-9]*\)$/\1/p' |
	awk '!seen[$0]++' |
	while read -r model ht ev main sib; do
		printf '    %-5s  %-17s  %-15s  %15s  %5s\n' "$model" "$ht" "$ev" "$main" "$sib"
	done
show "PEBS on the emulated Skylake (format 3), perf record -e instructions:upp
-c 100000, pinned: one record per period, large PEBS (no PMI):" "$skylake" 1
show "Large PEBS in frequency mode at the default limits: samples at the
rate asked, no PMI a sample (kselftest large_pebs):" "$skylake" \
	freq_without_pmis klines
show "A full PEBS buffer: every period a sample or a record reported lost,
and why (kselftest large_pebs):" "$skylake" full_buffer_accounted klines
echo "More: README (what each patch changes, the tests that show it),"
echo "tools/testing/qemu-pmu/README (the emulated PMU), series/cover/."
