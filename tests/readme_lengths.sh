#!/bin/sh
# readme_lengths.sh SRC_DIR - every chapter's README (NN_*/README.md, and
# one in a chapter's subfolder, as the batch tool's) is at most 400 lines;
# each one over is named.
set -u
cd "${1:?usage: readme_lengths.sh SRC_DIR}" || exit 1
bad=0 n_files=0
for f in [0-9][0-9]_*/README.md [0-9][0-9]_*/*/README.md; do
    [ -f "$f" ] || continue
    n_files=$((n_files + 1))
    n=$(wc -l <"$f")
    if [ "$n" -gt 400 ]; then
        echo "$f: $n lines, over 400"
        bad=1
    fi
done
[ "$n_files" -gt 0 ] || { echo "no chapter README found"; exit 1; }
[ $bad -eq 0 ] && echo "$n_files chapter READMEs, each at most 400 lines"
exit $bad
