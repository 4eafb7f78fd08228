#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Export the series as git-am-ready patches and prove it.
#
# Usage: mk/export.sh PRISTINE FRAGMENT OUTDIR [STABLE_PRISTINE]
#
# The exporter is the author of every patch and signs it off: the name and
# address come from git config user.name and user.email of this
# repository. The patches of series/ carry neither a From: nor a
# Signed-off-by: line.
#
# 1. A scratch git repository holds the pristine base as one commit.
# 2. Each patch of series/series becomes a commit: its diff plus the new
#    files series/overlay assigns to it, its message ending in the
#    exporter's Signed-off-by:. A last commit adds the F: lines of the
#    file MAINTAINERS to the existing entry its first line names (the
#    other lines: "F:", a tab, a pattern), for the new files that entry
#    does not cover yet. git format-patch writes the whole series to
#    OUTDIR/patches.
# 3. Proof: git am of OUTDIR/patches onto the pristine base in a fresh
#    work tree, every prefix of the series compiles arch/x86/events/ and
#    kernel/events/ with the test config (bisectability), and checkpatch
#    --strict passes on every patch.
# 4. The topic series of series/topics, as they are sent, each with its
#    cover letter and recipients, in OUTDIR/topics: each git am'd with
#    the topics it needs onto the pristine base, checkpatch'd, and every
#    prefix compiled as in 3.
# 5. With STABLE_PRISTINE (a 6.12 tree): the patches series/stable-6.12/
#    series names, as the exported commits or as the backport that
#    series/stable-6.12/ holds for one that does not apply, are committed
#    onto that tree, written to OUTDIR/stable-6.12, git am'd onto it in a
#    fresh work tree, checked by that tree's checkpatch --strict, and
#    every prefix compiles there as in 3.
set -eu

die() { echo "export: $*" >&2; exit 1; }

name=$(git config user.name || true)
email=$(git config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "the exported patches are yours: set git config user.name and user.email first"
case "$name$email" in
*'<'* | *'>'*) die "git config user.name or user.email holds a < or >" ;;
esac
case "$email" in
*@*) ;;
*) die "git config user.email is no mail address: $email" ;;
esac
author="$name <$email>"
signoff="Signed-off-by: $author"

patches=$(grep -v -e '^#' -e '^[[:space:]]*$' series/series)

# Commit message from the patch's mail header.
header() {
	sed -n '1,/^---$/p' "$1" | sed '$d'
}

for p in $patches; do
	! header "series/$p" | grep -q -e '^From: ' -e '^Signed-off-by: ' ||
		die "series/$p carries a From: or Signed-off-by: line; series patches" \
		    "must not: the author and sign-off are the exporter's"
	header "series/$p" | grep -q '^Subject: ' || die "series/$p lacks a Subject: line"
done
title=$(sed -n '1p' MAINTAINERS)
[ -n "$title" ] || die "MAINTAINERS: the first line names the existing entry"
! sed '1d' MAINTAINERS | grep -v '^F:	[^[:space:]]\{1,\}$' ||
	die "MAINTAINERS: after the title, only F: lines (F:, a tab, a pattern)"

pristine=$(cd "$1" && pwd)
fragment=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
out=$(mkdir -p "$3" && cd "$3" && pwd)
stable=
[ -z "${4:-}" ] || stable=$(cd "$4" && pwd)
repo=$(pwd)
jobs=$(nproc)
git_id() {
	git -c user.name="$name" -c user.email="$email" "$@"
}

# Every overlay file is introduced by exactly one patch. The QEMU patch
# series in tools/testing/qemu-pmu/ and the guest's fuzzer in
# tools/testing/x86-perf-fuzz/ are no kernel files.
find arch kernel tools Documentation -type f |
	grep -v -e /build/ -e '^tools/testing/qemu-pmu/' \
		-e '^tools/testing/x86-perf-fuzz/' | LC_ALL=C sort > "$out/overlay.all"
grep -v -e '^#' -e '^[[:space:]]*$' series/overlay |
	awk '{ for (i = 2; i <= NF; i++) print $i }' | LC_ALL=C sort > "$out/overlay.claimed"
dups=$(uniq -d "$out/overlay.claimed")
[ -z "$dups" ] || die "series/overlay names these twice: $dups"
unclaimed=$(LC_ALL=C comm -23 "$out/overlay.all" "$out/overlay.claimed")
[ -z "$unclaimed" ] || die "no patch in series/overlay introduces: $unclaimed"
gone=$(LC_ALL=C comm -13 "$out/overlay.all" "$out/overlay.claimed")
[ -z "$gone" ] || die "series/overlay names missing files: $gone"

for p in $(grep -v -e '^#' -e '^[[:space:]]*$' series/overlay | awk '{ print $1 }'); do
	echo "$patches" | grep -qxF "$p" ||
		die "series/overlay names $p, which series/series does not"
done

# git_base DIR TREE: DIR, a git repository of TREE as one commit (made
# once), reset to it, with the branch pristine there.
git_base() {
	id="$2 $(make -s -C "$2" kernelversion)"
	if [ "$(cat "$1/.done" 2>/dev/null)" != "$id" ]; then
		echo "export: making a git repository of $2 (once)"
		rm -rf "$1"
		git init -q "$1"
		(cd "$2" && tar cf - .) | (cd "$1" && tar xf -)
		git -C "$1" add -A -f
		git_id -C "$1" commit -q -m "Linux $(make -s -C "$2" kernelversion)"
		echo "$id" > "$1/.done"
	fi
	git -C "$1" cherry-pick --quit 2>/dev/null || :
	git -C "$1" checkout -q -f master 2>/dev/null || git -C "$1" checkout -q -f main
	git -C "$1" reset -q --hard "$(git -C "$1" rev-list --max-parents=0 HEAD)"
	git -C "$1" clean -q -fdx -e .done
	git -C "$1" branch -q -f pristine HEAD
}

base=$out/base.git
git_base "$base" "$pristine"

# The body, then the exporter's sign-off: directly below the trailers the
# body ends with (Fixes:, Cc:, ...), else after one blank line.
sign() {
	awk -v signoff="$signoff" '
		{ line[++n] = $0 }
		END {
			while (n > 0 && line[n] ~ /^[[:space:]]*$/)
				n--
			first = 1
			while (first <= n && line[first] ~ /^[[:space:]]*$/)
				first++
			trailers = n >= first
			for (i = n; i >= first && line[i] !~ /^[[:space:]]*$/; i--)
				if (line[i] !~ /^[A-Z][A-Za-z-]*-by: / &&
				    line[i] !~ /^(Fixes|Cc|Link|Closes|BugLink): /)
					trailers = 0
			for (i = first; i <= n; i++)
				print line[i]
			if (n >= first && !trailers)
				print ""
			print signoff
		}'
}

# commit_patch REPO NAME DIFF MSG: the new files series/overlay assigns to
# the patch NAME (the patch may change them too: a patch of new files only
# has no diff), then the diff of the file DIFF (an absolute path),
# committed in REPO with the message of the file MSG.
commit_patch() {
	for n in $(awk -v p="$2" '$1 == p { for (i = 2; i <= NF; i++) print $i }' \
		   series/overlay); do
		mkdir -p "$1/$(dirname "$n")" && cp "$n" "$1/$n" &&
			git -C "$1" add -f "$n" || return 1
	done
	[ -f "$3" ] || return 1
	if grep -q '^+++ ' "$3"; then
		(cd "$1" && git apply --index "$3") || return 1
	fi
	git_id -C "$1" commit -q --author="$author" -F "$4"
}

: > "$out/commits"
for p in $patches; do
	f=series/$p
	subject=$(header "$f" | sed -n 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//p' | head -n 1)
	[ -n "$subject" ] || die "$f has an empty Subject: line"
	{ echo "$subject"; echo; header "$f" | sed '1,/^$/d' | sign; } > "$out/msg"
	commit_patch "$base" "$p" "$repo/$f" "$out/msg" || die "$p does not apply"
	echo "$p $(git -C "$base" rev-parse HEAD)" >> "$out/commits"
done

# The overlay files the entry $title does not cover in $base's MAINTAINERS.
uncovered() {
	while read -r n; do
		(cd "$base" && perl scripts/get_maintainer.pl --nogit --nogit-fallback \
			--sections -f "$n") | grep -qxF "$title" || echo "$n"
	done < "$out/overlay.all"
}

# MAINTAINERS: our F: lines join the existing entry, in sorted order.
[ "$(grep -cxF "$title" "$base/MAINTAINERS")" = 1 ] ||
	die "MAINTAINERS: no single entry '$title' in the kernel's MAINTAINERS"
uncovered > "$out/uncovered"
cp "$out/uncovered" "$out/uncovered.base"
maint=
if [ "$(sed '1d' MAINTAINERS | wc -l)" = 0 ]; then
	[ ! -s "$out/uncovered" ] ||
		die "MAINTAINERS: '$title' does not cover: $(cat "$out/uncovered")"
else
	[ -s "$out/uncovered" ] ||
		die "MAINTAINERS: '$title' covers every new file already: drop the F: lines"
	sed '1d' MAINTAINERS > "$out/maintainers.add"
	awk -v title="$title" '$0 == title { e = 1 } e && /^$/ { exit } e' \
		"$base/MAINTAINERS" > "$out/entry"
	dupl=$(grep -xF -f "$out/maintainers.add" "$out/entry" || true)
	[ -z "$dupl" ] || die "MAINTAINERS: the entry has these already: $dupl"
	awk -v title="$title" -v add="$out/maintainers.add" '
		function flush() {
			fflush()
			cmd = "LC_ALL=C sort"
			for (i = 1; i <= nf; i++)
				print f[i] | cmd
			while ((getline l < add) > 0)
				print l | cmd
			close(cmd)
			nf = 0
		}
		$0 == title { in_entry = 1 }
		in_entry && /^F:\t/ { f[++nf] = $0; next }
		in_entry && nf && !/^F:\t/ { flush(); in_entry = 0 }
		{ print }
		END { if (nf) flush() }' "$base/MAINTAINERS" > "$out/MAINTAINERS"
	[ $(($(wc -l < "$base/MAINTAINERS") + $(wc -l < "$out/maintainers.add"))) = \
	  "$(wc -l < "$out/MAINTAINERS")" ] ||
		die "MAINTAINERS: could not add the F: lines to '$title'"
	cp "$out/MAINTAINERS" "$base/MAINTAINERS"
	uncovered > "$out/uncovered"
	[ ! -s "$out/uncovered" ] ||
		die "MAINTAINERS: '$title' still does not cover: $(cat "$out/uncovered")"
	{
		echo "MAINTAINERS: Add the x86 perf scheduler tests to $title"
		echo
		echo "The series adds files that the $title entry does"
		echo "not cover yet: the user-space test harness and simulator of the x86"
		echo "counter scheduler, the kselftests of a group leader after CPU"
		echo "offline, of the HT erratum workaround switch, of flexible groups and"
		echo "of large PEBS, and the documentation of the switch. Add them to the"
		echo "entry, so that their patches reach its maintainers and list. The"
		echo "KUnit tests in arch/x86/events/ are covered already."
		echo
		echo "$signoff"
	} > "$out/msg"
	git -C "$base" add -f MAINTAINERS
	git_id -C "$base" commit -q --author="$author" -F "$out/msg"
	maint=$(git -C "$base" rev-parse HEAD)
fi

# The whole series in one, for git am and bisection; it is sent as the
# topic series below, each with its cover letter. Nothing of an earlier
# run stays.
rm -rf "$out/patches" "$out/topics" "$out/topics.d" "$out"/prefix-*.log
git_id -C "$base" format-patch -q --base=pristine -o "$out/patches" pristine..HEAD
echo "export: $(ls "$out/patches" | wc -l) patches in $out/patches, from $author"

# Proof 1: git am onto the pristine base.
am=$out/am
git -C "$base" worktree remove -f "$am" 2>/dev/null || rm -rf "$am"
git -C "$base" worktree prune
git -C "$base" worktree add -q --detach "$am" pristine
git_id -C "$am" am -q "$out"/patches/*.patch
echo "export: git am onto the pristine base: ok"

# checkpatch (proof 3) checks SPDX tags with scripts/spdxcheck.py and takes
# a tag for valid when that script cannot run: make sure it runs, on a file
# of the base whose tag is valid. It runs the python3 of PATH, and the
# modules it needs are Debian's (mk/deps.sh): Debian's python3 first, before
# one of a user's own (pyenv, a venv) that lacks them.
export PATH="/usr/bin:$PATH"
(cd "$am" && scripts/spdxcheck.py Makefile) > "$out/spdxcheck.log" 2>&1 &&
	[ ! -s "$out/spdxcheck.log" ] ||
	die "scripts/spdxcheck.py, which checkpatch runs, needs python3 with ply and git" \
	    "(apt-get install python3-ply python3-git): $(tail -n 1 "$out/spdxcheck.log")"

# Proof 2: every prefix compiles arch/x86/events/ and kernel/events/ with
# the test config.
# build_prefixes WORKTREE CONFIG NAME [FROM]: every commit of WORKTREE
# after FROM (default: pristine), checked out in turn, compiles both with
# CONFIG.
build_prefixes() {
	obj=$out/obj-$3
	mkdir -p "$obj"
	i=0
	for c in $(git -C "$1" rev-list --reverse "${4:-pristine}"..HEAD); do
		i=$((i + 1))
		git -C "$1" checkout -q "$c"
		cp "$2" "$obj/.config"
		make -s -C "$1" O="$obj" ARCH=x86_64 CC="ccache gcc" olddefconfig > /dev/null
		if ! make -s -C "$1" O="$obj" ARCH=x86_64 CC="ccache gcc" -j"$jobs" \
		     arch/x86/events/ kernel/events/ > "$out/prefix-$3-$i.log" 2>&1; then
			cat "$out/prefix-$3-$i.log" >&2
			die "$3: prefix $i ($(git -C "$1" log -1 --format=%s)) does not compile"
		fi
		echo "export: $3: prefix $i builds: $(git -C "$1" log -1 --format=%s)"
	done
}
build_prefixes "$am" "$fragment" mainline

# Proof 3: checkpatch --strict on every exported patch, in the tree the
# series applies to. checkpatch asks "does MAINTAINERS need updating?"
# (FILE_PATH_CHANGES) of every patch that adds a file without touching
# MAINTAINERS; the answer is known: every new file is in $title at the
# end of the series (checked above), so that question is ignored for a
# patch that only adds files the export has checked. The base repository
# has no upstream history, so the commits of Fixes: tags cannot be looked
# up (UNKNOWN_COMMIT_ID); their form is still checked. A fix whose
# message says why it names no commit ("No Fixes: tag: ...") goes
# without the tag (MISSING_FIXES_TAG).
# checkpatch_all TREE PATCHES...: checkpatch --strict of TREE on each.
checkpatch_all() {
	tree=$1
	shift
	bad=0
	for f in "$@"; do
		ignore="--ignore UNKNOWN_COMMIT_ID"
		! grep -q '^No Fixes: tag: ' "$f" ||
			ignore="--ignore UNKNOWN_COMMIT_ID,MISSING_FIXES_TAG"
		awk '/^diff --git /{ n = $4; sub(/^b\//, "", n) } /^new file mode /{ print n }' \
			"$f" > "$out/added"
		LC_ALL=C sort "$out/added" | LC_ALL=C comm -23 - "$out/overlay.all" \
			> "$out/added.ours"
		if [ -s "$out/added" ] && [ ! -s "$out/added.ours" ] &&
		   ! grep -q -e '^deleted file mode ' -e '^rename from ' "$f"; then
			ignore="$ignore,FILE_PATH_CHANGES"
		fi
		if ! (cd "$tree" && perl scripts/checkpatch.pl --strict --quiet \
		      --show-types $ignore "$f") > "$out/checkpatch.log" 2>&1 ||
		   [ -s "$out/checkpatch.log" ]; then
			echo "export: checkpatch: $(basename "$f"):" >&2
			sed 's/^/  /' "$out/checkpatch.log" >&2
			bad=$((bad + 1))
		fi
	done
	[ "$bad" = 0 ] || die "checkpatch --strict: $bad patches with errors, warnings or checks"
	echo "export: checkpatch --strict of $(basename "$tree") on $# patches: clean"
}
checkpatch_all "$am" "$out"/patches/*.patch

# Proof 4: the topic series, as they are sent. series/topics cuts the
# series into topics, in order; each names the earlier topics it applies
# on. A topic is a branch of $base: the topics it needs, as their own
# branches have them, then its patches, and the MAINTAINERS update in the
# topic that adds the last file the entry did not cover. git format-patch
# --base=pristine writes it with its cover letter (series/cover/NAME), the
# base-commit and the patch ids of what it needs; To: and Cc: are
# get_maintainer.pl's for its patches. It is git am'd with what it needs
# onto the base in a fresh work tree, checked by checkpatch --strict, and
# every prefix of its own patches compiles, unless it needs every topic
# before it: its trees are then those of proof 2.
tlist=series/topics
grep -v -e '^#' -e '^[[:space:]]*$' "$tlist" > "$out/topics.list" ||
	die "$tlist names no topic"
echo "$patches" | awk 'NR == FNR { name[++t] = $1; last[t] = $2; next }
	{
		if (k == 0)
			k = 1
		if (k > t) {
			print "export: " $0 " comes after the last topic" > "/dev/stderr"
			exit 1
		}
		print $0, name[k]
		if ($0 == last[k])
			k++
	}
	END {
		if (k != t + 1) {
			print "export: a topic ends on no patch, or out of order" > "/dev/stderr"
			exit 1
		}
	}' \
	"$out/topics.list" - > "$out/topic-of" || die "$tlist does not cut series/series in order"

# The topic of the MAINTAINERS update.
mtopic=
if [ -n "$maint" ]; then
	for p in $patches; do
		for n in $(awk -v p="$p" '$1 == p { for (i = 2; i <= NF; i++) print $i }' \
			   series/overlay); do
			! grep -qxF "$n" "$out/uncovered.base" ||
				mtopic=$(awk -v p="$p" '$1 == p { print $2 }' "$out/topic-of")
		done
	done
fi

# format_topic DIR RANGE TO CC: DIR/ holds the patches of RANGE of $base,
# with the cover letter and the addresses of the files TO and CC.
format_topic() {
	dir=$1 range=$2 to=$3 cc=$4
	set --
	while read -r a; do set -- "$@" --to="$a"; done < "$to"
	while read -r a; do set -- "$@" --cc="$a"; done < "$cc"
	rm -rf "$dir"
	git_id -C "$base" format-patch -q --cover-letter --base=pristine -o "$dir" "$@" "$range"
}

rm -rf "$out/topics" "$out/topics.d" "$out/topic-am"
git -C "$base" worktree prune
earlier=
ti=0
ntopics=$(wc -l < "$out/topics.list")
while [ "$ti" -lt "$ntopics" ]; do
	ti=$((ti + 1))
	tname=$(awk -v i="$ti" 'NR == i { print $1 }' "$out/topics.list")
	tneeds=$(awk -v i="$ti" 'NR == i { for (j = 3; j <= NF; j++) print $j }' \
		 "$out/topics.list" | tr '\n' ' ')
	cover=series/cover/$tname
	[ -f "$cover" ] || die "$tlist: $tname has no cover letter $cover"
	for n in $tneeds; do
		echo "$earlier" | grep -qxF "$n" || die "$tlist: $tname needs $n, no earlier topic"
		for m in $(awk -v n="$n" '$1 == n { for (i = 3; i <= NF; i++) print $i }' \
			   "$out/topics.list"); do
			echo " $tneeds " | grep -qF " $m " ||
				die "$tlist: $tname needs $n, which needs $m: name it too"
		done
	done
	# What it needs, in topic order.
	needs=$(echo "$earlier" | while read -r n; do
		if echo " $tneeds " | grep -qF " $n "; then echo "$n"; fi
	done)
	git -C "$base" checkout -q -f --detach pristine
	for n in $needs; do
		git_id -C "$base" cherry-pick "$(cat "$out/topics.d/$n.range")" > /dev/null ||
			die "$tname: $n does not apply onto what it needs"
	done
	from=$(git -C "$base" rev-parse HEAD)
	for p in $(awk -v t="$tname" '$2 == t { print $1 }' "$out/topic-of"); do
		git_id -C "$base" cherry-pick \
			"$(awk -v p="$p" '$1 == p { print $2 }' "$out/commits")" > /dev/null ||
			die "$tname: $p does not apply onto the topics it needs ($tneeds)"
	done
	[ "$tname" != "$mtopic" ] || git_id -C "$base" cherry-pick "$maint" > /dev/null ||
		die "$tname: the MAINTAINERS update does not apply"
	mkdir -p "$out/topics.d"
	echo "$from..$(git -C "$base" rev-parse HEAD)" > "$out/topics.d/$tname.range"
	tdir=$out/topics/$ti-$tname
	echo "$tdir" > "$out/topics.d/$tname.dir"
	git_id -C "$base" format-patch -q -o "$out/topics.d/$tname.tmp" "$from..HEAD"
	(cd "$am" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-fixes --no-rolestats --nol --nor "$out/topics.d/$tname.tmp"/*.patch) \
		> "$out/topics.d/$tname.to"
	(cd "$am" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-fixes --no-rolestats --nom "$out/topics.d/$tname.tmp"/*.patch) \
		> "$out/topics.d/$tname.cc"
	rm -rf "$out/topics.d/$tname.tmp"
	[ -s "$out/topics.d/$tname.to" ] || die "$tname: get_maintainer.pl names no maintainer"
	format_topic "$tdir" "$from..HEAD" "$out/topics.d/$tname.to" "$out/topics.d/$tname.cc"
	# The cover letter: series/cover/NAME, what the topic needs, the base.
	{
		sed '1,2d' "$cover"
		echo
		echo "Base: Linux $(make -s -C "$pristine" kernelversion) as" \
			"$(basename "$pristine") has it; the base-commit below is"
		echo "the export's commit of that tree, not an upstream commit."
		if [ -n "$needs" ]; then
			echo
			echo "It applies to Linux $(make -s -C "$pristine" kernelversion) after" \
			"these series (the"
			echo "prerequisite-patch-id lines below):"
			for n in $needs; do
				echo "  \"$(head -n 1 "series/cover/$n")\""
			done
		fi
	} > "$out/topics.d/$tname.body"
	python3 - "$tdir/0000-cover-letter.patch" "$(head -n 1 "$cover")" \
		"$out/topics.d/$tname.body" <<'PY'
import sys
path, subject, body = sys.argv[1:4]
text = open(path).read()
text = text.replace('*** SUBJECT HERE ***', subject)
text = text.replace('*** BLURB HERE ***', open(body).read().rstrip('\n'))
open(path, 'w').write(text)
PY
	# Proof: git am with what it needs onto the base, the same tree.
	tam=$out/topic-am
	git -C "$base" worktree remove -f "$tam" 2>/dev/null || rm -rf "$tam"
	git -C "$base" worktree prune
	git -C "$base" worktree add -q --detach "$tam" pristine
	for n in $needs; do
		git_id -C "$tam" am -q $(ls "$(cat "$out/topics.d/$n.dir")"/*.patch |
					  grep -v /0000-) ||
			die "$tname: $n does not git am"
	done
	tfrom=$(git -C "$tam" rev-parse HEAD)
	git_id -C "$tam" am -q $(ls "$tdir"/*.patch | grep -v /0000-) ||
		die "$tname does not git am onto what it needs"
	git -C "$tam" diff --quiet HEAD "$(git -C "$base" rev-parse HEAD)" ||
		die "$tname: git am gives another tree than its branch"
	n=$(ls "$tdir" | grep -vc '^0000-')
	after=$(echo "$needs" | tr '\n' ' ' | sed 's/ $//')
	echo "export: topic $ti, $tname: $n patches, git am onto the base after" \
		"${after:-nothing}: ok"
	checkpatch_all "$tam" $(ls "$tdir"/*.patch | grep -v /0000-)
	if [ "$(echo "$needs")" = "$(echo "$earlier" | sed '/^$/d')" ]; then
		echo "export: topic $ti, $tname: needs every topic before it: its" \
			"trees are those of the series, built above"
	else
		build_prefixes "$tam" "$fragment" "topic-$tname" "$tfrom"
	fi
	earlier=$(printf '%s\n%s' "$earlier" "$tname" | sed '/^$/d')
done
git -C "$base" checkout -q -f master
git -C "$base" worktree remove -f "$out/topic-am"
echo "export: $ti topic series in $out/topics"

# Proof 5: the fixes where stable users are, on 6.12.
[ -n "$stable" ] || exit 0
slist=series/stable-6.12/series
[ -n "$(grep -v -e '^#' -e '^[[:space:]]*$' "$slist" 2>/dev/null)" ] ||
	die "$slist lists no patch"
for bp in series/stable-6.12/*; do
	case $bp in */series) continue ;; esac
	grep -qxF "$(basename "$bp")" "$slist" ||
		die "$bp: a backport of a patch $slist does not name"
done
sbase=$out/stable.git
git_base "$sbase" "$stable"
for p in $(grep -v -e '^#' -e '^[[:space:]]*$' "$slist"); do
	c=$(awk -v p="$p" '$1 == p { print $2 }' "$out/commits")
	[ -n "$c" ] || die "$slist names $p, which series/series does not"
	git -C "$base" log -1 --format=%B "$c" > "$out/msg"
	bp=series/stable-6.12/$p
	if [ -f "$bp" ]; then
		# The backport's note, as [ ... ] above the sign-off.
		sed -n '1,/^---$/p' "$bp" | sed '$d' | sed '/^[[:space:]]*$/d' |
			sed '1s/^/[ /; $s/$/ ]/' > "$out/note"
		grep -q '^\[ Backport: ' "$out/note" ||
			die "$bp: no Backport: note above its ---"
		awk -v note="$out/note" '
			/^Signed-off-by: / && !done {
				while ((getline l < note) > 0)
					print l
				done = 1
			}
			{ print }' "$out/msg" > "$out/msg.bp"
		sed '1,/^---$/d' "$bp" > "$out/diff"
		commit_patch "$sbase" "$p" "$out/diff" "$out/msg.bp" ||
			die "$bp does not apply to 6.12"
	else
		commit_patch "$sbase" "$p" "$repo/series/$p" "$out/msg" ||
			die "$p does not apply to 6.12: add its backport as $bp"
	fi
done
rm -rf "$out/stable-6.12"
git_id -C "$sbase" format-patch -q --base=pristine -o "$out/stable-6.12" pristine..HEAD
sam=$out/stable-am
git -C "$sbase" worktree remove -f "$sam" 2>/dev/null || rm -rf "$sam"
git -C "$sbase" worktree prune
git -C "$sbase" worktree add -q --detach "$sam" pristine
git_id -C "$sam" am -q "$out"/stable-6.12/*.patch
echo "export: $(ls "$out/stable-6.12" | wc -l) patches in $out/stable-6.12:" \
	"git am onto $(basename "$stable"): ok"
checkpatch_all "$sam" "$out"/stable-6.12/*.patch
# The fixes come without the KUnit patches: the series' fragment, less
# the options 6.12 does not have (olddefconfig drops them).
cp arch/x86/events/.kunitconfig "$out/stable.config"
build_prefixes "$sam" "$out/stable.config" stable-6.12
