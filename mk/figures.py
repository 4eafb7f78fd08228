#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The figures of the counter assignment in tools/testing/x86-perf-sched/README,
from the commands.

Usage: mk/figures.py --check|--write README CHECK_LOG BENCH_OUT

CHECK_LOG is the TAP of tools/testing/x86-perf-sched's check (the oracle
tests), BENCH_OUT what its bench target printed. The text between the
README lines BEGIN and END below is made from them: --write puts it there,
--check exits 1 and shows the difference when the README says something
else. make check-fast runs --check, make figures --write. The prose
around the numbers is fixed; where a number would make it false (the
matcher no longer cheaper from two events on, say), the script stops and
says so instead. The bench's figures (instructions, stack depths) are
those of the compiler the text names: built with another, --check
compares the oracle and moves figures only, and says so.
"""
import difflib
import os
import re
import subprocess
import sys

BEGIN = '  [From here to its end mark, make check-fast checks this text against'
END = '  [End of the text make check-fast checks.]'


def fail(msg):
    sys.exit('figures: ' + msg)


def num(n):
    return f'{n:,}'


def oracle(tap):
    """name -> (instances, greedy misses) of the oracle test lines."""
    res = {}
    pat = re.compile(r'^ok \d+ - (.*): (\d+) instances, \d+ feasible, '
                     r'(\d+) failures \(greedy misses (\d+)\)$')
    for line in tap:
        if line.startswith('not ok '):
            fail(f'a test of the harness failed: "{line}"')
        m = pat.match(line)
        if m:
            if m.group(3) != '0':
                fail(f'oracle failures in "{line}"')
            res[m.group(1)] = (int(m.group(2)), int(m.group(4)))
    return res


def moves(tap):
    """name -> dict of the fewest-moves test lines."""
    res = {}
    for line in tap:
        m = re.match(r'^ok \d+ - moves, exhaustive, (.*?): (\d+) additions, (.*)$',
                     line)
        if not m:
            continue
        d = {'additions': int(m.group(2))}
        p = re.search(r'\(([0-9.]+)%\) move more .*at most (\d+); 0 failures$',
                      m.group(3))
        if p:
            d['pct'] = p.group(1)
            d['most'] = int(p.group(2))
        elif not m.group(3).endswith('fewest moves every time, 0 failures'):
            fail(f'moves: "{line}"')
        res[m.group(1)] = d
    return res


def bench(out):
    """case -> (greedy, matcher instructions); and the other lines."""
    rows = {}
    for line in out:
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        # 12 cells with make bench OLD=...: the old matcher's columns
        if line.startswith('| ') and len(cells) in (9, 12) and cells[2].isdigit():
            rows[cells[0]] = (int(cells[2]), int(cells[3]), int(cells[1]))
    stack = {}
    for line in out:
        m = re.match(r'^stack, (-f[a-z-]+)(, no pairs)?: (\d+) bytes', line)
        if m:
            stack[(m.group(1), bool(m.group(2)))] = int(m.group(3))
    moved = {}
    for line in out:
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if line.startswith('| ') and len(cells) == 8 and cells[1].isdigit():
            moved[cells[0]] = (cells[4], cells[7])
    return rows, stack, moved


def gcc_major():
    """The compiler the harness builds with (its Makefile: CC ?= gcc)."""
    cc = os.environ.get('CC', 'gcc')
    return subprocess.run([cc, '-dumpversion'], capture_output=True, text=True,
                          check=True).stdout.strip().split('.')[0]


def get(d, key, what):
    if key not in d:
        fail(f'{what}: no "{key}" in the output')
    return d[key]


def ratio(r):
    return r[1] / r[0]


def text(tap, out, with_bench=True):
    """The text; without the bench's figures (which depend on the compiler)
    unless with_bench."""
    o = oracle(tap)
    mv = moves(tap)
    t = []
    t.append('  oracle tests (0 failures each)              instances  greedy misses')
    for label, key in [
            ('every tuple of up to 4 masks, 4 counters', 'exhaustive, 4 generic counters'),
            ('  with gpmax 0-3', 'exhaustive, 4 generic counters, gpmax 0-3'),
            ('  with pair events', 'exhaustive, 4 generic counters, pairs, gpmax 1-4'),
            ('  2 generic + fixed + metric counters',
             'exhaustive, 2 generic + fixed + metric, gpmax 0-2'),
            ('AMD F15h, up to 6 events', 'AMD F15h constraints, up to 6 events'),
            ('random: up to 8 generic + 4 fixed + metric,\n'
             '  gpmax, pairs, random previous counters', 'random')]:
        n, miss = get(o, key, 'oracle')
        lines = label.split('\n')
        t.extend('  ' + x for x in lines[:-1])
        t.append(f'  {lines[-1]:<40}{num(n):>13}{num(miss):>8}')
    a = get(mv, '4 generic counters, gpmax 1-4, in scope', 'moves')
    b = get(mv, '2 generic + fixed + metric, gpmax 0-2, in scope', 'moves')
    p = get(mv, '4 generic counters, gpmax 1-4, pairs (measured)', 'moves')
    g = get(mv, '2 generic + fixed + metric, gpmax 0-2, gpmax filled (measured)', 'moves')
    two = [get(mv, '4 generic counters, gpmax 1-4, two new events (measured)', 'moves'),
           get(mv, '2 generic + fixed + metric, gpmax 0-2, two new events (measured)',
               'moves')]
    most = max(x['most'] for x in [g] + two)
    t += ['',
          '  Fewest moves: adding one event to running events on distinct counters,',
          '  with no pair events and fewer than gpmax running events on generic',
          '  counters, the matcher moves the fewest running events of any valid',
          f'  assignment (exhaustive: {num(a["additions"])} additions on 4 generic '
          'counters with',
          f'  gpmax 1-4, {num(b["additions"])} on 2 generic + fixed + metric, 0 failures).',
          '  Outside that scope it may move more; of the additions that fit it does',
          f'  in {p["pct"]}% with pairs (by at most {p["most"]}), {g["pct"]}% with gpmax '
          f'filled, {two[0]["pct"]}% and',
          f'  {two[1]["pct"]}% when two events come at once (by at most {most}).']
    if not with_bench:
        return t

    rows, stack, moved = bench(out)
    t += ['',
          f'  bench (instructions per call by callgrind, gcc {gcc_major()}; `make -C',
          '  tools/testing/x86-perf-sched O=... BASE=build/src/linux-source-7.3',
          '  bench`; ns are noisy and not given here)',
          '  case                           n  instr greedy/matcher']
    for label, key in [
            ('1 unconstrained (8+4)', '1 unconstrained'),
            ('8 unconstrained', '8 unconstrained'),
            ('16 unconstrained (8 fit)', '16 unconstrained (overcommitted)'),
            ('thesis 7.2: 0x6 0x8 0x9 0xb', 'HSW XSU, thesis 7.2: 0x6 0x8 0x9 0xb'),
            ('ICL TopDown slots+4 metrics+4', 'ICL TopDown: slots + 4 metrics + 4'),
            ('AMD Zen: 2 pairs + 2', 'AMD Zen: 2 pairs + 2'),
            ('20 x {k,k+1} on 20 counters', '20 x {k,k+1} on 20 counters'),
            ('8 paths at once on 16', '8 paths at once: 8 x {2k,2k+1}, 8 x {2k}'),
            ('searched: 3 pairs + 6 on 8', 'searched: 3 pairs + 6 on 8, fails')]:
        gr, ma, n = get(rows, key, 'bench')
        t.append(f'  {label:<29}{n:>3}  {num(gr) + "/" + num(ma):>12}')

    t += ['',
          '  failing passes (one event too many), instructions, greedy/matcher,',
          '  with prev[] as x86_schedule_events() calls it:']
    failing = [
        ('SPR 20 on 8+4+8 metrics, 2nd ref-cycles', 'SPR: 20 on 8+4+8 metrics, 2nd ref-cycles'),
        ('SPR 20 on 8+4+8 metrics, 9th generic', 'SPR: 20 on 8+4+8 metrics, 9th generic'),
        ('Intel 8+4, gpmax 4: 3 fixed + 5', 'Intel 8+4, gpmax 4 (HT): 3 fixed + 5'),
        ('Intel 8+4, gpmax 4: 2 x 0x1', 'Intel 8+4, gpmax 4 (HT): 2 x 0x1'),
        ('AMD Zen: 2 pairs + 3, gpmax 4', 'AMD Zen: 2 pairs + 3, gpmax 4'),
        ('AMD Zen: 3 pairs + 1, gpmax 3', 'AMD Zen: 3 pairs + 1, gpmax 3'),
        ('AMD Zen: 1 pair + 5, gpmax 5', 'AMD Zen: 1 pair + 5, gpmax 5'),
        ('HSW HT, excl 0-1: 3 fixed + 3 x 0xc',
         'HSW HT, sibling excl 0-1, gpmax 2: 3 fixed + 3 x 0xc'),
        ('thesis 7.2 (HSW): 0xf 0x4 0x4', 'thesis 7.2 (HSW): 0xf 0x4 0x4'),
        ('thesis 7.1 (HSW HT, gpmax 2): 3 x 0xf', 'thesis 7.1 (HSW HT, gpmax 2): 3 x 0xf')]
    for label, key in failing:
        gr, ma, _ = get(rows, key + ', prev[]', 'bench')
        t.append(f'  {label:<40}{num(gr) + "/" + num(ma):>15}')
    withprev = max(ratio(get(rows, k + ', prev[]', 'bench')) for _, k in failing)
    plain = sorted(((ratio(get(rows, k, 'bench')), label, get(rows, k, 'bench'))
                    for label, k in failing), reverse=True)
    top, second = plain[0], plain[1]
    short = top[1].split(': ')[-1]
    t += [f'  At most {withprev:.2f}x the greedy. Without prev[] (perf_assign_events():',
          f'  validation, uncore) the same rows are at most {second[0]:.2f}x but for '
          f'{short}',
          f'  at {top[0]:.2f}x ({num(top[2][0])}/{num(top[2][1])}): the count is exact '
          'there and the greedy stops at',
          '  its first failure.']

    unc = [get(rows, f'{k} unconstrained', 'bench') for k in range(1, 9)]
    if any(ratio(r) >= 1 for r in unc[1:]):
        fail('the matcher is no longer cheaper than the greedy from two '
             'unconstrained events on: rewrite the prose')
    if max(ratio(r) for r in unc) != ratio(unc[0]):
        fail('one event is no longer the worst unconstrained case: rewrite the prose')
    sp = {k: get(stack, k, 'stack') for k in [
        ('-fno-stack-protector', True), ('-fno-stack-protector', False),
        ('-fstack-protector-strong', True), ('-fstack-protector-strong', False)]}
    names = [('Intel 8+4', 'Intel, 8 generic + 4 fixed'),
             ('Intel 4+3', 'Intel, 4 generic + 3 fixed'),
             ('AMD F15h', 'AMD F15h, 6 counters'),
             ('AMD Zen', 'AMD Zen, 6 counters, pairs')]
    mvd = [f'{label} {"/".join(get(moved, key, "moved events"))}' for label, key in names]
    t += ['',
          f'  Unconstrained lists: at most {ratio(unc[0]):.2f}x the greedy (one event), '
          'fewer',
          f'  instructions from two events on. Stack (-fstack-usage, gcc {gcc_major()},',
          '  x86_64, user-space harness): '
          f'{sp[("-fno-stack-protector", True)]} bytes deepest without pairs, '
          f'{sp[("-fno-stack-protector", False)]}',
          f'  with; {sp[("-fstack-protector-strong", True)]}/'
          f'{sp[("-fstack-protector-strong", False)]} with -fstack-protector-strong. '
          'Running events moved per',
          f'  event added (greedy/matcher): {mvd[0]}, {mvd[1]},',
          f'  {mvd[2]}, {mvd[3]}.']
    return t


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ('--check', '--write'):
        sys.exit(__doc__.strip().split('\n\n')[1])
    mode, readme, check_log, bench_out = sys.argv[1:]
    tap = open(check_log).read().splitlines()
    out = open(bench_out).read().splitlines()
    lines = open(readme).read().split('\n')
    try:
        b = next(i for i, x in enumerate(lines) if x.startswith(BEGIN))
        e = next(i for i, x in enumerate(lines) if x == END)
    except StopIteration:
        fail(f'{readme} has no begin or end mark')
    # The begin mark runs on to its first line that ends in "]".
    while b < e and not lines[b].endswith(']'):
        b += 1
    if b >= e:
        fail(f'{readme}: the begin mark does not end in "]" before the end mark')
    old = lines[b + 1:e]
    made = next((m.group(1) for m in
                 (re.search(r'by callgrind, gcc (\d+);', x) for x in old) if m),
                None)
    if mode == '--check' and made and made != gcc_major():
        # Instruction counts and stack depths are those of one compiler.
        print(f'figures: the bench figures are gcc {made}\'s, this machine '
              f'builds with gcc {gcc_major()}: the oracle and moves figures only')
        new = text(tap, out, False)
        old = old[:len(new)]
    else:
        new = text(tap, out)
    if old == new:
        return 0
    if mode == '--check':
        sys.stdout.writelines(difflib.unified_diff(
            [x + '\n' for x in old], [x + '\n' for x in new],
            readme + ' (as it is)', 'as the commands say'))
        return 1
    lines[b + 1:e] = new
    open(readme, 'w').write('\n'.join(lines))
    print(f'figures: {readme} rewritten')
    return 0


if __name__ == '__main__':
    sys.exit(main())
