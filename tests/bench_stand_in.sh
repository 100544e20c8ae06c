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
#                                                (counted in DIR); twice
#                                                that with --hybrid-share;
#                                                exit 2 on an argument
#                                                after the folder that is
#                                                neither an option nor
#                                                its value
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
    # Every argument after the folder is an option or an option's value:
    # a number after another value is a stray word of the script's.
    prev=--
    for a in "$@"; do
        [ "$a" = "$1" ] && continue
        case $a in
        --*) ;;
        *) case $prev in --*) ;; *) echo "stand-in: stray argument" \
            "'$a' in: $*" >&2; exit 2 ;; esac ;;
        esac
        prev=$a
    done
    case " $* " in
    *" --bare-decode "*)
        echo "bare nvJPEG batched decode: 200 images/s median (min 190," \
            "max 210; 7 passes, 10.00 ms each median), batches of 2" ;;
    *)
        count=$(cat "$1/stand_in.count" 2>/dev/null || echo 0)
        echo $((count + 1)) >"$1/stand_in.count"
        # twice the rates with --hybrid-share, so that a split row that
        # lost it shows
        k=1
        case " $* " in *" --hybrid-share "*) k=2 ;; esac
        case $((count % 3)) in
        0) echo "throughput: $((100 * k)) images/s (min $((90 * k))," \
            "max $((110 * k))), 1.0 MB/s" ;;
        1) echo "throughput: $((130 * k)) images/s (min $((117 * k))," \
            "max $((143 * k))), 1.3 MB/s" ;;
        2) echo "throughput: $((70 * k)) images/s (min $((63 * k))," \
            "max $((77 * k))), 0.7 MB/s" ;;
        esac
        echo "limited by: the stand-in" ;;
    esac
    echo "PASS (1 check)"
    ;;
esac
