#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where the vCPUs of a guest that did not finish in time are.

Usage: mk/hang.py SECONDS MONITOR SYSTEM_MAP

Sleeps SECONDS, then asks QEMU's human monitor (the UNIX socket MONITOR)
for every vCPU's registers five times, a second apart, and prints each
vCPU's RIP as a symbol of SYSTEM_MAP (the guest runs with nokaslr), its
privilege level and whether it is halted: a hang is shown, not only
waited out. mk/boot-pmu.sh starts it beside QEMU and kills it when QEMU
ends in time.
"""
import bisect
import re
import socket
import sys
import time

PROMPT = b'(qemu) '


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
        regs = command(sock, 'info registers -a')
        cpus = []
        for block in re.split(r'\nCPU#', '\n' + regs)[1:]:
            cpu = block.split('\n', 1)[0].strip()
            rip = re.search(r'RIP=([0-9a-f]+)', block)
            cpl = re.search(r'CPL=(\d)', block)
            hlt = re.search(r'HLT=(\d)', block)
            if rip:
                cpus.append(f'CPU {cpu} at {where(addrs, names, int(rip.group(1), 16))}'
                            f' (CPL {cpl.group(1) if cpl else "?"},'
                            f' halted {hlt.group(1) if hlt else "?"})')
        print(f'hang: sample {sample}: ' + ('; '.join(cpus) or regs.strip()))
        time.sleep(1)


if __name__ == '__main__':
    main()
