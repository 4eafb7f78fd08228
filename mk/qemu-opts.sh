# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Sourced by mk/qemu.sh and mk/qemu-prefixes.sh: the options both
# configure QEMU with, in qemu_opts. Only the x86_64 system emulator, no
# docs, no tools, no debug information (a cold build of make check
# spends less; the symbols that mk/hang.py's host profile names stay);
# Debian's +ds source has no firmware blobs to install (its debian/rules
# says the same), and nothing is downloaded. Debian's python3, not
# whichever comes first in PATH: python3-venv gives configure's venv to
# it.
# shellcheck disable=SC2034
qemu_opts="--python=/usr/bin/python3 --target-list=x86_64-softmmu
	--disable-docs --without-default-features --disable-tools
	--disable-guest-agent --disable-debug-info --enable-fdt=system
	--disable-install-blobs --disable-download
	--cc=/usr/lib/ccache/gcc --cxx=/usr/lib/ccache/g++"
