#!/usr/bin/env bash
# What the repository must not hold, checked before anything is built:
#   - a tracked path with a part starting with `-` (a program that took an unknown flag for its
#     output path once left a binary trace named `--end-with` at the root);
#   - a binary file outside the fuzz corpus, the test fixtures and the README's PNG images in
#     docs/ (made by the tests' browser), the places binary files belong (a trace written by a
#     run, an executable or an archive committed by mistake);
#   - a commit subject longer than 72 characters, for commits after REPO_CHECK_SINCE (the first
#     commit the rule applies to; subjects before it are history);
#   - a commit after REPO_CHECK_BODY_SINCE that touches Sources/ with no body saying why
#     (CONTRIBUTING.md: "Commits"; a trivial change says so in one line of body);
#   - CI steps whose time limits add up to an hour or more (.ci/run's `step LIMIT ...` lines).
set -euo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
since=${REPO_CHECK_SINCE:-2c434c1}
status=0
dashed=$(git ls-files | awk -F/ '{ for (i = 1; i <= NF; i++) if ($i ~ /^-/) { print; next } }')
if [ -n "$dashed" ]; then
    echo "repo-check: tracked paths with a part that starts with '-' (a flag taken for a path?):" >&2
    echo "$dashed" >&2
    status=1
fi
# `grep -IL ''` lists the files grep takes for binary (a NUL byte in the first block), and empty
# files, which are not.
binaries=$(git ls-files -z | xargs -0 grep -IL '' -- 2>/dev/null |
    grep -Ev '^(Fuzz/corpus/|Tests/Fixtures/|docs/[^/]+[.]png$)' | while IFS= read -r f; do [ ! -s "$f" ] || echo "$f"; done || true)
if [ -n "$binaries" ]; then
    echo "repo-check: binary files outside Fuzz/corpus/, Tests/Fixtures/ and docs/*.png:" >&2
    echo "$binaries" >&2
    status=1
fi
if git rev-parse --verify --quiet "$since^{commit}" >/dev/null; then
    long=$(git log --format='%h %s' "$since..HEAD" | awk 'length($0) - index($0, " ") > 72')
    if [ -n "$long" ]; then
        echo "repo-check: commit subjects longer than 72 characters:" >&2
        echo "$long" >&2
        status=1
    fi
else
    echo "repo-check: $since is not in this clone's history; subjects not checked" >&2
fi
body_since=${REPO_CHECK_BODY_SINCE:-638d296}
if git rev-parse --verify --quiet "$body_since^{commit}" >/dev/null; then
    bare=""
    for commit in $(git rev-list "$body_since..HEAD"); do
        if [ -z "$(git log -1 --format=%b "$commit" | tr -d '[:space:]')" ] &&
            git diff-tree --no-commit-id --name-only -r "$commit" | grep -q '^Sources/'; then
            bare+="$(git log -1 --format='%h %s' "$commit")"$'\n'
        fi
    done
    if [ -n "$bare" ]; then
        echo "repo-check: commits that touch Sources/ without a body saying why:" >&2
        printf '%s' "$bare" >&2
        status=1
    fi
else
    echo "repo-check: $body_since is not in this clone's history; commit bodies not checked" >&2
fi
limits=$(awk '$1 == "step" && $2 ~ /^[0-9]+$/ { sum += $2 } END { print sum + 0 }' .ci/run)
if [ "$limits" -ge 3600 ]; then
    echo "repo-check: .ci/run's step limits add up to ${limits}s; they must stay under 3600s" >&2
    status=1
fi
[ $status -eq 0 ] && echo "repo-check: ok (CI step limits: ${limits}s)" >&2
exit $status
