#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What perf record -e instructions:upp -c 6 of /pmu-sleep gives when some
of its 50 nanosleeps do not sleep (mk/pebs-tests.sh, tests 16-17;
mk/pmu-loop.S).

Usage: mk/pmu-sleep-model.py [--keep] [--first] [--vanilla] [N,M,...]...

Each argument lists the nanosleeps (1 to 50) that return without the task
leaving the CPU (an empty argument: all sleep). Prints, per argument, the
samples, and the instructions of the records written. The model is the
emulated PEBS as QEMU's README gives it, and the kernel as the series
makes it (patch 11, pebs-due), or as 7.3 has it (--vanilla):
 - the counter, written -6, counts each user instruction; the one that
   brings it to 0 arms the assist, and the next writes the record and
   reloads -6 without being counted (P + 1 events a record), or counted
   in the reloaded counter with --first (x-pmu-pebs-reload-first=on);
 - a nanosleep that sleeps stops and restarts the event: the start writes
   -left, at least -2 (x86_perf_event_set_period()); left is what the
   counter lacked at the stop, and for a counter read at 0, its record
   due, 1 (intel_pmu_pebs_keep_due()), or 6 with --vanilla;
 - the write ends an armed assist (x-pmu-pebs-write-disarm=on), or with
   --keep does not, and the assist comes at the next instruction.
"""
import sys

PERIOD = 6
ITERS = 50


def run(nosleep, keep, first, vanilla):
    """The instructions of the records written"""
    prog = ['nop', 'mov'] + ['mov', 'lea', 'xor', 'syscall', 'dec',
                             'jnz'] * ITERS + ['mov', 'xor', 'exit']
    counter, armed, samples, sleep = -PERIOD, False, [], 0
    for insn in prog:
        if armed:
            samples.append(insn)
            counter, armed = -PERIOD + first, False
        else:
            counter += 1
            armed = counter == 0
        if insn == 'syscall':
            sleep += 1
            if sleep in nosleep:
                continue
            left = -counter
            if counter == 0:
                left = PERIOD if vanilla else 1
            counter = -max(left, 2)
            armed = armed and keep
    return samples


opts = {o for o in sys.argv[1:] if o.startswith('--')}
for arg in [a for a in sys.argv[1:] if not a.startswith('--')] or ['']:
    nosleep = {int(n) for n in arg.split(',') if n}
    samples = run(nosleep, '--keep' in opts, int('--first' in opts),
                  '--vanilla' in opts)
    print(f'not sleeping: {arg or "none"}: {len(samples)} samples: '
          f'{" ".join(samples)}')
