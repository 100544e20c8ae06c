#!/bin/sh
# run.sh - how a CTest case judges one run of a program.
#
#   run.sh pass CMD...          exit 0 and a stdout line starting "PASS";
#                               exit 77 (no GPU) is passed on as "skipped"
#   run.sh fail CMD...          exit 1 and a stdout line starting "FAIL"
#                               (an unsolved exercise); 77 is "skipped"
#   run.sh help CMD...          exit 0 and stdout starting "usage:"
#   run.sh exit RC REGEX CMD... exit status RC and stderr exactly one line,
#                               matching the extended regex REGEX
#   run.sh gpu-exit RC REGEX CMD...  the same for a program that looks for
#                               a GPU first: its exit 77 is "skipped"
mode=$1
shift
out=$(mktemp) && err=$(mktemp) || exit 1
trap 'rm -f "$out" "$err"' EXIT

show() {
    echo "--- stdout (last 40 lines)"; tail -n 40 "$out"
    echo "--- stderr"; cat "$err"
}

# expect RC WORD CMD...: CMD exits RC with a stdout line starting WORD;
# its exit 77 (no GPU) is passed on, so CTest reports "skipped".
expect() {
    want=$1 word=$2
    shift 2
    "$@" >"$out" 2>"$err"
    rc=$?
    if [ $rc -eq 77 ]; then
        cat "$err"
        exit 77
    fi
    if [ $rc -ne "$want" ] || ! grep -q "^$word" "$out"; then
        echo "expected exit $want and a $word line, got exit $rc"; show
        exit 1
    fi
    grep "^$word" "$out"
}

case $mode in
pass)
    expect 0 PASS "$@"
    ;;
fail)
    expect 1 FAIL "$@"
    ;;
help)
    "$@" >"$out" 2>"$err"
    rc=$?
    if [ $rc -ne 0 ] || ! head -n 1 "$out" | grep -q '^usage:'; then
        echo "expected exit 0 and usage text, got exit $rc"; show
        exit 1
    fi
    ;;
exit|gpu-exit)
    want=$1 regex=$2
    shift 2
    "$@" >"$out" 2>"$err"
    rc=$?
    if [ "$mode" = gpu-exit ] && [ $rc -eq 77 ]; then
        cat "$err"
        exit 77
    fi
    lines=$(wc -l <"$err")
    if [ $rc -ne "$want" ] || [ "$lines" -ne 1 ] ||
        ! grep -Eq -- "$regex" "$err"; then
        echo "expected exit $want and one stderr line matching '$regex';"
        echo "got exit $rc and $lines stderr lines"; show
        exit 1
    fi
    cat "$err"
    ;;
*)
    echo "run.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
