#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run COMMAND on the Nth of the host CPUs this process may run on
# (taskset), so that two boots side by side do not wait for each other's
# CPU; where it may run on fewer than two, or for an N of 0, COMMAND
# runs as it is.
# Usage: mk/pin.sh N COMMAND...
n=$1
shift
[ "$n" != 0 ] || exec "$@"
# Cpus_allowed_list: "0-3", "0,2-5", ...: one CPU a line
cpus=$(awk '/^Cpus_allowed_list:/ {
	k = split($2, r, ",")
	for (i = 1; i <= k; i++)
		if (split(r[i], ab, "-") == 2)
			for (c = ab[1]; c <= ab[2]; c++)
				print c
		else
			print r[i]
}' /proc/self/status)
cpu=$(echo "$cpus" | sed -n "${n}p")
if [ "$(echo "$cpus" | wc -l)" -lt 2 ] || [ -z "$cpu" ]; then
	exec "$@"
fi
exec taskset -c "$cpu" "$@"
