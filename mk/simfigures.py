#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The scheduling simulator's tables in the READMEs, from its commands.

Usage: mk/simfigures.py --check|--write SCHED_SIM OUTDIR [JOBS]

SCHED_SIM is tools/testing/x86-perf-sched's simulator built against the
base (make -C tools/testing/x86-perf-sched sim). Each table below is a
list of sched_sim commands and the way their output is laid out; the
text between a README's lines "[simfigures NAME: ...]" and "[end of
simfigures NAME]" is made from them. --write puts it there, --check
exits 1 and shows the difference when a README says something else.
The outputs are kept in OUTDIR (one file per command). make check-fast
runs --check, make figures --write. Every run is seeded: the same
simulator on the same base prints the same figures on any machine.
"""
import concurrent.futures
import difflib
import hashlib
import os
import re
import subprocess
import sys

TOOL_README = 'tools/testing/x86-perf-sched/README'
TOP_README = 'README'


def fail(msg):
    sys.exit('simfigures: ' + msg)


def num(n):
    return f'{int(n):,}'


class Run:
    """One sched_sim command's output, parsed."""

    def __init__(self, args, out):
        self.args = args
        self.lines = out.splitlines()
        self.vals = {}
        self.more = self.higher = None
        self.n = None
        for line in self.lines[1:]:
            m = re.match(r'^\w+: (\d+) (instances|sets) ', line)
            if m:
                self.n = int(m.group(1))
                continue
            m = re.search(r'schedules more events in one pass: (\d+) '
                          r'\(([\d.]+)%\), fewer: (\d+)$', line)
            if m:
                self.more = m.groups()
                continue
            m = re.search(r'mean scaling factor higher: (\d+) \(([\d.]+)%\), '
                          r'lower: (\d+) \(([\d.]+)%\)$', line)
            if m:
                self.higher = m.groups()
                continue
            m = re.match(r'^\s*([A-Za-z][^:]*?)\s{2,}(\S.*)$', line)
            if m:
                self.vals[m.group(1).rstrip(',')] = m.group(2).split()

    def get(self, label):
        if label not in self.vals:
            fail(f'"{label}" not in the output of sched_sim {self.args}')
        return self.vals[label]

    def cols(self, label):
        """The two columns of a line (greedy/matcher or 7.3/series)."""
        v = [x for x in self.get(label) if not x.startswith('(')]
        return v[-2], v[-1]

    def scaling(self):
        return self.cols('mean scaling factor')

    def gain(self):
        """The "(+x%)" of the events line."""
        return self.get('events scheduled in one pass')[-1].strip('()')


def place(label, *cells):
    """LABEL, then each (text, column) ending at that column (at least one
    space after what comes before it)."""
    line = label
    for text, end in cells:
        text = str(text)
        line += ' ' * max(1, end - len(line) - len(text)) + text
    return line


def pct(p):
    return f'({p}%)'


# The tables: NAME -> (list of argument strings, formatter). A formatter
# gets the runs in the order of its list.

def t_exhaustive(r):
    e4, e4k, e5 = r
    s = ['                           K=N=4 greedy  matcher   K=N=5 greedy   matcher',
         place('  instances', (num(e4.n), 35), (num(e5.n), 62))]

    def row(label, key, fmt=num):
        a, b = e4.cols(key) if key else e4.scaling(), e5.cols(key) if key else e5.scaling()
        s.append(place(label, (fmt(a[0]), 35), (fmt(a[1]), 44), (fmt(b[0]), 60),
                       (fmt(b[1]), 71)))
    row('  (a) full in one pass', 'scheduled fully in one pass')
    row('', 'share of the instances', str)
    row('  events in one pass', 'events scheduled in one pass')
    s += [place('  (b) matcher more', (num(e4.more[0]), 35), (pct(e4.more[1]), 44),
                (num(e5.more[0]), 60), (pct(e5.more[1]), 69)),
          place('      matcher fewer', (num(e4.more[2]), 35), (num(e5.more[2]), 60))]
    row('  mean scaling, 12 ticks', None, str)
    s.append(place('  with -k 0: (b)', (num(e4k.more[0]), 35),
                   (pct(e4k.more[1]) + f', fewer {num(e4k.more[2])}', 53)))
    return s


RANDOM = [('gp4', 8, ''), ('gp4', 8, '-k 0'), ('gp8', 8, ''), ('gp8', 12, ''),
          ('gp8', 12, '-k 0'), ('zen', 6, ''), ('zen', 8, ''), ('zen', 6, '-T'),
          ('hsw', 8, '-T'), ('hsw', 8, '-T -P'), ('skl', 12, '-T'),
          ('icl', 12, '-T'), ('spr', 12, '-T')]


def t_random(r):
    s = ['  PMU   K  options  full greedy/matcher  matcher more  mean scaling g/m']
    for (pmu, k, opt), x in zip(RANDOM, r):
        f = x.cols('share of the instances')
        c = x.scaling()
        line = place(f'  {pmu:<4}{k:>3}  {opt}', (f[0], 25)) + '/' + f[1]
        s.append(place(line, (x.more[1] + '%', 47), (c[0], 61)) + '/' + c[1])
    return s


def ht(x, i):
    h0, h1 = x.cols('HT0'), x.cols('HT1')
    return h0[i][:-1] + '/' + h1[i][:-1]


def xsu_rows(runs, s):
    """The rows of -m xsu runs side by side, two columns each."""
    ends = [39 + 10 * i for i in range(2 * len(runs))]
    keys = [('  corrupted event-ticks', 'corrupted event-iterations'),
            ('  ticks over the half rule', 'thread-iterations over half rule'),
            ('  fast path over gpmax', 'fast-path windows over gpmax'),
            ('  stale XSU states', 'stale XSU states after a pass')]
    s.append(place('  mean scaling factor',
                   *zip([c for x in runs for c in x.scaling()], ends)))
    s.append(place('    HT0 / HT1', *zip([ht(x, i) for x in runs for i in (0, 1)],
                                          [39 + 12 * i for i in range(2 * len(runs))])))
    for label, key in keys:
        s.append(place(label, *zip([num(c) for x in runs for c in x.cols(key)], ends)))


def xsu_table(a, b, head):
    s = [head, '                                 greedy   matcher    greedy   matcher']
    xsu_rows((a, b), s)
    s.append(place('  matcher higher / lower', (f'{num(a.higher[0])} / {num(a.higher[2])}', 39),
                   (f'{num(b.higher[0])} / {num(b.higher[2])}', 63)))
    return s


def t_xsu(r):
    return xsu_table(r[0], r[1], '                                     series            7.3 (-P)')


def t_xsu_h(r):
    return xsu_table(r[0], r[1], '                                  series -H           7.3 -H -P')


def t_v_exhaustive(r):
    e4, e5 = r
    s = ['                            K=N=4  7.3   series   K=N=5  7.3      series',
         place('  instances', (num(e4.n), 37), (num(e5.n), 65))]

    def row(label, a, b, fmt=num):
        s.append(place(label, (fmt(a[0]), 36), (fmt(a[1]), 45), (fmt(b[0]), 61),
                       (fmt(b[1]), 73)))

    def share(label, x4, x5, i):
        s.append(place(label, (num(x4[0]), 36), (pct(x4[1]), 45), (num(x5[0]), 61),
                       (pct(x5[1]), 70)) if i is None else
                 place(label, (num(x4[i]), 36), (num(x5[i]), 61)))
    row('  full in one pass', e4.cols('scheduled fully in one pass'),
        e5.cols('scheduled fully in one pass'))
    row('', e4.cols('share of the instances'), e5.cols('share of the instances'), str)
    row('  events in one pass', e4.cols('events scheduled in one pass'),
        e5.cols('events scheduled in one pass'))
    share('  series schedules more', e4.more, e5.more, None)
    share('  series schedules fewer', e4.more, e5.more, 2)
    row('  mean scaling, 12 ticks', e4.scaling(), e5.scaling(), str)
    share('  series\' scaling higher', e4.higher, e5.higher, None)
    share('                  lower', e4.higher, e5.higher, 2)
    return s


V_RANDOM = [('gp4', 8, ''), ('gp8', 8, ''), ('gp8', 12, ''), ('zen', 6, ''),
            ('zen', 8, ''), ('snb', 8, '-T'), ('ivb', 8, '-T'), ('hsw', 8, '-T'),
            ('skl', 12, '-T'), ('icl', 12, '-T'), ('spr', 12, '-T'), ('zen', 6, '-T'),
            ('zen', 8, '-T')]


def series_never_fewer(runs):
    for x in runs:
        if x.more[2] != '0':
            fail(f'sched_sim {x.args}: the series schedules fewer: rewrite the prose')


def t_v_random(r):
    s = ['                 full in one    events in  series    mean scaling  series\'',
         '  PMU   K        7.3/series    one pass   more      7.3/series   scaling',
         '                                (series)   (fewer 0)               lower']
    series_never_fewer(r)
    for (pmu, k, opt), x in zip(V_RANDOM, r):
        f = x.cols('share of the instances')
        c = x.scaling()
        low = '0' if x.higher[2] == '0' else x.higher[3] + '%'
        line = place(f'  {pmu:<4}{k:>3}  {opt}', (f[0][:-1], 21)) + '/' + f'{f[1]:>6}'
        line = place(line, (x.gain(), 39), (x.more[1] + '%', 47), (c[0][:-1], 54))
        s.append(place(line + '/' + c[1], (low, 69)))
    return s


def t_v_xsu(r):
    x = r[0]
    s = ['                                  7.3      series']
    xsu_rows((x,), s)
    s.append(place('  series higher / lower', (f'{num(x.higher[0])} / {num(x.higher[2])}',
                                                41)))
    return s


# -j: (PMU, K, C, options, the -j runs: J, or None for a "-" cell); the
# first column stops at the first failure, the last walks the list (-k K).
BOUND = [('gp4', 8, 100000, '', [2, 4, 8, None]),
         ('gp8', 12, 100000, '', [None, 4, 8, None]),
         ('gp4', 24, 20000, '', [2, 4, 8, 16]),
         ('gp8', 24, 20000, '', [2, 4, 8, 16]),
         ('hsw', 8, 100000, '-T', [None, 4, 8, None]),
         ('skl', 12, 100000, '-T', [None, 4, 8, None]),
         ('spr', 12, 100000, '-T', [None, 4, 8, None]),
         ('zen', 8, 100000, '-T', [None, 4, 8, None])]


def bound_args():
    a = []
    for pmu, k, c, opt, js in BOUND:
        base = f'-m random -c {c} -p {pmu} -K {k} {opt}'.strip()
        a.append(base)
        a += [f'{base} -j {j}' for j in js if j]
        a.append(f'{base} -k {k}')
    return a


def t_bound(r):
    s = ['  PMU   K     C        stop    -j 2    -j 4    -j 8   -j 16   whole']
    i = 0
    for pmu, k, c, opt, js in BOUND:
        cells = [r[i].scaling()[0]]
        i += 1
        for j in js:
            if j:
                cells.append(r[i].scaling()[0])
                i += 1
            else:
                cells.append('-')
        cells.append(r[i].scaling()[0])
        i += 1
        s.append(place(f'  {pmu:<4}{k:>3}{c:>8} {opt}',
                       *zip(cells, range(27, 75, 8))))
    return s


RATES = [('gp4', 8, 50, 12, ''), ('gp4', 8, 50, 100, ''), ('gp4', 8, 50, 1000, ''),
         ('gp4', 8, 50, 10000, '-c 1000'), ('gp4', 8, 10, 1000, ''),
         ('gp4', 8, 200, 1000, ''), ('gp4', 16, 50, 1000, ''), ('gp8', 12, 50, 1000, ''),
         ('gp8', 16, 50, 1000, '')]


def rate_row(x, label):
    """MSE and ratio to round-robin's, scaled and interpolated (no ratio
    when round-robin's MSE is 0)."""
    v = x.get(label)
    if len(v) == 2:
        return v[0], '0', v[1], '0'
    return v[0], v[1].rstrip('x'), v[2], v[3].rstrip('x')


def t_rates(r):
    s = ['  PMU   K  -R   -n      round-robin  rate-of-change   roc/rr']
    for (pmu, k, rr, n, opt), x in zip(RATES, r):
        a, b = rate_row(x, 'round-robin'), rate_row(x, 'rate-of-change')
        line = place(f'  {pmu:<4}{k:>3}  {rr}', (n, 21), (a[0], 34), (b[0], 48), (b[1], 59))
        s.append(line + (f'  ({opt})' if opt else ''))
    return s


ERRORS = [('gp4', 8, 'const', ''), ('gp4', 8, 'square', ''), ('gp4', 8, 'mixed', ''),
          ('gp4', 8, 'phase:0', ''), ('gp4', 8, 'phase', '-E'),
          ('gp4', 16, 'square', ''), ('gp4', 16, 'mixed', ''),
          ('gp4', 16, 'phase:0', ''), ('gp4', 16, 'phase', '-E'),
          ('gp8', 12, 'square', ''), ('gp8', 12, 'mixed', ''),
          ('gp8', 12, 'phase:0', ''), ('gp8', 12, 'phase', '-E')]
TICKS = [(12, 'mixed'), (12, 'phase'), (100, 'mixed'), (100, 'phase'),
         (10000, 'mixed'), (10000, 'phase')]


def error_args():
    a = [f'-m rates -p {p} -K {k} -n 1000 -c 2000 -W {w} {e}'.strip()
         for p, k, w, e in ERRORS]
    return a + [f'-m rates -p gp4 -K 8 -n {n} -c {200 if n == 10000 else 2000} -W {w} -E'
                for n, w in TICKS]


def error_line(label, x):
    """round-robin's MSE, then each estimate's as a multiple of it."""
    a, b, c = (rate_row(x, k) for k in ('round-robin', 'rate-of-change', 'roc-paper'))
    if not float(a[0]):
        if any(float(v) for v in (a[0], a[2], b[0], b[2], c[0], c[2])):
            fail(f'sched_sim {x.args}: round-robin exact, another estimate not')
        return place(label + '0', *zip(['0'] * 5, (32, 38, 44, 51, 58)))
    cells = [f'{float(v):.2f}' if float(v) < 40 else f'{float(v):.0f}'
             for v in (a[3], b[1], b[3], c[1], c[3])]
    return place(label + a[0], *zip(cells, (32, 38, 44, 51, 58)))


def t_errors(r):
    s = ['                     rr       rr   roc   roc  paper  paper',
         '  PMU  K  LOAD       MSE      -I          -I            -I']
    for (pmu, k, w, _), x in zip(ERRORS, r):
        s.append(error_line(f'  {pmu}{k:>3}  {w:<8}', x))
    s += ['', '  ticks (gp4 8, -E; -n 10000 with -c 200)']
    for (n, w), x in zip(TICKS, r[len(ERRORS):]):
        s.append(error_line(f'  {n:<8}{w:<8}', x))
    return s


def t_summary(r):
    """The top README's digest of the runs of 1, 2, 3 and 8."""
    e4, g8, g12, zen, xs, xp, v4, v5 = r[:8]
    vr = dict(zip([f'{p} {k} {o}'.strip() for p, k, o in V_RANDOM], r[8:]))
    vx = r[8 + len(V_RANDOM)]
    series_never_fewer([v4, v5] + list(vr.values()))
    if e4.more[2] != '0':
        fail('the matcher schedules fewer than the greedy: rewrite the prose')
    full, f = e4.cols('scheduled fully in one pass'), e4.cols('share of the instances')
    corr = xp.cols('corrupted event-iterations')
    if xs.cols('corrupted event-iterations') != ('0', '0'):
        fail('the series corrupts: rewrite the prose')

    def sc(x):
        return f'{x.scaling()[0]} -> {x.scaling()[1]}'
    out = ['  exhaustive, every tuple of 4 non-zero masks on 4 counters '
           f'({num(e4.n)}):',
           f'    scheduled fully in one pass: greedy {num(full[0])} ({f[0]}), '
           f'matcher {num(full[1])}',
           f'    ({f[1]}); matcher schedules more in {num(e4.more[0])} '
           f'({e4.more[1]}%), fewer in none',
           '  random, 100,000 instances: 8 generic, 8 events: matcher more in',
           f'    {g8.more[1]}%, mean scaling {sc(g8)}; 12 events: {sc(g12)};',
           f'    AMD Zen 6 counters, 6 events: {sc(zen)}. With the real',
           '    constraint tables (-T) both assigners give the same figures.',
           '  two sibling threads with the XSU constraints (hsw, 10,000 pairs of',
           '    sibling lists of 1-6 events, 100 ticks each):',
           f'    mean scaling greedy {xs.scaling()[0]}, matcher {xs.scaling()[1]}, '
           'nothing corrupted;',
           f'    7.3 as it is (-P): {xp.scaling()[0]} / {xp.scaling()[1]}, with '
           f'{num(corr[0])} / {num(corr[1])}',
           '    corrupted event-ticks',
           '  what a user sees (-V): 7.3 (greedy, the pass stops at the first',
           '  failing window, 7.3\'s XSU) against the series (matcher, going on',
           '  past failing windows, at most 2 x generic counters per pass, the',
           '  series\' XSU); the series never schedules fewer events in one pass:']
    for label, x in (('exhaustive K=N=4', v4), (f'K=N=5 ({num(v5.n)})', v5)):
        a = x.cols('share of the instances')
        out += [f'    {label}: full in one pass {a[0]} -> {a[1]},',
                f'      series more in {x.more[1]}%, mean scaling {sc(x)}']
    out.append('    random, 100,000, mean scaling: gp4 8 events ' + sc(vr['gp4 8']) + ';')
    out.append(f'      gp8 12 events {sc(vr["gp8 12"])}; real tables (-T): hsw 8')
    out.append(f'      {sc(vr["hsw 8 -T"])}, skl 12 {sc(vr["skl 12 -T"])}, spr 12')
    out.append(f'      {sc(vr["spr 12 -T"])}, zen 8 (pairs) {sc(vr["zen 8 -T"])}')
    c = vx.cols('corrupted event-iterations')
    out += [f'    sibling threads (hsw): mean scaling {sc(vx)}, corrupted',
            f'      event-ticks {num(c[0])} -> {num(c[1])}']
    return out


def v_random_args():
    return [f'-V -m random -c 100000 -p {p} -K {k} {o}'.strip() for p, k, o in V_RANDOM]


TABLES = {
    'exhaustive': (['-m exhaustive -p gp4 -K 4', '-m exhaustive -p gp4 -K 4 -k 0',
                    '-m exhaustive -p gp5 -K 5'], t_exhaustive),
    'random': ([f'-m random -c 100000 -p {p} -K {k} {o}'.strip() for p, k, o in RANDOM],
               t_random),
    'xsu': (['-m xsu -p hsw -K 6 -n 100', '-m xsu -p hsw -K 6 -n 100 -P'], t_xsu),
    'xsu-H': (['-m xsu -p hsw -K 6 -n 100 -H', '-m xsu -p hsw -K 6 -n 100 -H -P'],
              t_xsu_h),
    'rates': ([f'-m rates -p {p} -K {k} -R {rr} -n {n} {o}'.strip()
               for p, k, rr, n, o in RATES], t_rates),
    'errors': (error_args(), t_errors),
    'V-exhaustive': (['-V -m exhaustive -p gp4 -K 4', '-V -m exhaustive -p gp5 -K 5'],
                     t_v_exhaustive),
    'V-random': (v_random_args(), t_v_random),
    'V-xsu': (['-V -m xsu -p hsw -K 6 -n 100'], t_v_xsu),
    'bound': (bound_args(), t_bound),
    'summary': (['-m exhaustive -p gp4 -K 4', '-m random -c 100000 -p gp8 -K 8',
                 '-m random -c 100000 -p gp8 -K 12',
                 '-m random -c 100000 -p zen -K 6', '-m xsu -p hsw -K 6 -n 100',
                 '-m xsu -p hsw -K 6 -n 100 -P', '-V -m exhaustive -p gp4 -K 4',
                 '-V -m exhaustive -p gp5 -K 5'] + v_random_args() +
                ['-V -m xsu -p hsw -K 6 -n 100'], t_summary),
}
WHERE = {'summary': TOP_README}


def run_all(sim, outdir, jobs):
    """Each distinct command once, JOBS at a time. The outputs are kept in
    OUTDIR under the simulator's and the command's hashes: the simulator
    is deterministic, so a second run with the same binary reads them."""
    os.makedirs(outdir, exist_ok=True)
    cmds = sorted({a for args, _ in TABLES.values() for a in args})
    with open(sim, 'rb') as f:
        simhash = hashlib.sha1(f.read()).hexdigest()[:12]

    def one(a):
        path = os.path.join(outdir, simhash + '-' +
                            hashlib.sha1(a.encode()).hexdigest()[:12] + '.txt')
        if os.path.exists(path):
            with open(path) as f:
                return a, Run(a, f.read())
        p = subprocess.run([sim] + a.split(), capture_output=True, text=True)
        if p.returncode:
            fail(f'sched_sim {a} exited {p.returncode}: {p.stderr.strip()}')
        with open(path + '.tmp', 'w') as f:
            f.write(p.stdout)
        os.rename(path + '.tmp', path)
        return a, Run(a, p.stdout)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        return dict(ex.map(one, cmds))


def blocks(text, name):
    begin = re.compile(r'^ *\[simfigures ' + re.escape(name) + r':.*\]$', re.M)
    end = re.compile(r'^ *\[end of simfigures ' + re.escape(name) + r'\]$', re.M)
    b, e = begin.search(text), end.search(text)
    if not b or not e or e.start() < b.end():
        return None
    return b.end() + 1, e.start()


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in ('--check', '--write'):
        sys.exit(__doc__.strip().split('\n\n')[1])
    mode, sim, outdir = sys.argv[1:4]
    jobs = int(sys.argv[4]) if len(sys.argv) == 5 else os.cpu_count()
    runs = run_all(sim, outdir, jobs)
    files = {}
    for name, (args, fmt) in TABLES.items():
        path = WHERE.get(name, TOOL_README)
        if path not in files:
            with open(path) as f:
                files[path] = f.read()
        text = files[path]
        span = blocks(text, name)
        if span is None:
            fail(f'{path}: no "[simfigures {name}: ...]" ... "[end of simfigures '
                 f'{name}]" lines')
        new = '\n'.join(x.rstrip() for x in fmt([runs[a] for a in args])) + '\n'
        files[path] = text[:span[0]] + new + text[span[1]:]
    bad = 0
    for path, text in files.items():
        with open(path) as f:
            old = f.read()
        if old == text:
            continue
        if mode == '--write':
            with open(path, 'w') as f:
                f.write(text)
            print(f'simfigures: {path} rewritten')
        else:
            bad = 1
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), path, path + ' (made)'))
    if bad:
        print('simfigures: the READMEs differ from what sched_sim prints; '
              'make figures rewrites them')
    sys.exit(bad)


if __name__ == '__main__':
    main()
