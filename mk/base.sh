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
apt=$out/apt-$pkg
tree=$out/$pkg
stamp=$out/.extracted-$pkg-$version

[ -f "$stamp" ] && [ -f "$tree/Makefile" ] && exit 0

# The archive's URI: that of a deb entry configured for SUITE, else (a
# suite this machine does not list, as trixie-backports on Debian 12) that
# of the first deb entry for Debian (deb822 *.sources or one-line *.list),
# else deb.debian.org; a security suite not listed, debian-security.
sources() {
	set -- /etc/apt/sources.list.d/*.sources
	[ ! -e "$1" ] || awk -v RS= '
		/(^|\n)Enabled:[ \t]*no/ { next }
		/(^|\n)Types:[^\n]*deb([ \n]|$)/ {
			u = s = ""
			n = split($0, l, "\n")
			for (i = 1; i <= n; i++) {
				if (sub(/^URIs:[ \t]*/, "", l[i])) {
					split(l[i], a, " ")
					u = a[1]
				}
				if (sub(/^Suites:[ \t]*/, "", l[i]))
					s = l[i]
			}
			m = split(s, b, " ")
			for (i = 1; i <= m; i++)
				print u, b[i]
		}' "$@"
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { sub(/^deb[ \t]+\[[^]]*\]/, "deb"); $0 = $0; print $2, $3 }'
}
uri=$(sources | awk -v s="$suite" '$2 == s { print $1; exit }')
case $suite in
*-security) [ -n "$uri" ] || uri=http://deb.debian.org/debian-security ;;
esac
[ -n "$uri" ] || uri=$(sources | awk '$1 ~ /\/debian\/?$/ { print $1; exit }')
[ -n "$uri" ] || uri=http://deb.debian.org/debian

rm -rf "$apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/dl"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" \
	> "$apt/sources.list"
# No hook of the machine's apt.conf.d runs on this update.
cat > "$apt/apt.conf" <<CONF
#clear APT::Update::Pre-Invoke;
#clear APT::Update::Post-Invoke;
#clear APT::Update::Post-Invoke-Success;
CONF
aptopt() {
	"$@" -c "$apt/apt.conf" \
		-o Dir::Etc::SourceList="$apt/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$apt/lists" \
		-o Dir::Cache="$apt/cache" \
		-o APT::Sandbox::User="$(id -un)"
}

echo "base: fetching Debian $pkg $version ($suite, $uri)"
aptopt apt-get -qq update > "$apt/update.log" 2>&1 ||
	{ cat "$apt/update.log" >&2; die "apt-get update of $suite failed"; }
if ! aptopt apt-cache madison "$pkg" | grep -qF -- " $version "; then
	cat >&2 <<MSG
base: $pkg $version is not in $suite of $uri.
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
