#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What building the patched QEMU needs, installed only if missing: QEMU's
# build dependencies, and a deb-src entry for the Debian archive this
# machine already uses, so that apt-get source can fetch Debian's qemu.
# Called by mk/deps.sh, only when the QEMU build is requested.
# Usage: mk/qemu-deps.sh QEMU_DEB_VERSION
set -eu
qemu_version=$1

pkgs="dpkg-dev quilt ccache meson ninja-build pkg-config flex bison
      python3 libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev
      qemu-system-data"

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
apt=/etc/apt
updated=

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "qemu-deps: installing:$missing"
	$sudo apt-get update -qq >/dev/null
	updated=1
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null
fi

# deb-src: the URIs and suites of the deb entries already configured,
# deb822 (*.sources) and one-line (*.list) alike.
if ! grep -qs -e '^[[:space:]]*deb-src[[:space:]]' -e '^Types:.*deb-src' \
	$apt/sources.list $apt/sources.list.d/*.list $apt/sources.list.d/*.sources; then
	echo "qemu-deps: adding deb-src entries for the configured Debian archive"
	tmp=$(mktemp)
	for f in $apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
		     /(^|\n)Types:[^\n]*deb([ \n]|$)/ {
			sub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src")
			sub(/^\n/, "")
			print
		     }' "$f" >> "$tmp"
	done
	if [ -s "$tmp" ]; then
		$sudo cp "$tmp" $apt/sources.list.d/deb-src.sources
	else
		cat $apt/sources.list $apt/sources.list.d/*.list 2>/dev/null |
			sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' > "$tmp"
		[ -s "$tmp" ] || {
			rm -f "$tmp"
			echo "qemu-deps: no deb entry in $apt to copy for deb-src" >&2
			exit 1
		}
		$sudo cp "$tmp" $apt/sources.list.d/deb-src.list
	fi
	rm -f "$tmp"
	updated=
fi
if [ -z "$(apt-cache showsrc qemu 2>/dev/null)" ] && [ -z "$updated" ]; then
	$sudo apt-get update -qq >/dev/null
fi

if ! apt-cache showsrc qemu | grep -qx "Version: $qemu_version"; then
	cat >&2 <<MSG
qemu-deps: Debian's qemu source $qemu_version is not in the archive.
      Versions available:
$(apt-cache showsrc qemu | sed -n 's/^Version: /        /p')
      Pin another one (the QEMU series may need a refresh):
        make QEMU_DEB_VERSION=<version> qemu
MSG
	exit 1
fi
