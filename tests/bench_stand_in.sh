#!/bin/sh
# bench_stand_in.sh - stands in for both imgbatch and python3 in the CPU
# test of 06_image_preprocess/batch/bench.sh (imgbatch.bench_table), so
# that the test reads the benchmark's own parsing and table, not a GPU:
#
#   bench_stand_in.sh --make-corpus DIR ...      makes DIR, one line
#   bench_stand_in.sh .../bench_torchvision.py   RESULT line, 50 images/s
#                                                (none: STAND_IN_NO_RESULT=1);
#                                                with --dataloader, 25 with
#                                                16 workers
#   bench_stand_in.sh - ...                      python's script on stdin
#                                                (the hard links): nothing
#   bench_stand_in.sh DIR ... --bare-decode ...  decode line, 200 images/s
#   bench_stand_in.sh DIR ...                    throughput 100, 130, 70,
#                                                100, ... images/s, the
#                                                calls on DIR in turn
#                                                (counted in DIR)
case $1 in
--make-corpus)
    mkdir -p "$2" && echo "corpus: stand-in files in $2"
    ;;
-)
    cat >/dev/null
    ;;
*bench_torchvision.py)
    # STAND_IN_NO_RESULT=1: a run that ends without its result line.
    [ -n "${STAND_IN_NO_RESULT:-}" ] && exit 0
    label= loader=
    while [ $# -gt 0 ]; do
        [ "$1" = --label ] && label=$2
        [ "$1" = --dataloader ] && loader=1
        shift
    done
    if [ -n "$loader" ]; then
        echo "RESULT label=$label images=2 workers=16 median=25.0" \
            "min=20.0 max=30.0"
    else
        echo "RESULT label=$label images=2 list=64 median=50.0 min=40.0" \
            "max=60.0"
    fi
    ;;
*)
    case " $* " in
    *" --bare-decode "*)
        echo "bare nvJPEG batched decode: 200 images/s median (min 190," \
            "max 210; 7 passes, 10.00 ms each median), batches of 2" ;;
    *)
        count=$(cat "$1/stand_in.count" 2>/dev/null || echo 0)
        echo $((count + 1)) >"$1/stand_in.count"
        case $((count % 3)) in
        0) echo "throughput: 100 images/s (min 90, max 110), 1.0 MB/s" ;;
        1) echo "throughput: 130 images/s (min 117, max 143), 1.3 MB/s" ;;
        2) echo "throughput: 70 images/s (min 63, max 77), 0.7 MB/s" ;;
        esac
        echo "limited by: the stand-in" ;;
    esac
    echo "PASS (1 check)"
    ;;
esac
