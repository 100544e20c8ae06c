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
#   tests/gpu-check.sh OUTDIR [all|check|capture]
#
# "check" is the build, tests and sanitizers; "capture" the README runs
# (it builds first if needed). Environment: SMS (default 90, the H200's),
# CHAPTERS (limit both phases to these folders), RACECHECK (chapters that
# also get racecheck), TOP_README (1: capture README.md's blocks even with
# CHAPTERS set).
set -u
out=${1:?usage: tests/gpu-check.sh OUTDIR [all|check|capture]}
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

if [ "$phase" != capture ]; then
make test SMS="$sms" CHAPTERS="$chapters" >"$out/logs/ctest.log" 2>&1
test_rc=$?
note "make test: rc=$test_rc; $(grep -E 'tests passed|tests failed' \
    "$out/logs/ctest.log")"
if grep -q 'did not run' "$out/logs/ctest.log"; then
    note "SKIPPED TESTS (a failure on a GPU machine):"
    sed -n '/did not run/,$p' "$out/logs/ctest.log" | tee -a "$summary"
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

for name in $chapters; do
    bin=build/bin/$name
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
done

# 06's batch tool, imgbatch, is a program of its own: memcheck its GPU
# JPEG decode (nvJPEG) and its CPU decode with the tensor brought back,
# on a small wild folder (mixed sizes and chroma, restart markers, Exif,
# gray files) with a file of garbage scan data and one cut in half
# (batch/tests.sh corpora makes them), resized, in gray and in RGB, in
# batches of 6 over several streams, the bad files skipped.
case " $chapters " in *" 06_image_preprocess "*)
    tool=build/bin/imgbatch
    jpegs=$out/jpegs-memcheck
    sh 06_image_preprocess/batch/tests.sh corpora "$tool" "$jpegs" \
        >"$out/logs/memcheck-06-corpus.log" 2>&1
    for decoder in gpu cpu; do
        for color in gray rgb; do
            log=$out/logs/memcheck-06-imgbatch-$decoder-$color.log
            compute-sanitizer --tool memcheck --leak-check full \
                --error-exitcode 9 "$tool" "$jpegs/wild_bad" --skip-bad \
                --decoder $decoder --color $color --resize 64x48 \
                --batch-size 6 --streams 3 --repeat 1 >"$log" 2>&1
            note "memcheck  imgbatch --decoder $decoder --color $color:" \
                "rc=$? $(grep 'ERROR SUMMARY' "$log" | tail -1)"
        done
    done
    rm -rf "$jpegs";;
esac

fi

# README captures: one file per marker, named by an index kept beside them.
if [ "$phase" != check ]; then
index="$out/captures/index.tsv"
: >"$index"
n=0
# The top README's captures (its summary of every chapter) come last, and
# only when every chapter is checked, or TOP_README=1 asks for them.
# A chapter's NOTES.md, its deep dives, may hold captures too.
readmes=$(for c in $chapters; do
    echo "$c/README.md $c/NOTES.md"
    find "$c" -mindepth 2 -name README.md | sort
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
fi

tar czf "$out/gpu-check.tgz" -C "$out" logs captures summary.txt
echo "---- summary"
cat "$summary"
