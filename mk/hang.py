#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where the vCPUs of a guest that did not finish in time are.

The test kernel's tick is periodic and its hrtimers low-resolution
(olddefconfig's choices for the test config): perf's multiplexing
hrtimer runs in the tick's interrupt.

Usage: mk/hang.py SECONDS MONITOR SYSTEM_MAP

Sleeps SECONDS, then asks QEMU's human monitor (the UNIX socket MONITOR)
for every vCPU's registers five times, a second apart, and prints each
vCPU's RIP as a symbol of SYSTEM_MAP (the guest runs with nokaslr), its
privilege level and whether it is halted: a hang is shown, not only
waited out. Then the jiffies and each vCPU's interrupt counts (NMIs,
timer interrupts, PMIs, IPIs) and QEMU's translated blocks, a second
apart; where QEMU spends the host's time (5 s of the host's perf on its
process); and, for each vCPU busy in the kernel, ten scans of its stack
(the kernel text addresses among the 512 words above RSP, innermost
first, as a kernel trace's "?" lines: what called what, and which stack
it is on) and a histogram of 200 RIPs, 50 ms apart: where the time goes,
not only where it was five times. mk/boot-pmu.sh starts it beside QEMU
and kills it 60 s after its time if QEMU has not ended, and at once if
it has.
"""
import bisect
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

PROMPT = b'(qemu) '


# The first counts of x86's irq_cpustat_t in the test kernel's config
# (arch/x86/include/asm/hardirq.h: no KVM_INTEL, so no byte before them)
IRQ_COUNTS = ('NMI', 'LOC', 'SPU', 'PMI', 'IWI', 'RTR', 'PLT', 'RES', 'CAL')


def data_symbols(path):
    """The data symbols of PATH that rates() reads."""
    want = {'jiffies_64', 'irq_stat', '__per_cpu_offset'}
    found = {}
    try:
        with open(path) as f:
            for line in f:
                field = line.split()
                if len(field) >= 3 and field[2] in want:
                    found[field[2]] = int(field[0], 16)
    except OSError:
        pass
    return found


def words(sock, fmt, addr, n):
    """N words of the guest's memory at ADDR (x's format FMT: w or g)."""
    out = command(sock, f'x /{n}{fmt}x {addr:#x}')
    return [int(v, 16) for v in re.findall(r'0x([0-9a-f]+)', out.split(':', 1)[-1])][:n]


def rates(sock, syms, cpus):
    """Jiffies and each vCPU's interrupt counts, a second apart."""
    if len(syms) < 3:
        return
    offsets = words(sock, 'g', syms['__per_cpu_offset'], len(cpus))

    def sample():
        # a per-CPU variable's address plus its CPU's offset, modulo 2^64
        counts = [words(sock, 'w', (syms['irq_stat'] + off) % (1 << 64),
                        len(IRQ_COUNTS))
                  for off in offsets]
        jit = re.search(r'TB count\s+(\d+)', command(sock, 'info jit'))
        return (words(sock, 'g', syms['jiffies_64'], 1)[0], counts,
                int(jit.group(1)) if jit else 0, time.time())
    j0, c0, tb0, t0 = sample()
    time.sleep(1)
    j1, c1, tb1, t1 = sample()
    dt = t1 - t0
    # TBs translated: one-instruction TBs, run near a counter's
    # overflow, are translated anew each time
    print(f'hang: in {dt:.2f} s of the host: jiffies +{j1 - j0},'
          f' TBs translated +{tb1 - tb0}')
    for cpu, (a, b) in enumerate(zip(c0, c1)):
        print(f'hang: CPU {cpu} interrupts in that time: ' +
              ' '.join(f'{n} +{y - x}' for n, x, y in zip(IRQ_COUNTS, a, b)))


def qemu_pid(monitor):
    """The QEMU whose command line names the monitor socket MONITOR."""
    want = b'unix:' + monitor.encode()
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/cmdline', 'rb') as f:
                args = f.read().split(b'\0')
        except OSError:
            continue
        # not timeout(1), which runs it with the same arguments
        if os.path.basename(args[0]).startswith(b'qemu-system') and \
           any(a.startswith(want) for a in args):
            return int(pid)
    return None


def host_profile(monitor):
    """Where the QEMU process spends the host's time, 5 s of it (the
    host's perf, cpu-clock): translated code, the PMU's helpers, the
    translator."""
    pid = qemu_pid(monitor)
    if pid is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, 'perf.data')
        try:
            subprocess.run(['perf', 'record', '-q', '-e', 'cpu-clock',
                            '-F', '499', '-p', str(pid), '-o', data,
                            '--', 'sleep', '5'],
                           capture_output=True, timeout=60, check=True)
            # by DSO first: translated code has no symbol, and its
            # addresses are many
            out = ''.join(subprocess.run(['perf', 'report', '-i', data,
                                          '--stdio', '--sort', sort,
                                          '--percent-limit', '1'],
                                         capture_output=True, text=True,
                                         timeout=60).stdout
                          for sort in ('dso', 'dso,sym'))
        except (OSError, subprocess.SubprocessError) as e:
            print(f'hang: no host profile of QEMU: {e}')
            return
    for line in out.splitlines():
        if line.strip() and not line.startswith('#'):
            print(f'hang: QEMU on the host: {line.strip()}')


def symbols(path):
    """The text symbols of PATH; none (raw addresses) without the file."""
    syms = []
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError as e:
        print(f'hang: no symbols: {e}')
        lines = []
    for line in lines:
        field = line.split()
        if len(field) >= 3 and field[1] in 'tTwW':
            syms.append((int(field[0], 16), field[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def where(addrs, names, rip):
    i = bisect.bisect_right(addrs, rip) - 1
    if i < 0 or rip - addrs[i] > 0x10000:
        return f'{rip:#x}'
    return f'{names[i]}+{rip - addrs[i]:#x}'


def command(sock, cmd):
    """One monitor command, its output up to the next prompt."""
    sock.sendall(cmd.encode() + b'\n')
    out = b''
    while not out.endswith(PROMPT):
        chunk = sock.recv(65536)
        if not chunk:
            break
        out += chunk
    return out.decode(errors='replace')


def registers(sock):
    """Each vCPU's number, RIP, RSP, CPL and HLT, as a list of dicts."""
    regs = command(sock, 'info registers -a')
    cpus = []
    for block in re.split(r'\nCPU#', '\n' + regs)[1:]:
        cpu = {'n': block.split('\n', 1)[0].strip()}
        for reg in ('RIP', 'RSP', 'CPL', 'HLT'):
            m = re.search(reg + r'=([0-9a-f]+)', block)
            cpu[reg] = int(m.group(1), 16) if m else None
        cpus.append(cpu)
    return cpus


def stack(sock, cpu, rsp, addrs, names):
    """The kernel text addresses among the 512 words above RSP."""
    command(sock, f'cpu {cpu}')
    out = command(sock, f'x /512gx {rsp:#x}')
    found = []
    for word in re.findall(r'0x([0-9a-f]{16})', out):
        v = int(word, 16)
        if addrs and addrs[0] <= v <= addrs[-1] + 0x10000:
            sym = where(addrs, names, v)
            if not sym.startswith('0x'):
                found.append(sym)
    return found


def profile(sock, addrs, names):
    """Stack scans and a RIP histogram of each vCPU busy in the kernel."""
    busy = [c['n'] for c in registers(sock) if c['CPL'] == 0 and c['HLT'] == 0]
    for n in busy:
        for scan in range(1, 11):
            cpu = next((c for c in registers(sock) if c['n'] == n), None)
            if not cpu or cpu['RSP'] is None:
                break
            where_ = where(addrs, names, cpu['RIP'])
            print(f'hang: CPU {n} scan {scan}: RIP {where_} RSP {cpu["RSP"]:#x}:')
            print('hang:   ' + ' < '.join(stack(sock, n, cpu['RSP'], addrs, names)))
            time.sleep(0.2)
    hist = {}
    for _ in range(200):
        for cpu in registers(sock):
            if cpu['n'] in busy and cpu['RIP'] is not None:
                fn = where(addrs, names, cpu['RIP']).split('+')[0]
                hist[(cpu['n'], fn)] = hist.get((cpu['n'], fn), 0) + 1
        time.sleep(0.05)
    for (n, fn), k in sorted(hist.items(), key=lambda i: (i[0][0], -i[1])):
        print(f'hang: CPU {n} RIP histogram: {k:3d} {fn}')


def main():
    secs, monitor, sysmap = float(sys.argv[1]), sys.argv[2], sys.argv[3]
    time.sleep(secs)
    addrs, names = symbols(sysmap)
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(20)
    sock.connect(monitor)
    out = b''
    while not out.endswith(PROMPT):
        out += sock.recv(65536)
    print(f'hang: {secs:.0f} s and the guest has not finished; its vCPUs:')
    for sample in range(1, 6):
        cpus = [f'CPU {c["n"]} at {where(addrs, names, c["RIP"])}'
                f' (CPL {c["CPL"]}, halted {c["HLT"]})'
                for c in registers(sock) if c['RIP'] is not None]
        print(f'hang: sample {sample}: ' + '; '.join(cpus))
        time.sleep(1)
    sys.stdout.flush()
    rates(sock, data_symbols(sysmap), registers(sock))
    sys.stdout.flush()
    host_profile(monitor)
    sys.stdout.flush()
    profile(sock, addrs, names)


if __name__ == '__main__':
    main()
