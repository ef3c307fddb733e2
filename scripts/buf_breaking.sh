#!/usr/bin/env bash
# buf breaking: protos/ must stay wire- and source-compatible (buf.yaml's FILE rules) with the
# last tagged state of protos/, named in .buf-baseline as "<tag> <commit>". The tag is used when
# this clone has it (it must still point at that commit); otherwise the commit itself, so a clone
# without tags checks the same state. Run after scripts/buf_lint.sh, which fills .buf-deps/.
#
#   scripts/buf_breaking.sh [WORKSPACE]   # WORKSPACE: a directory with buf.yaml, protos/ and
#                                         # .buf-deps/ to check instead of this checkout
#
# A release that changes the API on purpose tags its commit (git tag protos-vN <commit>) and
# writes the new tag and commit to .buf-baseline in the same change.
set -euo pipefail
cd "$(dirname "$0")/.."
workspace=$(cd "${1:-.}" && pwd)
read -r tag commit < .buf-baseline
tagged=$(git rev-parse -q --verify "refs/tags/$tag^{commit}" || true)
if [ -n "$tagged" ] && [ "$tagged" != "$commit" ]; then
  echo "buf breaking: tag $tag is at $tagged, but .buf-baseline says $commit" >&2
  exit 1
fi
if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
  echo "buf breaking: the baseline $tag ($commit) is not in this clone (shallow?)" >&2
  exit 1
fi
base=$(mktemp -d)
trap 'rm -rf "$base"' EXIT
git archive "$commit" protos | tar -x -C "$base"
cp buf.yaml "$base/"
cp -r "$workspace/.buf-deps" "$base/"
(cd "$workspace" && buf breaking --against "$base")
echo "buf breaking: OK against $tag (${commit:0:12})"
