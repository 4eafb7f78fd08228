#!/usr/bin/env python3
"""Judge the test boots: KUnit (console), kselftest, perf and pmu TAP (tests
log), and the console scanned for kernel reports; first the boot without a
PMU, then, with --haswell CONSOLE TESTS, the boot on the emulated Haswell
(mk/boot-pmu.sh), with --haswell-loss CONSOLE TESTS its short boot with
the erratum's loss model (the pmu tests and the console only), and with
--skylake CONSOLE TESTS the short boot on the emulated Skylake (PEBS: the
boot log's format, the kselftests, of which large_pebs's
full_buffer_accounted must not skip, the pebs tests and the console), and with
--skylake-adaptive CONSOLE TESTS the same with adaptive PEBS, and with
--skylake-unstable CONSOLE TESTS the Skylake with tsc=unstable (the boot
log must say that Linux marked the TSC unstable), and with
--haswell-migrate CONSOLE TESTS and --skylake-migrate CONSOLE TESTS the
migration boots (their tests, the migration's own line and the console
of both QEMUs). Prints a summary, the skipped count, and ends with the
plain line 'N passed, N failed'. Exit 1 on any failure."""
import json
import os
import re
import subprocess
import sys

args = sys.argv[1:]
HASWELL = HASWELL_LOSS = SKYLAKE = SKYLAKE_ADAPTIVE = SKYLAKE_UNSTABLE = None
MIGRATE = {}
for opt in ('--haswell-migrate', '--skylake-migrate'):
    if opt in args:
        i = args.index(opt)
        MIGRATE[opt[2:].replace('-', ' ')] = args[i + 1:i + 3]
        del args[i:i + 3]
if '--skylake-unstable' in args:
    i = args.index('--skylake-unstable')
    SKYLAKE_UNSTABLE = args[i + 1:i + 3]
    del args[i:i + 3]
if '--skylake-adaptive' in args:
    i = args.index('--skylake-adaptive')
    SKYLAKE_ADAPTIVE = args[i + 1:i + 3]
    del args[i:i + 3]
if '--skylake' in args:
    i = args.index('--skylake')
    SKYLAKE = args[i + 1:i + 3]
    del args[i:i + 3]
if '--haswell-loss' in args:
    i = args.index('--haswell-loss')
    HASWELL_LOSS = args[i + 1:i + 3]
    del args[i:i + 3]
if '--haswell' in args:
    i = args.index('--haswell')
    HASWELL = args[i + 1:i + 3]
    del args[i:i + 3]
KUNIT_PY, CONSOLE, TESTS = args[:3]
FAST = args[3] if len(args) > 3 else None

# Kernel reports that fail the run wherever they appear on the console.
REPORT = re.compile(r'(WARNING:|BUG:|UBSAN:|Oops|Kernel panic|kernel BUG at|'
                    r'INFO: |DEBUG_LOCKS_WARN_ON|Call Trace:)')
# The one INFO: line that is no report: nmi_check_duration()'s note that
# an NMI handler ran longer than 1 ms, which every PMI does under TCG with
# KASAN and lockdep (the boot on the emulated Haswell).  It measures wall
# time, and every NMI runs all NMI_LOCAL handlers, so a host preemption of
# the vCPU thread is charged to whichever handler it fell in: the
# perf_event one, or arch_bt's nmi_cpu_backtrace_handler (a CI run).
NMI_SLOW = re.compile(r'INFO: NMI handler \(\w+\) took too long to run')
# KTAP lines are the suites' own words, not kernel reports.
KTAP = re.compile(r'^\s*(ok |not ok |# |KTAP version|TAP version|1\.\.)')

# The lines of a kselftest program's output that say nothing of a failure.
NOTE_QUIET = re.compile(r'^(#\s*)+(RUN|OK|ok |PASSED|Starting|Totals|TAP version|1\.\.|$)')

passed = failed = skipped = 0


def record(ok, skip, what):
    global passed, failed, skipped
    if skip:
        skipped += 1
    elif ok:
        passed += 1
    else:
        failed += 1
        print(f'FAIL: {what}')


def kunit(console, label):
    res = subprocess.run([sys.executable, KUNIT_PY, 'parse', '--json',
                          os.path.abspath(console)],
                         capture_output=True, text=True)
    out = res.stdout
    start = out.find('{')
    if start < 0:
        record(False, False, f'{label}KUnit: no KTAP output on the console')
        return
    data = json.loads(out[start:])
    cases = []

    def walk(group, prefix):
        for t in group.get('test_cases', []):
            cases.append((prefix + t['name'], t['status']))
        for sub in group.get('sub_groups', []):
            walk(sub, prefix + sub['name'] + '.')

    walk(data, '')
    if not cases:
        record(False, False, f'{label}KUnit: no test case ran')
    for name, status in cases:
        record(status == 'PASS', status == 'SKIP',
               f'{label}KUnit {name}: {status}')
    skips = sum(status == 'SKIP' for _, status in cases)
    print(f'{label}KUnit: {len(cases)} cases, {skips} skipped')


def tap_section(lines, name):
    """Count the cases of a TAP section. A kselftest program's own cases
    are nested ('# ok N ...'); they are what is counted, and the program's
    top-level line only where it had none or where it failed anyway. A
    section with a plan ('1..N') must have as many top-level results: a
    test script that stops early (a shell error) prints no 'not ok'."""
    plan = sum(int(p.group(1)) for p in
               (re.match(r'^1\.\.(\d+)$', line) for line in lines) if p)
    top = sum(bool(re.match(r'^(not ok|ok) \d+ ', line)) for line in lines)
    if plan and top != plan:
        record(False, False, f'{name}: {top} results for its plan of {plan}')
    n = 0
    nested = []
    notes = []
    for line in lines:
        m = re.match(r'^# (not ok|ok) \d+ (.*)$', line)
        if m:
            nested.append(m)
            continue
        m = re.match(r'^(not ok|ok) \d+ (.*)$', line)
        if not m:
            # What a failing program said: its assertions, a timeout.
            line = line.replace('\0', '')
            if line.startswith('#') and not NOTE_QUIET.match(line):
                notes.append(line)
            continue
        top_ok = m.group(1) == 'ok'
        if not top_ok or any(c.group(1) != 'ok' for c in nested):
            for note in notes[-12:]:
                print(f'{name}: | {note}')
        notes = []
        for c in nested:
            n += 1
            record(c.group(1) == 'ok', '# SKIP' in c.group(2),
                   f'{name}: {m.group(2)}: {c.group(2)}')
        if not nested or (not top_ok and all(c.group(1) == 'ok' for c in nested)):
            n += 1
            record(top_ok, '# SKIP' in m.group(2), f'{name}: {m.group(2)}')
        nested = []
    if n == 0:
        record(False, False, f'{name}: no test ran')
    print(f'{name}: {n} cases')


def tests_log(tests, label, names):
    try:
        text = open(tests, errors='replace').read()
    except OSError:
        text = ''
    sections, cur = {}, None
    for line in text.splitlines():
        line = line.rstrip('\r')
        if line.startswith('== '):
            cur = line[3:]
            sections[cur] = []
        elif cur:
            sections[cur].append(line)
    record('end' in sections, False, f'{label}boot: the initramfs did not finish')
    for name in names:
        tap_section(sections.get(name, []), label + name)


def console_reports(console, label):
    bad = []
    try:
        lines = open(console, errors='replace').readlines()
    except OSError:
        lines = []
        bad.append('(no console log)')
    for line in lines:
        line = re.sub(r'^\[\s*\d+\.\d+\] ?', '', line)
        if NMI_SLOW.search(line):
            continue
        if not KTAP.match(line) and REPORT.search(line):
            bad.append(line.rstrip())
    for line in bad[:20]:
        print(f'{label}console: {line}')
    record(not bad, False, f'{label}console: {len(bad)} kernel report line(s)')


if FAST:
    try:
        p, f, s = (int(x) for x in open(FAST).read().split())
    except (OSError, ValueError):
        p, f, s = 0, 1, 0
        print('FAIL: check-fast left no result')
    print(f'check-fast: {p} passed, {f} failed')
    passed, failed, skipped = p, f, s

kunit(CONSOLE, '')
tests_log(TESTS, '', ['kselftest', 'perf'])
console_reports(CONSOLE, '')
if HASWELL:
    kunit(HASWELL[0], 'haswell ')
    tests_log(HASWELL[1], 'haswell ', ['kselftest', 'perf', 'pmu', 'fuzz'])
    console_reports(HASWELL[0], 'haswell ')
if HASWELL_LOSS:
    tests_log(HASWELL_LOSS[1], 'haswell loss ', ['pmu'])
    console_reports(HASWELL_LOSS[0], 'haswell loss ')
for name, boot in MIGRATE.items():
    tests_log(boot[1], name + ' ', ['migrate', 'migration'])
    console_reports(boot[0], name + ' ')


def skylake(boot, label, fmt, also=None):
    """A boot on the emulated Skylake: Linux announces PEBS format fmt
    (and says also, if given)"""
    try:
        log = open(boot[0], errors='replace').read()
    except OSError:
        log = ''
    line = re.search(r'Performance Events: .*', log)
    print(f'{label}boot log: {line.group(0) if line else "(no Performance Events line)"}')
    record(bool(line) and fmt in line.group(0), False,
           f'{label}boot: Linux does not announce {fmt}')
    if also:
        record(also in log, False, f'{label}boot: Linux does not say "{also}"')
    tests_log(boot[1], label, ['kselftest', 'pebs'])
    # The kselftest skips where no buffer filled, which the emulated
    # Skylake's always does at its period (QEMU's README): a skip here is
    # the emulator's or the kernel's failure to show a full buffer.
    try:
        text = open(boot[1], errors='replace').read()
    except OSError:
        text = ''
    case = re.search(r'^# ok \d+ pebs\.full_buffer_accounted(.*)$', text,
                     re.M)
    record(bool(case) and '# SKIP' not in case.group(1), False,
           f'{label}kselftest pebs.full_buffer_accounted: no full buffer')
    console_reports(boot[0], label)


if SKYLAKE:
    skylake(SKYLAKE, 'skylake ', 'PEBS fmt3+')
if SKYLAKE_ADAPTIVE:
    skylake(SKYLAKE_ADAPTIVE, 'skylake adaptive ', 'PEBS fmt4+-baseline')
if SKYLAKE_UNSTABLE:
    skylake(SKYLAKE_UNSTABLE, 'skylake tsc=unstable ', 'PEBS fmt3+',
            'Marking TSC unstable due to boot parameter')
print(f'skipped: {skipped} (not counted below)')
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
