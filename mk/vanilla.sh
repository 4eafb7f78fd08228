#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build Linux 7.3 as shipped, for the figures that compare it with the
# series (make pebs-figures): the pristine tree hard-linked into
# OUT/linux and built in OUT/kernel with the test kernel's configuration
# less the options of symbols the series adds (7.3's Kconfig has none
# of them). OUT/linux and OUT/kernel lie to each other as the series'
# build/linux and build/kernel do, so that ccache finds what that build
# compiled from the same sources.
# Usage: mk/vanilla.sh PRISTINE FRAGMENT OUT JOBS
set -eu
pristine=$1 frag=$2 out=$3 jobs=$4
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ ! -f "$out/linux/.pristine" ] ||
   ! cmp -s "$pristine/Makefile" "$out/linux/Makefile"; then
	rm -rf "$out/linux"
	cp -al "$pristine" "$out/linux"
	touch "$out/linux/.pristine"
fi
# The symbols 7.3's Kconfig files define, as CONFIG_NAME
find "$out/linux" -name 'Kconfig*' -exec sed -n -E \
	's/^[[:space:]]*(menu)?config[[:space:]]+([A-Za-z0-9_]+).*/CONFIG_\2/p' {} + |
	sort -u > "$out/kconfig.syms"
while IFS= read -r line; do
	sym=$(echo "$line" | sed -n 's/^\(# \)\{0,1\}\(CONFIG_[A-Za-z0-9_]*\)[= ].*/\2/p')
	[ -z "$sym" ] || grep -qxF "$sym" "$out/kconfig.syms" || continue
	echo "$line"
done < "$frag" > "$out/fragment"
set -- make -s -C "$out/linux" O="$out/kernel" ARCH=x86_64 CC="ccache gcc" \
	HOSTCC="ccache gcc" -j"$jobs"
"$(dirname "$0")/config.sh" "$out/fragment" "$out/kernel" "$@"
echo "vanilla: building $out/kernel/arch/x86/boot/bzImage (7.3 as shipped)"
"$@" bzImage
