#!/bin/sh
# tests.sh - the multi-step checks of imgbatch, the batch tool, in
# tests/06_image_preprocess.cmake. BIN is imgbatch.
#
#   tests.sh outputs BIN FIXTURES CHECK_NPY
#       the .npy files GPU runs write load in NumPy with the right shape
#       (that part is skipped without NumPy), with --skip-bad counting
#       only the good images; a decode failure inside the pipeline (a
#       corrupt file, a file cut short) stops the run naming the file and
#       leaves no .npy behind. Exit 77 without a GPU.
#   tests.sh corpora BIN DIR
#       writes the JPEG folders the tests read into DIR (no GPU):
#       baseline, progressive, gray, odd (333 x 217), mixed (37 files, a
#       quarter progressive)
#   tests.sh routed BIN GPU HYBRID CPU ARGS...
#       a run that prints PASS and routes GPU images to the GPU (HYBRID
#       of them by nvJPEG's hybrid path) and CPU images to the CPU
#       ("routed: ..." line); 77 without a GPU
#   tests.sh repeatable BIN DIR OUT
#       two runs of the GPU decoder on DIR write identical .npy files
mode=$1 bin=$2
shift 2
case $mode in
outputs)
    fixtures=$1 check_npy=$2 out=$1/batch_out
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
    run --out-npy "$out.1.npy" "$fixtures/batch"
    run --skip-bad --out-npy "$out.2.npy" "$fixtures/batch_corrupt"
    run --skip-bad --out-npy "$out.3.npy" "$fixtures/batch_cut"
    run --out-npy "$out.4.npy" --resize 40x30 --batch-size 1 --streams 3 \
        "$fixtures/batch_mixed"
    # refused BATCH FILE MESSAGE: the batch stops with exit 1 naming FILE,
    # and leaves no .npy behind.
    refused() {
        "$bin" --out-npy "$out.bad.npy" "$fixtures/$1" >"$out.log" 2>&1
        rc=$?
        left=$(ls "$out".bad.* 2>/dev/null)
        if [ $rc -ne 1 ] || [ -n "$left" ] ||
            ! grep -q "$1/$2: $3" "$out.log"; then
            cat "$out.log"
            echo "expected exit 1 naming $2 and no $out.bad.npy;" \
                "got exit $rc and: $left"
            exit 1
        fi
    }
    refused batch_corrupt b.png 'cannot decode'
    refused batch_cut b.bmp 'truncated BMP'
    if ! python3 -c 'import numpy' 2>/dev/null; then
        echo "numpy is not installed: the .npy files were not loaded"
        exit 0
    fi
    python3 "$check_npy" "$out.1.npy" --shape 4,23,37 &&
        python3 "$check_npy" "$out.2.npy" --shape 2,23,37 &&
        python3 "$check_npy" "$out.3.npy" --shape 2,23,37 &&
        python3 "$check_npy" "$out.4.npy" --shape 2,30,40 || exit 1
    ;;
corpora)
    dir=$1
    mkdir -p "$dir" || exit 1
    mk() {
        "$bin" --make-corpus "$dir/$1" --count "$2" --size "$3" \
            --kind "$4" --threads 2 >/dev/null || exit 1
    }
    mk baseline 24 imagenet baseline
    mk progressive 12 imagenet progressive
    mk gray 12 imagenet gray
    mk odd 12 333x217 baseline
    mk mixed 37 imagenet mixed
    ;;
routed)
    gpu=$1 hybrid=$2 cpu=$3
    shift 3
    out=$(mktemp) || exit 1
    trap 'rm -f "$out"' EXIT
    "$bin" "$@" >"$out" 2>&1
    rc=$?
    [ $rc -eq 77 ] && { cat "$out"; exit 77; }
    want="routed: $gpu images decoded on the GPU"
    [ "$hybrid" -gt 0 ] && want="$want ($hybrid of them by [^)]*)"
    want="$want, $cpu on the CPU"
    if [ $rc -ne 0 ] || ! grep -q '^PASS' "$out" ||
        ! grep -q "^$want" "$out"; then
        cat "$out"
        echo "expected exit 0, PASS and '$want', got exit $rc"
        exit 1
    fi
    grep -E '^(routed|check|PASS)' "$out"
    ;;
repeatable)
    dir=$1 out=$2
    rm -f "$out".1.npy "$out".2.npy
    for k in 1 2; do
        "$bin" --decoder gpu "$dir" --out-npy "$out.$k.npy" >"$out.log" 2>&1
        rc=$?
        [ $rc -eq 77 ] && exit 77
        if [ $rc -ne 0 ] || ! grep -q '^PASS' "$out.log"; then
            cat "$out.log"
            echo "run $k: expected PASS, got exit $rc"
            exit 1
        fi
    done
    if ! cmp "$out.1.npy" "$out.2.npy"; then
        echo "two GPU decodes of $dir differ"
        exit 1
    fi
    echo "two runs, identical tensors: $(wc -c <"$out.1.npy") bytes"
    rm -f "$out".1.npy "$out".2.npy "$out.log"
    ;;
*)
    echo "usage: tests.sh outputs|corpora|routed|repeatable ..." >&2
    exit 2
    ;;
esac
