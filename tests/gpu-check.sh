#!/usr/bin/env bash
# gpu-check.sh - the whole check on a machine with a GPU, in one go: build
# for that GPU, `make test` (a skipped GPU test counts as a failure here),
# imgbatch's GPU tests again as on a GPU without a JPEG engine
# (IMGBATCH_EMULATE_NO_ENGINE=1),
# compute-sanitizer memcheck of every chapter's --quick run, its lesson, its
# unsolved exercise and that exercise with all FIXMEs but one solved, each
# in turn (racecheck too for the labs in RACECHECK), then
# every README capture, i.e. each "<!-- capture: CMD -->" line in
# NN_*/README.md, NN_*/NOTES.md (and any README.md in a chapter's
# subfolders, such as 06's batch tool's) and README.md, run and saved for
# tests/fill-captures.py ("<!-- capture-setup: CMD -->" lines run first,
# unshown, to make input files). Everything lands in OUTDIR, bundled as
# OUTDIR/gpu-check.tgz; a short summary is printed last.
#
#   tests/gpu-check.sh OUTDIR [all|check|test|memcheck|capture]
#
# "check" is the build, tests and sanitizers ("test" and "memcheck" the
# two halves, for a machine held a few minutes at a time); "capture" the
# README runs (it builds first if needed). The sanitizer runs of each
# chapter go side by side, a chapter to a process. Environment: SMS (default 90, the H200's),
# CHAPTERS (limit both phases to these folders), RACECHECK (chapters that
# also get racecheck), TOP_README (1: capture README.md's blocks even with
# CHAPTERS set), CAPTURE_ONLY (an extended regex: only the captures whose
# command matches it run; their setup lines all run).
set -u
out=${1:?usage: tests/gpu-check.sh OUTDIR [all|check|test|memcheck|capture]}
phase=${2:-all}
sms=${SMS:-90}
racecheck=${RACECHECK:-"05_hybrid_threads"}
cd "$(dirname "$0")/.." || exit 1
chapters=${CHAPTERS:-$(ls -d [0-9][0-9]_*/ | tr -d / | tr '\n' ' ')}
mkdir -p "$out/logs" "$out/captures"
summary="$out/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader \
    >"$out/captures/gpu.txt" 2>&1
date -u +%Y-%m-%d >>"$out/captures/gpu.txt"
note "gpu: $(tr '\n' ' ' <"$out/captures/gpu.txt")"

if ! make -j"$(nproc)" SMS="$sms" CHAPTERS="$chapters" \
        >"$out/logs/build.log" 2>&1; then
    note "BUILD FAILED"; tail -30 "$out/logs/build.log"; exit 1
fi

case $phase in all|check|test)
make test SMS="$sms" CHAPTERS="$chapters" >"$out/logs/ctest.log" 2>&1
test_rc=$?
note "make test: rc=$test_rc; $(grep -E 'tests passed|tests failed' \
    "$out/logs/ctest.log")"
# A skipped GPU test is a failure here; a CPU test skipped for what this
# machine lacks (gnuplot, an old toolkit's headers) is named apart, with
# make test's reasons.
if grep -q 'did not run' "$out/logs/ctest.log"; then
    gpu_tests=$(cd build && ctest -N -L '^gpu$' |
        sed -n 's/^ *Test *#[0-9]*: //p')
    sed -n '/did not run/,/^$/s/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' \
        "$out/logs/ctest.log" |
        while IFS= read -r t; do
            if printf '%s\n' "$gpu_tests" | grep -qxF -- "$t"; then
                note "SKIPPED GPU TEST (a failure on a GPU machine): $t"
            else
                note "skipped CPU test (not a GPU test): $t"
            fi
        done
    sed -n '/^make test: /,$p' "$out/logs/ctest.log" | tee -a "$summary"
fi
grep -E '\*\*\*Failed|Not Run|Timeout' "$out/logs/ctest.log" |
    tee -a "$summary"

# imgbatch's GPU tests once more as on a GPU without a JPEG engine (T4,
# V100): IMGBATCH_EMULATE_NO_ENGINE=1 (batch/NOTES.md); its tests expect
# what imgbatch --print-engine says the GPU has.
case " $chapters " in *" 06_image_preprocess "*)
    (cd build && IMGBATCH_EMULATE_NO_ENGINE=1 ctest -L gpu -R '^imgbatch\.' \
        --output-on-failure) >"$out/logs/ctest-no-engine.log" 2>&1
    note "imgbatch GPU tests, IMGBATCH_EMULATE_NO_ENGINE=1: rc=$? $(grep -E \
        'tests passed|tests failed' "$out/logs/ctest-no-engine.log")"
    grep -E '\*\*\*Failed|Not Run|Timeout' "$out/logs/ctest-no-engine.log" |
        tee -a "$summary";;
esac

;;
esac

case $phase in all|check|memcheck)
# memcheck_chapter NAME: the chapter's sanitizer runs, their lines in
# logs/summary-NAME.txt (the chapters run side by side; the lines are
# put in order after).
memcheck_chapter() {
    local name=$1 bin=build/bin/$1 kind state log states
    local summary=$out/logs/summary-$1.txt
    : >"$summary"
    compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
        "$bin" --quick >"$out/logs/memcheck-$name.log" 2>&1
    note "memcheck  $name: rc=$? $(grep 'ERROR SUMMARY' \
        "$out/logs/memcheck-$name.log" | tail -1)"
    # An unsolved exercise exits 1 with FAIL; only an error summary above
    # 0 (exit 9) is a sanitizer failure.
    for kind in lesson exercise; do
        [ -x "$bin.$kind" ] || continue
        compute-sanitizer --tool memcheck --leak-check full \
            --error-exitcode 9 "$bin.$kind" \
            >"$out/logs/memcheck-$name.$kind.log" 2>&1
        note "memcheck  $name.$kind: rc=$? $(grep 'ERROR SUMMARY' \
            "$out/logs/memcheck-$name.$kind.log" | tail -1)"
    done
    # The exercise with all FIXMEs but one solved, each in turn (built by
    # make test's <chapter>.exercise_states_build): clean too, though it
    # FAILs. (tests/exercise_states.sh)
    states=build/tests/exercise_states/$name
    for state in $(cat "$states/states" 2>/dev/null); do
        case $state in all_but_*) ;; *) continue ;; esac
        log=$out/logs/memcheck-$name.exercise-$state.log
        compute-sanitizer --tool memcheck --leak-check full \
            --error-exitcode 9 "$states/$state" >"$log" 2>&1
        note "memcheck  $name.exercise $state: rc=$? $(grep \
            'ERROR SUMMARY' "$log" | tail -1)"
    done
    case " $racecheck " in *" $name "*)
        compute-sanitizer --tool racecheck --error-exitcode 9 \
            "$bin" --quick >"$out/logs/racecheck-$name.log" 2>&1
        note "racecheck $name: rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' \
            "$out/logs/racecheck-$name.log" | tail -1)";;
    esac
}
for name in $chapters; do
    memcheck_chapter "$name" &
done
wait
for name in $chapters; do
    cat "$out/logs/summary-$name.txt" >>"$summary"
done

# 06's batch tool, imgbatch, is a program of its own: memcheck its GPU
# JPEG decode (nvJPEG) and its CPU decode with the tensor brought back,
# on a small wild folder (mixed sizes and chroma, restart markers, Exif,
# gray files) with a file of garbage scan data and one cut in half
# (batch/tests.sh corpora makes them), resized, in gray and in RGB, in
# batches of 6 over several streams, the bad files skipped; then the GPU
# decode as on a GPU without a JPEG engine, with one image the check
# finds decoded apart (its test hook, IMGBATCH_TEST_GARBLE) and skips,
# and with the engines' files shared with the hybrid path
# (--hybrid-share auto).
case " $chapters " in *" 06_image_preprocess "*)
    tool=build/bin/imgbatch
    jpegs=$out/jpegs-memcheck
    sh 06_image_preprocess/batch/tests.sh corpora "$tool" "$jpegs" \
        >"$out/logs/memcheck-06-corpus.log" 2>&1
    # imgbatch_memcheck NAME FOLDER ARGS...: one run, its line in
    # logs/summary-imgbatch-NAME.txt
    imgbatch_memcheck() {
        local name=$1 folder=$2 log=$out/logs/memcheck-06-imgbatch-$1.log
        shift 2
        compute-sanitizer --tool memcheck --leak-check full \
            --error-exitcode 9 "$tool" "$jpegs/$folder" --skip-bad \
            --resize 64x48 --batch-size 6 --streams 3 --repeat 1 "$@" \
            >"$log" 2>&1
        echo "memcheck  imgbatch $name: rc=$? $(grep 'ERROR SUMMARY' \
            "$log" | tail -1)" >"$out/logs/summary-imgbatch-$name.txt"
    }
    runs=""
    for decoder in gpu cpu; do
        for color in gray rgb; do
            imgbatch_memcheck "$decoder-$color" wild_bad --decoder $decoder \
                --color $color &
            runs="$runs $decoder-$color"
        done
    done
    IMGBATCH_EMULATE_NO_ENGINE=1 imgbatch_memcheck gpu-rgb-no-engine \
        wild_bad --decoder gpu --color rgb &
    IMGBATCH_TEST_GARBLE=4 imgbatch_memcheck gpu-rgb-decoded-apart \
        wild_small --decoder gpu --color rgb &
    imgbatch_memcheck gpu-rgb-split wild_bad --decoder gpu --color rgb \
        --hybrid-share auto &
    wait
    for name in $runs gpu-rgb-no-engine gpu-rgb-decoded-apart \
        gpu-rgb-split; do
        note "$(cat "$out/logs/summary-imgbatch-$name.txt")"
    done
    rm -rf "$jpegs";;
esac
;;
esac

# README captures: one file per marker, named by an index kept beside them.
case $phase in all|capture)
index="$out/captures/index.tsv"
: >"$index"
n=0
# The top README's captures (its summary of every chapter) come last, and
# only when every chapter is checked, or TOP_README=1 asks for them.
# A chapter's NOTES.md, its deep dives, may hold captures too; in a
# subfolder, its README's come first (a NOTES capture may use its files).
readmes=$(for c in $chapters; do
    echo "$c/README.md $c/NOTES.md"
    find "$c" -mindepth 2 \( -name README.md -o -name NOTES.md \) | sort -r
done)
if [ -z "${CHAPTERS:-}" ] || [ -n "${TOP_README:-}" ]; then
    readmes="$readmes README.md"
fi
for readme in $readmes; do
    [ -f "$readme" ] || continue
    grep -o '<!-- capture\(-setup\)\?: .* -->' "$readme" |
        sed 's/^<!-- capture//; s/ -->$//' |
        while IFS= read -r line; do
            cmd=${line#*: }
            if [ "${line%%:*}" = -setup ]; then
                # Prepares input files for the next capture; not shown.
                bash -c "$cmd" >>"$out/logs/capture-setup.log" 2>&1 </dev/null
                note "setup rc=$?: $cmd"
                continue
            fi
            n=$((n + 1))
            id="$(dirname "$readme" | tr / _ | sed "s/^\.$/top/")-$n"
            case $readme in */NOTES.md) id="$id-notes" ;; esac
            if [ -n "${CAPTURE_ONLY:-}" ] &&
                ! printf '%s\n' "$cmd" | grep -qE "$CAPTURE_ONLY"; then
                continue
            fi
            start=$SECONDS
            # The top README speaks of every chapter: CHAPTERS must not
            # narrow what its commands (make compare) run.
            if [ "$readme" = README.md ]; then
                env -u CHAPTERS bash -c "$cmd"
            else
                bash -c "$cmd"
            fi >"$out/captures/$id.txt" 2>&1 </dev/null
            rc=$?
            printf '%s\t%s\t%s\t%s\n' "$id" "$readme" "$cmd" "$rc" >>"$index"
            note "capture $id rc=$rc ($((SECONDS - start)) s): $cmd"
        done
done
;;
esac

tar czf "$out/gpu-check.tgz" -C "$out" logs captures summary.txt
echo "---- summary"
cat "$summary"
