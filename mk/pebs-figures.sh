#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Frequency-mode PEBS, 7.3 as shipped against the series, in the guest:
# the emulated Skylake (mk/boot-pmu.sh skylake, TESTS=figures) booted
# with 7.3's kernel, then with the series' kernel, both with the
# kernel's 64 KiB PEBS buffer and its default settings. Each boot runs
# mk/pebs-figures-tests.sh: perf record -F 1000, 4000 and 10000 of
# instructions:upp on 300,000,004 user instructions. Prints per boot and
# frequency: the samples, the PMIs and the PMIs per 1000 samples, the
# loop's switches out, the records per drain, the throttles and lost
# records perf reports, and the samples per second of the run, from the
# first sample's time to the last, against the frequency asked for (the
# emulator's time is the host's: no hardware meaning; counts are what
# compare). A drain comes with a PMI, a tick (the tick stops and starts
# a frequency event: a drain with large PEBS) or a switch out: the
# records per drain are estimated as samples / (PMIs + ticks + switches),
# the ticks those of the sampled span at the kernel's HZ. Then, per boot,
# the samples and the records reported lost of /pmu-sleep at -c 6 (its
# first overflow on a nanosleep, the record due as the task sleeps,
# mk/pebs-tests.sh tests 16-17), and how many of its 50 nanosleeps slept
# (mk/pmu-sleep-model.py gives the samples). Then, per boot, a full buffer:
# PEBS on the kernel's instructions of CPU 1 at periods of 50 and 100
# beside a busy loop, the samples, their span and the kernel's
# LOST_SAMPLES reports (series/cover/pebs-reload). And a
# start-up table: per boot and frequency, the samples of /pmu-long's
# first 100 ms, of the short /pmu-loop and of the mostly sleeping
# /pmu-nap, each beside the samples due, F times the program's CPU time
# (perf stat -e task-clock, without perf record: mk/pebs-figures-tests.sh).
# The guests run at the kernel's sample rate limit, perf's CPU time guard
# off (the reason is there), but for a last run per boot: perf record -F
# 10000 of /pmu-long with the guard at its default, its samples and PMIs
# and the sample rate limit the guard leaves.
# Usage: mk/pebs-figures.sh QEMU VANILLA_BZIMAGE BZIMAGE INITRAMFS OUTDIR
set -eu
qemu=$1 vanilla=$2 kernel=$3 initrd=$4 out=$5

hz=$(sed -n 's/^CONFIG_HZ=//p' "$(dirname "$kernel")/../../../.config")
rm -rf "$out"
mkdir -p "$out"
for boot in "7.3 $vanilla" "series $kernel"; do
	# shellcheck disable=SC2086 # the fields of the boot
	set -- $boot
	name=$1
	echo "pebs-figures: boot $1"
	if ! TESTS=figures mk/boot-pmu.sh "$qemu" \
	     "$2" "$initrd" "$out/$name" skylake > "$out/$name.log" 2>&1; then
		cat "$out/$name.log"
		echo "pebs-figures: the boot of $1 failed" >&2
		exit 1
	fi
	if grep -a -q -e '^figures .* failed' -e '^startup .*failed' \
	     "$out/$name/tests.log"; then
		cat "$out/$name/tests.log"
		echo "pebs-figures: a run of $1 failed" >&2
		exit 1
	fi
	grep -a '^figures ' "$out/$name/tests.log" |
		sed "s/^figures /$1 /" >> "$out/runs"
	grep -a '^startup ' "$out/$name/tests.log" |
		sed "s/^startup /$1 /" >> "$out/startup"
	grep -a '^cpu ' "$out/$name/tests.log" |
		sed "s/^cpu /$1 /" >> "$out/cpu"
	grep -a '^due ' "$out/$name/tests.log" |
		sed "s/^due /$1 /" >> "$out/due"
	grep -a '^full ' "$out/$name/tests.log" |
		sed "s/^full /$1 /" >> "$out/full"
	grep -a '^guard ' "$out/$name/tests.log" |
		sed "s/^guard /$1 /" >> "$out/guard"
done

echo "kernel      F  samples   PMIs  PMIs/1000  switches " \
	"rec/drain  throttles  lost  samples/s    /F"
awk -v hz="$hz" '{
	n = $3; s = $9 - $8; drains = $4 + $5 + s * hz
	printf "%-6s %6d %8d %6d %10.1f %9d %10.1f %10d %5d %10.0f %5.2f\n",
		$1, $2, n, $4, n ? 1000 * $4 / n : 0, $5,
		drains ? n / drains : 0, $6, $7, (s > 0 ? (n - 1) / s : 0),
		(s > 0 ? (n - 1) / s / $2 : 0)
}' "$out/runs"

echo
echo "kernel      F  start-up: samples of /pmu-long's first 100 ms" \
	"(F / 10 due), of /pmu-loop, of /pmu-nap (F x their CPU time due)"
awk 'FILENAME ~ /runs$/ { early[$1 " " $2] = $10; next }
FILENAME ~ /cpu$/ { loop[$1] = $2; nap[$1] = $3; next }
{
	printf "%-6s %6d %21d %14d (%5.0f) %9d (%5.0f)\n", $1, $2,
		early[$1 " " $2], $3, $2 * loop[$1] / 1000, $4,
		$2 * nap[$1] / 1000
}' "$out/runs" "$out/cpu" "$out/startup"

echo
echo "kernel  /pmu-sleep -c 6, overflows on its nanosleeps:" \
	"samples  lost  slept"
awk '{ printf "%-6s %45d %5d %6d\n", $1, $2, $3, $4 }' "$out/due"

echo
echo "kernel  kernel PEBS on CPU 1, -c P, sleep 1: P  samples" \
	"first last  LOST_SAMPLES reports (count x records lost)"
cat "$out/full"

echo
echo "kernel  -F 10000 of /pmu-long, perf_cpu_time_max_percent at its" \
	"default (25): samples  PMIs  perf_event_max_sample_rate after"
awk '{ printf "%-6s %54d %5d %8d\n", $1, $2, $3, $4 }' "$out/guard"
