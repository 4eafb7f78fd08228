#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what the build needs from Debian's archive, only if it is missing.
# The kernel source is no package of this machine's suite: mk/base.sh
# fetches it. With "qemu", also what building the patched QEMU needs
# (mk/qemu-deps.sh).
# Usage: mk/deps.sh [qemu]
set -eu

[ "${1:-}" != qemu ] || "$(dirname "$0")/qemu-deps.sh"

pkgs="build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
      rsync python3 perl ccache quilt qemu-system-x86 busybox-static
      linux-perf valgrind git libpfm4-dev python3-ply python3-git
      trinity"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
echo "deps: installing:$missing"
start=$(date +%s)
$sudo apt-get update -qq >/dev/null
# shellcheck disable=SC2086 # a list of packages
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
	--no-install-recommends $missing >/dev/null
echo "time: deps $(($(date +%s) - start)) s"
