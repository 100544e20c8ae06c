#!/bin/sh
# decode_tests.sh - the GPU JPEG decode checks of
# tests/06_image_preprocess.cmake.
#
#   decode_tests.sh corpora BIN DIR
#       writes the JPEG folders the tests read into DIR (no GPU):
#       baseline, progressive, gray, odd (333 x 217), mixed (37 files, a
#       quarter progressive)
#   decode_tests.sh routed BIN GPU HYBRID CPU ARGS...
#       a run that prints PASS and routes GPU images to the GPU (HYBRID
#       of them by nvJPEG's hybrid path) and CPU images to the CPU
#       ("routed: ..." line); 77 without a GPU
#   decode_tests.sh repeatable BIN DIR OUT
#       two runs of the GPU decoder on DIR write identical .npy files
mode=$1 bin=$2
shift 2
case $mode in
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
    echo "usage: decode_tests.sh corpora|routed|repeatable ..." >&2
    exit 2
    ;;
esac
