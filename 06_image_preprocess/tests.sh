#!/bin/sh
# tests.sh - the multi-step checks of chapter 06's tests (tests/06_*.cmake).
#
#   tests.sh leaves-nothing BIN FIXTURES   a refused input writes no file
#   tests.sh outputs BIN FIXTURES CHECK_NPY
#       the PNG and .npy files a GPU run writes open as what they claim:
#       the PNG is read back by the program, NumPy loads the tensors
#       (that part is skipped without NumPy). Exit 77 without a GPU.
# (The batch tool's are batch/tests.sh.)
#   tests.sh numpy TEST_06_NPY FILE CHECK_NPY
#       test_06_npy writes FILE, NumPy loads it (exit 77 without NumPy)
mode=$1 bin=$2 fixtures=$3
case $mode in
leaves-nothing)
    out=$fixtures/left
    rm -f "$out".*
    # Cut short: found from its chunks (PNG), or when decoded (BMP).
    for cut in truncated.png truncated.bmp; do
        "$bin" --out-npy "$out.npy" --out-png "$out.png" \
            "$fixtures/$cut" 2>/dev/null
        rc=$?
        left=$(ls "$out".* 2>/dev/null)
        if [ $rc -ne 1 ] || [ -n "$left" ]; then
            echo "$cut: expected exit 1 and no output; got exit $rc" \
                "and: $left"
            exit 1
        fi
    done
    ;;
outputs)
    check_npy=$4 out=$fixtures/out
    rm -f "$out".*
    run() {
        "$bin" "$@" >"$out.log" 2>&1
        rc=$?
        if [ $rc -ne 0 ] || ! grep -q '^PASS' "$out.log"; then
            cat "$out.log"
            [ $rc -eq 77 ] && exit 77
            echo "expected PASS from: $bin $*"
            exit 1
        fi
    }
    run --quick --synthetic 333x101 --out-png "$out.png" --out-npy "$out.npy"
    run --quick --out-npy "$out.2.npy" "$out.png"
    if ! python3 -c 'import numpy' 2>/dev/null; then
        echo "numpy is not installed: the .npy files were not loaded"
        exit 0
    fi
    python3 "$check_npy" "$out.npy" --shape 101,333 &&
        python3 "$check_npy" "$out.2.npy" --shape 101,333 || exit 1
    ;;
numpy)
    "$2" --write "$3" && python3 "$4" "$3" --shape 2,3,5 --ramp
    ;;
*)
    echo "tests.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
