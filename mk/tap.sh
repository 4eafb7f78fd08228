#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TAP output for the guest's test scripts (mk/pmu-tests.sh,
# mk/pebs-tests.sh), which source it from the initramfs as /tap.sh.

t=0
# tap STATUS DESCRIPTION: one TAP line, ok if STATUS is 0
tap() {
	t=$((t + 1))
	if [ "$1" = 0 ]; then
		echo "ok $t $2"
	else
		echo "not ok $t $2"
	fi
}
