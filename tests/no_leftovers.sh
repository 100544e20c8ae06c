#!/bin/sh
# no_leftovers.sh RC CMD...: runs CMD in a fresh empty folder (so give it
# relative output paths, e.g. --csv r.csv) and passes when CMD exits RC
# and leaves the folder empty: no output file, no temporary one. An exit
# 77 (no GPU) is passed on, so CTest reports "skipped", unless RC is 77.
want=$1
shift
dir=$(mktemp -d) && err=$(mktemp) || exit 1
trap 'rm -rf "$dir" "$err"' EXIT
(cd "$dir" && exec "$@") >/dev/null 2>"$err"
rc=$?
cat "$err"
if [ $rc -eq 77 ] && [ "$want" -ne 77 ]; then
    exit 77
fi
left=$(ls -A "$dir")
if [ $rc -ne "$want" ] || [ -n "$left" ]; then
    echo "expected exit $want and nothing left; got exit $rc, left: $left"
    exit 1
fi
