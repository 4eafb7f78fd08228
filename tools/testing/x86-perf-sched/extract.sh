#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Cut kernel source text out of the pristine tree for the simulator, so
# that no table is copied into this directory. Every form fails, naming
# what it looked for, when the text is not there.
#
#   extract.sh defines FILE REGEX	the #define lines (with their
#					continuation lines) whose macro
#					name matches the extended REGEX
#   extract.sh block FILE FIRST LAST	from the first line matching FIRST
#					to the next line matching LAST
#   extract.sh func FILE FIRST		the definition (not a prototype)
#					starting at a line matching FIRST,
#					up to its closing "}" in column 0
#   extract.sh flags FILE		perf_event_flags.h as #defines
set -eu

what=$1
file=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT

case $what in
defines)
	awk -v re="$3" '
		cont { print; cont = /\\$/; next }
		$1 == "#define" {
			name = $2
			sub(/\(.*/, "", name)
			if (name ~ re) { print; cont = /\\$/ }
		}' "$file" > "$out"
	;;
block)
	awk -v first="$3" -v last="$4" '
		!on && $0 ~ first { on = 1 }
		on { print }
		on && $0 ~ last { exit }' "$file" > "$out"
	tail -n 1 "$out" | grep -Eq -- "$4" || : > "$out"
	;;
func)
	awk -v first="$3" '
		!on && $0 ~ first { on = 1; body = 0; buf = "" }
		on { buf = buf $0 "\n" }
		on && !body && /\);[[:space:]]*$/ { on = 0; next }
		on && /^\{/ { body = 1 }
		on && body && /^\}/ { printf "%s", buf; exit }' "$file" > "$out"
	;;
flags)
	re='^PERF_ARCH(\([A-Z0-9_]*\),[[:space:]]*\(0x[0-9a-fA-F]*\)).*'
	sed -n "s/$re/"'#define PERF_X86_EVENT_\1\t\2/p' "$file" > "$out"
	;;
*)
	echo "extract.sh: unknown form '$what'" >&2
	exit 2
	;;
esac

if [ ! -s "$out" ]; then
	echo "extract.sh: $what ${3:-} not found in $file" >&2
	exit 1
fi
echo "/* $what ${3:-} from $file */"
cat "$out"
