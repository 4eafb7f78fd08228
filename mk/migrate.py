#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Migrate the guest of mk/boot-pmu.sh's migrate boot to a file.

Usage: mk/migrate.py SECONDS MONITOR TESTS STATE

Waits up to SECONDS for the line '# migrate: ready' in TESTS (the guest's
TAP, mk/migrate-tests.sh), then asks QEMU's human monitor (the UNIX
socket MONITOR) to migrate the running guest to the file STATE, waits
for the migration to end, prints QEMU's account of it and quits QEMU.
The guest runs on while its memory is copied, as in a live migration;
QEMU stops it for the last copy and the state of its devices and vCPUs.
Exit 1 if the guest never got ready or the migration failed, and then
STATE is removed: mk/boot-pmu.sh starts the second QEMU only from a
complete file.
"""
import os
import re
import socket
import sys
import time

# The monitor's commands as mk/hang.py sends them; no bytecode of it in mk/.
sys.dont_write_bytecode = True
from hang import PROMPT, command  # noqa: E402


def ready(tests, deadline):
    """Whether TESTS says '# migrate: ready' before DEADLINE."""
    while time.time() < deadline:
        try:
            with open(tests, 'rb') as f:
                if re.search(rb'^# migrate: ready', f.read(), re.M):
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def migrate(monitor, state):
    """Migrate to STATE; the status QEMU gives at the end."""
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(60)
    sock.connect(monitor)
    out = b''
    while not out.endswith(PROMPT):
        chunk = sock.recv(65536)
        if not chunk:
            return 'no monitor'
        out += chunk
    start = time.time()
    command(sock, f'migrate -d file:{state}')
    status, info = '', ''
    while time.time() < start + 300:
        info = command(sock, 'info migrate')
        m = re.search(r'^Status:\s+(\S+)', info, re.M)
        status = m.group(1) if m else ''
        if status in ('completed', 'failed', 'cancelled'):
            break
        time.sleep(0.2)
    print(f'migrate: {status or "no status"} after {time.time() - start:.1f} s')
    for line in info.splitlines():
        if re.match(r'(Status|Time|Transfers)\b', line):
            print(f'migrate: {" ".join(line.split())}')
    command(sock, 'quit')
    return status


def main():
    secs, monitor, tests, state = sys.argv[1:5]
    if not ready(tests, time.time() + float(secs)):
        print(f'migrate: the guest did not get ready in {secs} s')
        return 1
    try:
        status = migrate(monitor, state)
    except OSError as e:
        status = f'error: {e}'
    if status != 'completed':
        print(f'migrate: {status}: no state for the second QEMU')
        try:
            os.remove(state)
        except OSError:
            pass
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
