#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fetch and extract a Debian linux-source package of another suite of
# the Debian archive this machine uses, without changing the machine:
# apt reads a sources list, package lists, a cache and an apt.conf of its
# own under OUTDIR/apt-PACKAGE, downloads the one package there (removed
# after the extraction), and nothing is installed.
# The package's kernel tarball is extracted to OUTDIR/linux-source-MAJOR.
# If the archive does not have the pinned version, the script lists the
# versions it has and fails.
#
# Usage: mk/base.sh PACKAGE VERSION SUITE OUTDIR
#   e.g. mk/base.sh linux-source-7.3 7.3.4-1~bpo13+1 trixie-backports build/src
#        mk/base.sh linux-source-6.12 6.12.117-1~deb12u1 bookworm-security build/src
set -eu
pkg=$1
version=$2
suite=$3
out=$4

die() { echo "base: $*" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
tree=$out/$pkg
stamp=$out/.extracted-$pkg-$version

[ -f "$stamp" ] && [ -f "$tree/Makefile" ] && exit 0

# shellcheck source=mk/aptsuite.sh
. "$(dirname "$0")/aptsuite.sh"
apt=$out/apt-$pkg
echo "base: fetching Debian $pkg $version ($suite)"
aptsuite_init "$apt" "$suite" deb || die "no package list of $suite"
if ! aptopt apt-cache madison "$pkg" | grep -qF -- " $version "; then
	cat >&2 <<MSG
base: $pkg $version is not in $suite of $aptsuite_uri.
      Versions available:
$(aptopt apt-cache madison "$pkg" | sed 's/^/        /')
      Either pin another one:   make DEB_VERSION=<version> ... (the base)
                                make STABLE_VERSION=<version> ... (6.12)
      or use a tree of your own: make KSRC=/path/to/linux ... (the base)
MSG
	exit 1
fi
(cd "$apt/dl" && aptopt apt-get -qq download "$pkg=$version") ||
	die "apt-get download $pkg=$version failed"

deb=$(ls "$apt"/dl/*.deb)
tarball=usr/src/$pkg.tar.xz
echo "base: extracting $(basename "$deb")"
dpkg-deb --fsys-tarfile "$deb" | tar -C "$apt/dl" -x "./$tarball" ||
	die "$deb holds no $tarball"
rm -rf "$tree" "$out"/.extracted-"$pkg"-*
tar -C "$out" -xf "$apt/dl/$tarball"
[ -f "$tree/Makefile" ] || die "$tarball holds no $pkg/Makefile"
have=$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p; s/^SUBLEVEL = //p' \
	"$tree/Makefile" | paste -sd.)
[ "$have" = "${version%%-*}" ] ||
	die "the package holds Linux $have, not ${version%%-*}"
rm -rf "$apt"
touch "$stamp"
