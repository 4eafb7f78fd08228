# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Sourced by mk/base.sh and mk/qemu.sh: apt for one suite of the Debian
# archive this machine uses, without changing the machine. apt reads a
# sources list, package lists, a cache and an apt.conf of its own under
# a directory of the caller's; nothing is installed.
#
#   aptsuite_init DIR SUITE TYPE   set up DIR for SUITE (TYPE deb or
#                                  deb-src) and update its lists; 1 if
#                                  that fails (callers run it under ||,
#                                  where set -e does not hold)
#   aptopt CMD ARGS...             run apt-get or apt-cache on them

# The archive's URI: that of a deb entry configured for SUITE, else (a
# suite this machine does not list, as trixie-backports or sid on Debian
# 12) that of the first deb entry for Debian (deb822 *.sources or one-line
# *.list), else deb.debian.org; a security suite not listed,
# debian-security.
aptsuite_sources() {
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

aptsuite_init() {
	aptsuite_dir=$1
	aptsuite_uri=$(aptsuite_sources | awk -v s="$2" '$2 == s { print $1; exit }')
	case $2 in
	*-security)
		[ -n "$aptsuite_uri" ] ||
			aptsuite_uri=http://deb.debian.org/debian-security ;;
	esac
	[ -n "$aptsuite_uri" ] || aptsuite_uri=$(aptsuite_sources |
		awk '$1 ~ /\/debian\/?$/ { print $1; exit }')
	[ -n "$aptsuite_uri" ] || aptsuite_uri=http://deb.debian.org/debian

	aptsuite_key=/usr/share/keyrings/debian-archive-keyring.gpg
	rm -rf "$1" &&
		mkdir -p "$1/lists/partial" "$1/cache/archives/partial" "$1/dl" &&
		echo "$3 [signed-by=$aptsuite_key] $aptsuite_uri $2 main" \
		> "$1/sources.list" || return 1
	# No hook of the machine's apt.conf.d runs on this update.
	cat > "$1/apt.conf" <<-CONF || return 1
	#clear APT::Update::Pre-Invoke;
	#clear APT::Update::Post-Invoke;
	#clear APT::Update::Post-Invoke-Success;
	CONF
	aptopt apt-get -qq update > "$1/update.log" 2>&1 || {
		cat "$1/update.log" >&2
		echo "apt-get update of $2 ($aptsuite_uri) failed" >&2
		return 1
	}
}

aptopt() {
	"$@" -c "$aptsuite_dir/apt.conf" \
		-o Dir::Etc::SourceList="$aptsuite_dir/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$aptsuite_dir/lists" \
		-o Dir::Cache="$aptsuite_dir/cache" \
		-o APT::Sandbox::User="$(id -un)"
}
