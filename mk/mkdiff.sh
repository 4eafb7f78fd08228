#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print a git-style diff (with diffstat) of FILES between two kernel trees,
# for the body of a series/ patch.
# Usage: mk/mkdiff.sh OLD_TREE NEW_TREE FILE...
set -eu
old=$(cd "$1" && pwd)
new=$(cd "$2" && pwd)
shift 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mkdiff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git init -q "$tmp"
for f in "$@"; do
	if [ -f "$old/$f" ]; then
		mkdir -p "$tmp/$(dirname "$f")"
		cp "$old/$f" "$tmp/$f"
	fi
done
git -C "$tmp" add -A
git -C "$tmp" -c user.name=x -c user.email=x@x commit -q --allow-empty -m old
for f in "$@"; do
	mkdir -p "$tmp/$(dirname "$f")"
	cp "$new/$f" "$tmp/$f"
done
git -C "$tmp" add -A
git -C "$tmp" diff --cached --stat=72 -p
