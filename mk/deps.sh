#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what the build needs from Debian's archive, only if it is missing.
# With QEMU_DEB_VERSION, also what building the patched QEMU needs
# (mk/qemu-deps.sh).
# Usage: mk/deps.sh DEB_VERSION [need-kernel-source: 0|1] [QEMU_DEB_VERSION]
set -eu
deb_version=$1
need_source=${2:-1}
qemu_version=${3:-}

[ -z "$qemu_version" ] || "$(dirname "$0")/qemu-deps.sh" "$qemu_version"

pkgs="build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
      rsync python3 perl ccache quilt qemu-system-x86 busybox-static
      linux-perf valgrind git libpfm4-dev python3-ply python3-git"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ "$need_source" = 1 ]; then
	have=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
	[ "$have" = "$deb_version" ] ||
		missing="$missing linux-source-6.12=$deb_version"
fi
[ -z "$missing" ] && exit 0

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
echo "deps: installing:$missing"
$sudo apt-get update -qq >/dev/null
case "$missing" in
*linux-source-6.12=*)
	if ! apt-cache madison linux-source-6.12 | grep -q " $deb_version "; then
		cat >&2 <<MSG
deps: linux-source-6.12 $deb_version is not in the package archive any more.
      Versions available:
$(apt-cache madison linux-source-6.12 | sed 's/^/        /')
      Either pin another one:   make DEB_VERSION=<version> ...
      or use your own 6.12 tree: make KSRC=/path/to/linux-6.12 ...
MSG
		exit 1
	fi ;;
esac
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
	--no-install-recommends $missing >/dev/null
