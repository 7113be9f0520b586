#!/usr/bin/env bash
# Fails when the repository tracks what a run makes and must never be committed: a file over
# 2 MB (the places table, assets/places.tsv, aside), a database (a SQLite file, by name or by
# its first bytes) or a key file. Part of `make lint`.
#   tests/support/check-repository.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

limit=$((2 * 1024 * 1024))
allowed_large="assets/places.tsv"
problems=()
while IFS= read -r -d '' path; do
    # Deleted in the work tree (and about to be committed as deleted): nothing to check.
    [ -f "$path" ] || continue
    case "$path" in
        *.sqlite3 | *.sqlite3-* | *.sqlite | *.db | *.keys)
            problems+=("$path: a database or key file")
            continue
            ;;
    esac
    if [ "$(head -c 15 "$path" | tr -d '\0')" = "SQLite format 3" ]; then
        problems+=("$path: a SQLite database")
        continue
    fi
    size=$(stat -c %s "$path")
    if [ "$size" -gt "$limit" ] && [ "$path" != "$allowed_large" ]; then
        problems+=("$path: $((size / 1024 / 1024)) MB, over the 2 MB a tracked file may have")
    fi
done < <(git ls-files -z --cached)

if [ "${#problems[@]}" -gt 0 ]; then
    echo "tracked files that must not be committed (git rm --cached them):" >&2
    printf '  %s\n' "${problems[@]}" >&2
    exit 1
fi
echo "tracked files: no database, key file or file over 2 MB"
