#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Make KOUT/.config from the committed fragment (olddefconfig fills in the
# rest) and check that every option of the fragment survived.
# Usage: mk/config.sh FRAGMENT KOUT make-args...
set -eu
frag=$1 kout=$2
shift 2
mkdir -p "$kout"

missing() {
	grep -o '^CONFIG_[A-Za-z0-9_]*=.*' "$frag" | while read -r opt; do
		grep -qxF "$opt" "$kout/.config" 2>/dev/null || echo "$opt"
	done
}

if ! cmp -s "$frag" "$kout/.fragment" || [ -n "$(missing)" ]; then
	cp "$frag" "$kout/.config"
	"$@" olddefconfig > /dev/null
	cp "$frag" "$kout/.fragment"
fi
m=$(missing)
if [ -n "$m" ]; then
	echo "config: these options of $frag did not survive olddefconfig:" >&2
	echo "$m" | sed 's/^/config:   /' >&2
	exit 1
fi
