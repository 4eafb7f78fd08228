#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What building the patched QEMU needs, installed only if missing: QEMU's
# build dependencies (python3-venv for its configure's venv; its meson,
# where this suite's is too old, mk/qemu.sh fetches). Its source comes
# through a private apt (mk/qemu.sh), so no source list is changed.
# Called by mk/deps.sh, only when the QEMU build is requested.
# Usage: mk/qemu-deps.sh
set -eu

pkgs="dpkg-dev quilt ccache meson ninja-build pkg-config flex bison
      python3 python3-venv libglib2.0-dev libpixman-1-dev libfdt-dev
      zlib1g-dev qemu-system-data"

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "qemu-deps: installing:$missing"
	$sudo apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null
fi
