#!/bin/sh
# ctest.sh - how `make test` runs CTest: ctest's own output, its closing
# "N% tests passed, N tests failed out of N" included, then one count of
# what ran, passed, failed and was skipped, and why each skipped test was,
# grouped (from the last line it printed: a program's "no usable CUDA
# device: ..." counts as needing a GPU):
#
#   make test: 369 ran, 369 passed, 131 skipped:
#     127 need a GPU (no usable CUDA device: no NVIDIA driver or GPU found)
#     1 gnuplot not found (GNUPLOT=gnuplot)
#
#   tests/ctest.sh BUILD_DIR CTEST_ARGS...
#
# A CTEST_ARGS that selects no test (a mistyped label) is a failure. Exits
# with ctest's status.
dir=${1:?usage: tests/ctest.sh BUILD_DIR CTEST_ARGS...}
shift
cd "$dir" || exit 1
out=$(mktemp) || exit 1
trap 'rm -f "$out" "$out.rc"' EXIT
{ ctest --no-tests=error "$@" 2>&1; echo $? >"$out.rc"; } | tee "$out"
rc=$(cat "$out.rc")
log=Testing/Temporary/LastTest.log
[ -f "$log" ] || log=/dev/null

# LastTest.log holds each test's output: its last non-empty line is the
# reason a skipped test gives. ctest's own lines give each status:
# "  3/500 Test   #3: name ......   Passed    0.01 sec" (or ***Skipped,
# ***Failed, ***Not Run, ***Timeout, ***Exception...).
awk -v selected="$*" '
FNR == NR {
    if ($0 ~ /^[0-9]+\/[0-9]+ Test: /) {
        name = $0
        sub(/^[0-9]+\/[0-9]+ Test: /, "", name)
        reason[name] = ""
    } else if ($0 == "Output:") {
        inside = 1
        getline   # the dashes under it
    } else if ($0 == "<end of output>") {
        inside = 0
    } else if (inside && $0 ~ /[^ \t]/) {
        reason[name] = $0
    }
    next
}
/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / {
    line = $0
    sub(/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: /, "", line)
    name = line
    sub(/ .*/, "", name)
    if (line ~ /   Passed /) {
        passed++
    } else if (line ~ /\*\*\*Skipped/) {
        skipped++
        why = reason[name]
        sub(/^skipped: /, "", why)
        sub(/: skipped$/, "", why)
        if (why ~ /no usable CUDA device: /) {
            sub(/^.*no usable CUDA device: /, "", why)
            why = "need a GPU (no usable CUDA device: " why ")"
        } else if (why == "") {
            why = "said nothing (ctest -V -R " name " runs it)"
        }
        if (!(why in count))
            order[++groups] = why
        count[why]++
    } else {
        failed++
    }
}
END {
    ran = passed + failed
    if (ran + skipped == 0) {
        printf "make test: no test ran (ctest %s selects none)\n", selected
        exit
    }
    printf "make test: %d ran, %d passed", ran, passed
    if (failed)
        printf ", %d failed (listed above)", failed
    printf ", %d skipped%s\n", skipped, skipped ? ":" : ""
    # Most first: a bubble sort, as there are a handful.
    for (i = 1; i <= groups; i++)
        for (j = groups; j > i; j--)
            if (count[order[j]] > count[order[j - 1]]) {
                t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
            }
    for (i = 1; i <= groups; i++) {
        why = order[i]
        if (count[why] == 1)
            sub(/^need /, "needs ", why)
        printf "  %d %s\n", count[order[i]], why
    }
}' "$log" "$out"
exit "$rc"
