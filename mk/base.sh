#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fetch and extract a Debian linux-source package of another suite of
# the Debian archive this machine uses, without changing the machine:
# apt reads a sources list, package lists and a cache of its own under
# OUTDIR/apt, downloads the one package there, and nothing is installed.
# The package's kernel tarball is extracted to OUTDIR/linux-source-MAJOR.
# If the archive does not have the pinned version, the script lists the
# versions it has and fails.
#
# Usage: mk/base.sh PACKAGE VERSION SUITE OUTDIR
#   e.g. mk/base.sh linux-source-7.3 7.3.4-1~bpo13+1 trixie-backports build/src
set -eu
pkg=$1
version=$2
suite=$3
out=$4

die() { echo "base: $*" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
apt=$out/apt
tree=$out/$pkg
stamp=$out/.extracted-$pkg-$version

[ -f "$stamp" ] && exit 0

# The archive's URI: that of the first deb entry configured for Debian
# (deb822 *.sources or one-line *.list), else deb.debian.org.
uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
	awk '/^URIs:/ { u = $2 } /^Suites:/ && u ~ /debian\/?$/ { print u; exit }')
[ -n "$uri" ] || uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	2>/dev/null | awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }')
[ -n "$uri" ] || uri=http://deb.debian.org/debian

rm -rf "$apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/dl"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" \
	> "$apt/sources.list"
aptopt() {
	"$@" -o Dir::Etc::SourceList="$apt/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$apt/lists" \
		-o Dir::Cache="$apt/cache" \
		-o APT::Sandbox::User="$(id -un)"
}

echo "base: fetching Debian $pkg $version ($suite, $uri)"
aptopt apt-get -qq update > "$apt/update.log" 2>&1 ||
	{ cat "$apt/update.log" >&2; die "apt-get update of $suite failed"; }
if ! aptopt apt-cache madison "$pkg" | grep -q " $version "; then
	cat >&2 <<MSG
base: $pkg $version is not in $suite of $uri.
      Versions available:
$(aptopt apt-cache madison "$pkg" | sed 's/^/        /')
      Either pin another one:   make DEB_VERSION=<version> ...
      or use a tree of your own: make KSRC=/path/to/linux ...
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
rm -rf "$apt"
touch "$stamp"
