#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What perf record -e instructions:upp -c 6 of /pmu-sleep gives when some
of its 50 nanosleeps do not sleep (mk/pebs-tests.sh, tests 17-18; README).

Usage: mk/pmu-sleep-model.py [N,M,...]...

Each argument lists the nanosleeps (1 to 50) that return without the task
leaving the CPU (an empty argument: all sleep). Prints, per argument, the
samples and the records reported lost, and the instructions of the
records written. The model is the emulated PEBS as QEMU's README gives it
and the series' kernel as patches 10 and 38 make it:
 - the counter, written -6, counts each user instruction; the one that
   brings it to 0 arms the assist, and the next writes the record and
   reloads -6 without being counted (P + 1 events a record);
 - a nanosleep that sleeps stops and restarts the event: a counter read
   at 0 is reported lost and written -6 (the drain's restart), and the
   start writes -left, at least -2 (x86_perf_event_set_period());
 - at the exit a counter at 0 is reported lost.
"""
import sys

PERIOD = 6
ITERS = 50


def run(nosleep):
    """The records written (their instructions) and the records lost"""
    prog = ['nop', 'mov'] + ['mov', 'lea', 'xor', 'syscall', 'dec',
                             'jnz'] * ITERS + ['mov', 'xor', 'exit']
    counter, armed, samples, lost, sleep = -PERIOD, False, [], 0, 0
    for insn in prog:
        if armed:
            samples.append(insn)
            counter, armed = -PERIOD, False
        else:
            counter += 1
            armed = counter == 0
        if insn == 'syscall':
            sleep += 1
            if sleep in nosleep:
                continue
            if counter >= 0:
                lost += 1
                counter, armed = -PERIOD, False
            counter = -max(-counter, 2)
        elif insn == 'exit' and counter >= 0:
            lost += 1
    return samples, lost


for arg in sys.argv[1:] or ['']:
    nosleep = {int(n) for n in arg.split(',') if n}
    samples, lost = run(nosleep)
    print(f'not sleeping: {arg or "none"}: {len(samples)} samples, '
          f'{lost} lost: {" ".join(samples)}')
