#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel reports in a console log, as mk/evaluate.py scans for them:
# WARNING, BUG, UBSAN, Oops, panics, lockdep's and KASAN's reports
# ("INFO: ", DEBUG_LOCKS_WARN_ON, a call trace), not the KTAP and TAP
# lines that name them nor the note that an NMI handler took more than
# 1 ms (wall time, under TCG). Prints each; exits 1 if there is one.
# Used by mk/boot-pmu.sh and mk/prefixes.sh.
# Usage: mk/reports.sh CONSOLE_LOG
sed 's/^\[ *[0-9]*\.[0-9]*\] \{0,1\}//' "$1" |
	grep -a -v -E '^[[:space:]]*(ok |not ok |# |KTAP version|TAP version|1\.\.)' |
	grep -a -v -E 'INFO: NMI handler \(\w+\) took too long' |
	grep -a -E -e 'WARNING:|BUG:|UBSAN:|Oops|Kernel panic|kernel BUG at' \
		-e 'INFO: |DEBUG_LOCKS_WARN_ON|Call Trace:' && exit 1
exit 0
