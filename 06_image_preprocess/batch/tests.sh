#!/bin/sh
# tests.sh - the multi-step checks of imgbatch, the batch tool, in
# chapter 06's tests (tests/06_*.cmake). BIN is imgbatch.
#
#   tests.sh outputs BIN FIXTURES
#       the .npy files GPU runs write have the shape they announce, with
#       --skip-bad counting only the good images; a decode failure inside
#       the pipeline (a corrupt file, a file cut short) stops the run
#       naming the file and leaves no .npy behind. Exit 77 without a GPU.
#   tests.sh corpora BIN DIR
#       writes the JPEG folders the tests read into DIR (no GPU):
#       baseline, progressive, gray, odd (333 x 217), mixed (37 files, a
#       quarter progressive), wild (40 files of many sizes, 4:2:0, 4:2:2,
#       4:4:4 and gray, some with restart markers, some with Exif),
#       wild_bad (24 wild files, the 11th's scan data overwritten with
#       bytes that hold no marker, the 18th cut in half), wild_garbage
#       (the same, but the cut one), wild_small (12 wild files),
#       one_wild (its 5th file alone) and exif (40 wild files, the Exif
#       ones' orientations set to 1 to 8 in turn)
#   tests.sh engine BIN
#       --print-engine says "JPEG engine: yes" or "none", and "none
#       (IMGBATCH_EMULATE_NO_ENGINE=1)" with that switch set
#   tests.sh routed BIN GPU HYBRID CPU ARGS...
#       a run that prints PASS and routes GPU images to the GPU (HYBRID
#       of them by nvJPEG's hybrid path, or "any") and CPU images to the
#       CPU ("routed: ..." line); 77 without a GPU. The numbers are those
#       of a GPU with a JPEG engine; where --print-engine says it has
#       none, auto's hybrid path takes every JPEG the GPU decodes (HYBRID
#       becomes GPU), and --nvjpeg-backend hardware must be refused: exit
#       77 and one line naming the missing decoder
#   tests.sh bare BIN ARGS...
#       --bare-decode ARGS prints PASS; without a JPEG engine with
#       --nvjpeg-backend gpu-hybrid, the batched decoder that GPU has
#   tests.sh repeatable BIN DIR OUT [ARGS...]
#       two runs of the GPU decoder on DIR (with ARGS) write identical
#       .npy files
#   tests.sh says BIN REGEX ARGS...
#       a run that prints PASS and a line matching the extended regex
#       REGEX; 77 without a GPU
#   tests.sh npy BIN OUT DESCR SHAPE ARGS...
#       a run with --out-npy OUT prints PASS; OUT's header names DESCR
#       ('<f2') and SHAPE ("(40, 3, 48, 64)"), and its size is the header
#       and the data that shape and type need
#   tests.sh exif BIN DIR ARGS...
#       imgbatch ARGS DIR passes with EXIF orientations applied (7 or more
#       images turned, on the batch: line) and with --no-exif (none), and
#       the two tensors differ
#   tests.sh gpu-vs-cpu BIN OUT gray|rgb ARGS...
#       ARGS through --decoder gpu and --decoder cpu into uint8 .npy
#       files: the same header; gray: no level more than 1 apart, at most
#       5% 1 apart, the mean difference within 0.1; rgb: the mean
#       |difference| at most 2 levels, the mean difference within 0.5
#   tests.sh engines-vs-hybrid BIN OUT gray|rgb ARGS...
#       the same rules between --hybrid-share 0 (the JPEG engines) and
#       --hybrid-share 1 (every file they take on nvJPEG's hybrid path):
#       two correct decoders, whichever way the split sends a file
#   tests.sh garbled BIN NAME N ARGS...
#       ARGS print PASS; with IMGBATCH_TEST_GARBLE=N (the check's test
#       hook: tensor image N, file NAME, spoiled in a 16 x 16 block by 50
#       levels) they exit 1 with a FAIL line naming NAME and the rule
#   tests.sh unpicked BIN N LINE ARGS...
#       with IMGBATCH_TEST_GARBLE=N, ARGS (a --check-images that leaves
#       tensor image N out) still print PASS, and the line LINE
#       ("check: 2 of 40 images")
#   tests.sh room BIN ARGS...
#       ARGS with --keep-on-gpu and IMGBATCH_TEST_TENSOR_ROOM (the
#       planner's test hook: only so many bytes of the GPU beside the
#       arenas and the reserve): at 200000 the tensor goes to batch
#       buffers in turn (its tensor: line says so) and the run passes;
#       at 1000 not even those fit: exit 1, one line naming the GPU
#       memory (77 passed on)
#   tests.sh all-bad BIN DIR COUNT ARGS...
#       DIR, every file of it bad, with --skip-bad and --out-npy: exit 1,
#       one stderr line besides the "skipped:" ones, "imgbatch: no usable
#       image: all COUNT files were skipped" ("its one file" for 1), and
#       no .npy, not even a temporary one (77 passed on)
#   tests.sh bad BIN DIR NAME...
#       DIR with --skip-bad prints PASS, names each NAME skipped and
#       writes a .npy of the other files; DIR without it exits 1 naming
#       the first NAME
#   tests.sh trees FIXTURES DIR
#       writes the data sets the CPU tests read into DIR (no GPU): cls
#       (classes cat: a.png, sub/b.png, x.webp; zebra: z.png; notes.txt
#       beside them), no_image (class a empty, class b one image),
#       mixed.txt (a list, one line without a label), bare.txt (a list
#       without labels)
#   tests.sh dataset BIN DIR
#       without a GPU (exit 77 after the files are listed): cls's class
#       line, the files left out named in order and counted, the order
#       lines of shards padded and cut; drop_last without a whole batch
#       refused (exit 1, its line last)
#   tests.sh unread BIN FIXTURES
#       without a GPU: the folder batch's notes.txt named on a skipped:
#       line and counted on the batch: line
#   tests.sh labels BIN JPEGS OUT
#       on a GPU: JPEGS/wild's 40 files as classes a (0-9, some in a
#       subfolder), b (10-19), c (20-39): in turn, labels 0 x 10, 1 x 10,
#       2 x 20; shuffled, the same images with the same labels in another
#       order; three ranks shuffled, padded (14 each, every file) and cut
#       (13 each, in batches of 7 the short one dropped: 7, distinct);
#       kept on the GPU and shuffled, PASS over three passes;
#       JPEGS/wild_bad as one class, without --skip-bad: exit 1, and
#       neither the labels nor the tensor left behind
mode=$1 bin=$2
shift 2
# fail MESSAGE LOG: show the log and fail.
fail() { [ -n "${2:-}" ] && cat "$2"; echo "$1"; exit 1; }
# passes LOG CMD...: CMD exits 0 with a PASS line (77 is passed on).
passes() {
    log=$1
    shift
    "$@" >"$log" 2>&1
    rc=$?
    [ $rc -eq 77 ] && { cat "$log"; exit 77; }
    [ $rc -eq 0 ] && grep -q '^PASS' "$log" ||
        fail "expected PASS from: $*, got exit $rc" "$log"
}
# versus OUT gray|rgb WHAT A B ARGS...: ARGS run with options A and with
# options B (each a word list) into uint8 .npy files, compared by the
# rules of gpu-vs-cpu (WHAT names the pair in the failure).
versus() {
    out=$1 color=$2 what=$3 a=$4 b=$5
    shift 5
    for side in a b; do
        eval "opts=\$$side"
        rm -f "$out.$side.npy"
        passes "$out.log" "$bin" $opts --dtype uint8 \
            --out-npy "$out.$side.npy" "$@"
    done
    g=$out.a.npy c=$out.b.npy
    [ "$(wc -c <"$g")" -eq "$(wc -c <"$c")" ] && cmp -s -n 128 "$g" "$c" ||
        fail "$g and $c differ in size or header"
    values=$(($(wc -c <"$g") - 128))
    # cmp -l: each byte that differs, its offset and both bytes in octal.
    cmp -l "$g" "$c" | awk -v values=$values -v color=$color '
        function oct(s,   v, i) {
            v = 0
            for (i = 1; i <= length(s); i++) v = v * 8 + substr(s, i, 1)
            return v }
        { d = oct($2) - oct($3); n++; sum += d; abs += d < 0 ? -d : d
          if (d > 1 || d < -1) far++ }
        END {
            printf "%d of %d values differ (%.3f%%), %d by more than one " \
                "level, mean difference %+.4f, mean |difference| %.4f\n",
                n, values, 100 * n / values, far, sum / values, abs / values
            if (color == "gray")
                bad = far > 0 || n > 0.05 * values ||
                      sum > 0.1 * values || -sum > 0.1 * values
            else
                bad = abs > 2 * values || sum > 0.5 * values ||
                      -sum > 0.5 * values
            exit bad }' || fail "$what differ too much"
    rm -f "$g" "$c" "$out.log"
}
# has_engine: true if the GPU has a hardware JPEG decoder, as imgbatch
# --print-engine says (77, no GPU, passed on).
# said: its "JPEG engine: ..." line (after the device's).
has_engine() {
    said=$("$bin" --print-engine 2>&1)
    rc=$?
    [ $rc -eq 77 ] && { echo "$said"; exit 77; }
    [ $rc -eq 0 ] || fail "imgbatch --print-engine: exit $rc: $said"
    said=$(echo "$said" | grep '^JPEG engine: ')
    case $said in "JPEG engine: yes"*) return 0 ;; esac
    return 1
}
case $mode in
outputs)
    fixtures=$1 out=$1/batch_out
    rm -f "$out".*
    passes "$out.log" "$bin" --out-npy "$out.1.npy" "$fixtures/batch"
    passes "$out.log" "$bin" --skip-bad --out-npy "$out.2.npy" \
        "$fixtures/batch_corrupt"
    passes "$out.log" "$bin" --skip-bad --out-npy "$out.3.npy" \
        "$fixtures/batch_cut"
    passes "$out.log" "$bin" --out-npy "$out.4.npy" --resize 40x30 \
        --batch-size 1 --streams 3 "$fixtures/batch_mixed"
    # refused BATCH FILE MESSAGE: the batch stops with exit 1 naming FILE,
    # and leaves no .npy behind.
    refused() {
        "$bin" --out-npy "$out.bad.npy" "$fixtures/$1" >"$out.log" 2>&1
        rc=$?
        left=$(ls "$out".bad.* 2>/dev/null)
        if [ $rc -ne 1 ] || [ -n "$left" ] ||
            ! grep -q "$1/$2: $3" "$out.log"; then
            fail "expected exit 1 naming $2 and no $out.bad.npy; got exit \
$rc and: $left" "$out.log"
        fi
    }
    refused batch_corrupt b.png 'cannot decode'
    refused batch_cut b.bmp 'truncated BMP'
    for k in "1 (4, 23, 37)" "2 (2, 23, 37)" "3 (2, 23, 37)" \
        "4 (2, 30, 40)"; do
        grep -q "'shape': ${k#* }" "$out.${k%% *}.npy" ||
            fail "$out.${k%% *}.npy: not of shape ${k#* }"
    done
    ;;
corpora)
    dir=$1
    mkdir -p "$dir" || exit 1
    mk() {
        name=$1
        shift
        "$bin" --make-corpus "$dir/$name" --threads 2 "$@" >/dev/null ||
            exit 1
    }
    mk baseline --count 24 --kind baseline
    mk progressive --count 12 --kind progressive
    mk gray --count 12 --kind gray
    mk odd --count 12 --size 333x217
    mk mixed --count 37 --kind mixed
    mk wild --count 40 --kind wild --seed 3
    mk wild_bad --count 24 --kind wild --seed 4
    # The 11th file: its middle fifth replaced by bytes from 0 to 254, so
    # that no marker appears and its structure stays whole (the check
    # before the GPU cannot see it); the 18th: cut in half.
    bad=$dir/wild_bad/img_00010.jpg
    size=$(wc -c <"$bad")
    LC_ALL=C awk -v n=$((size / 5)) 'BEGIN { x = 12345
        for (i = 0; i < n; i++) {
            x = (x * 1103515245 + 12345) % 2147483648
            printf "%c", int(x / 65536) % 255 } }' |
        dd of="$bad" bs=1 seek=$((size * 2 / 5)) conv=notrunc \
            status=none || exit 1
    cut=$dir/wild_bad/img_00017.jpg
    head -c $(($(wc -c <"$cut") / 2)) "$cut" >"$cut.half" &&
        mv "$cut.half" "$cut" || exit 1
    rm -rf "$dir/wild_garbage"
    cp -r "$dir/wild_bad" "$dir/wild_garbage" &&
        rm "$dir/wild_garbage/img_00017.jpg" || exit 1
    # Twelve good files, and the 5th alone: the decoded-apart tests
    # spoil its image with the check's test hook (IMGBATCH_TEST_GARBLE).
    mk wild_small --count 12 --kind wild --seed 5
    rm -rf "$dir/one_wild"
    mkdir "$dir/one_wild" &&
        cp "$dir/wild_small/img_00004.jpg" "$dir/one_wild/" || exit 1
    # EXIF orientations 1 to 8: the corpus's Exif segment holds tag 274
    # (Orientation) as 1, in little-endian TIFF; each Exif file's value
    # is set in turn.
    mk exif --count 40 --kind wild --seed 6
    python3 - "$dir/exif" <<'PY' || exit 1
import os, sys
tag = bytes([0x12, 0x01, 3, 0, 1, 0, 0, 0, 1, 0])
turned = 0
for name in sorted(os.listdir(sys.argv[1])):
    path = os.path.join(sys.argv[1], name)
    data = bytearray(open(path, "rb").read())
    at = data.find(tag)
    if at < 0:
        continue
    data[at + 8] = turned % 8 + 1
    turned += 1
    open(path, "wb").write(data)
sys.exit(0 if turned >= 8 else "exif: %d Exif files, fewer than 8" % turned)
PY
    ;;
garbled)
    name=$1 n=$2
    shift 2
    out=$(mktemp) || exit 1
    trap 'rm -f "$out"' EXIT
    passes "$out" "$bin" "$@"
    IMGBATCH_TEST_GARBLE=$n "$bin" "$@" >"$out" 2>&1
    rc=$?
    [ $rc -eq 1 ] && grep -q "^FAIL: .*/$name: " "$out" ||
        fail "IMGBATCH_TEST_GARBLE=$n: expected exit 1 and FAIL naming \
$name, got exit $rc" "$out"
    grep -E '^(check|FAIL)' "$out"
    ;;
room)
    out=$(mktemp) && err=$(mktemp) || exit 1
    trap 'rm -f "$out" "$err"' EXIT
    passes "$out" env IMGBATCH_TEST_TENSOR_ROOM=200000 "$bin" \
        --keep-on-gpu "$@"
    grep -q '^tensor: .*, more than fits beside the buffers (.*): batches' \
        "$out" || fail "IMGBATCH_TEST_TENSOR_ROOM=200000: expected the \
tensor in batch buffers" "$out"
    grep '^tensor' "$out"
    IMGBATCH_TEST_TENSOR_ROOM=1000 "$bin" --keep-on-gpu "$@" >"$out" \
        2>"$err"
    rc=$?
    [ $rc -eq 77 ] && { cat "$err"; exit 77; }
    [ $rc -eq 1 ] && [ "$(wc -l <"$err")" -eq 1 ] &&
        grep -q 'not enough GPU memory for the batch buffers' "$err" ||
        fail "IMGBATCH_TEST_TENSOR_ROOM=1000: expected exit 1 and one \
line on the GPU memory, got exit $rc" "$err"
    cat "$err"
    ;;
unpicked)
    n=$1 line=$2
    shift 2
    out=$(mktemp) || exit 1
    trap 'rm -f "$out"' EXIT
    IMGBATCH_TEST_GARBLE=$n "$bin" "$@" >"$out" 2>&1
    rc=$?
    [ $rc -eq 77 ] && { cat "$out"; exit 77; }
    [ $rc -eq 0 ] && grep -q '^PASS' "$out" && grep -q "^$line " "$out" ||
        fail "IMGBATCH_TEST_GARBLE=$n, not picked: expected PASS and \
'$line', got exit $rc" "$out"
    grep '^check' "$out"
    ;;
all-bad)
    dir=$1 count=$2
    shift 2
    out=$(mktemp -d) || exit 1
    trap 'rm -rf "$out"' EXIT
    "$bin" --skip-bad --out-npy "$out/x.npy" "$@" "$dir" >"$out/log" \
        2>"$out/err"
    rc=$?
    [ $rc -eq 77 ] && { cat "$out/log" "$out/err"; exit 77; }
    want="imgbatch: no usable image: all $count files were skipped"
    [ "$count" -eq 1 ] &&
        want="imgbatch: no usable image: its one file was skipped"
    other=$(grep -v '^skipped: ' "$out/err")
    left=$(ls "$out" | grep -v '^log$\|^err$')
    if [ $rc -ne 1 ] || [ "$other" != "$want" ] || [ -n "$left" ]; then
        cat "$out/log" "$out/err"
        fail "expected exit 1, '$want' and no .npy; got exit $rc, \
'$other', left: $left"
    fi
    grep -c '^skipped: ' "$out/err" | sed 's/$/ skipped: lines/'
    echo "$other"
    ;;
engine)
    has_engine
    echo "$said"
    emulated=$(IMGBATCH_EMULATE_NO_ENGINE=1 "$bin" --print-engine 2>&1 |
        grep '^JPEG engine: ')
    [ "$emulated" = "JPEG engine: none (IMGBATCH_EMULATE_NO_ENGINE=1)" ] ||
        fail "IMGBATCH_EMULATE_NO_ENGINE=1: expected 'JPEG engine: none \
(IMGBATCH_EMULATE_NO_ENGINE=1)', got '$emulated'"
    echo "$emulated"
    ;;
routed)
    gpu=$1 hybrid=$2 cpu=$3
    shift 3
    out=$(mktemp) || exit 1
    trap 'rm -f "$out"' EXIT
    engine=1
    if ! has_engine; then
        engine=0
        echo "$said: expecting what such a GPU does"
        case " $* " in
        *" --nvjpeg-backend hardware "*)
            "$bin" "$@" >"$out" 2>"$out.err"
            rc=$?
            err=$(cat "$out.err")
            rm -f "$out.err"
            case $err in "imgbatch: no hardware JPEG decoder"*)
                [ $rc -eq 77 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] &&
                    { echo "$err"; exit 0; } ;;
            esac
            fail "--nvjpeg-backend hardware without a JPEG engine: expected \
exit 77 and one line naming it, got exit $rc: $err" "$out" ;;
        *" --nvjpeg-backend gpu-hybrid "* | *" --decoder cpu "*) ;;
        *) [ "$hybrid" = any ] || hybrid=$gpu ;;
        esac
    fi
    passes "$out" "$bin" "$@"
    want="routed: $gpu images decoded on the GPU"
    if [ "$hybrid" = any ]; then
        want="$want( \([^)]*\))?"
    elif [ "$hybrid" -gt 0 ]; then
        want="$want \($hybrid of them by [^)]*\)"
    fi
    want="$want, $cpu on the CPU"
    grep -Eq "^$want" "$out" || fail "expected '$want'" "$out"
    # Without the hardware decoder a split does nothing, and says so.
    case $engine" $* " in 0*" --hybrid-share "*)
        grep -q '^split: --hybrid-share does nothing here' "$out" ||
            fail "expected the line saying --hybrid-share does nothing \
without the hardware decoder" "$out" ;;
    esac
    grep -E '^(routed|check|PASS|split)' "$out"
    ;;
bare)
    out=$(mktemp) || exit 1
    trap 'rm -f "$out"' EXIT
    has_engine || set -- --nvjpeg-backend gpu-hybrid "$@"
    passes "$out" "$bin" --bare-decode "$@"
    grep -E '^(decoder|bare|check|PASS)' "$out"
    ;;
repeatable)
    dir=$1 out=$2
    shift 2
    rm -f "$out".1.npy "$out".2.npy
    for k in 1 2; do
        passes "$out.log" "$bin" --decoder gpu "$@" "$dir" \
            --out-npy "$out.$k.npy"
    done
    cmp "$out.1.npy" "$out.2.npy" || fail "two GPU decodes of $dir differ"
    echo "two runs, identical tensors: $(wc -c <"$out.1.npy") bytes"
    rm -f "$out".1.npy "$out".2.npy "$out.log"
    ;;
says)
    re=$1
    shift
    log=$(mktemp) || exit 1
    passes "$log" "$bin" "$@"
    grep -E -- "$re" "$log" || fail "expected a line matching '$re'" "$log"
    rm -f "$log"
    ;;
npy)
    out=$1 descr=$2 shape=$3
    shift 3
    rm -f "$out"
    passes "$out.log" "$bin" --out-npy "$out" "$@"
    head -c 128 "$out" | grep -q "{'descr': '$descr', 'fortran_order': \
False, 'shape': $shape, }" || fail "$out: not '$descr' of shape $shape" \
        "$out.log"
    elem=4
    [ "$descr" = "<f2" ] && elem=2
    [ "$descr" = "|u1" ] && elem=1
    count=$(echo "$shape" | tr -d '()' | tr ',' '*')
    want=$((128 + elem * $count))
    [ "$(wc -c <"$out")" -eq "$want" ] ||
        fail "$out: $(wc -c <"$out") bytes, expected $want"
    grep '^wrote' "$out.log"
    rm -f "$out" "$out.log"
    ;;
gpu-vs-cpu)
    out=$1 color=$2
    shift 2
    versus "$out" "$color" "the GPU and CPU tensors" "--decoder gpu" \
        "--decoder cpu" "$@"
    ;;
engines-vs-hybrid)
    out=$1 color=$2
    shift 2
    versus "$out" "$color" "the engines' and the hybrid path's tensors" \
        "--decoder gpu --hybrid-share 0" "--decoder gpu --hybrid-share 1" \
        "$@"
    ;;
exif)
    # exif DIR ARGS...: DIR's JPEGs with EXIF orientations; a run that
    # turns them upright (the default) and one with --no-exif both PASS
    # (every check against the CPU's transform holds), only the first
    # says how many it turned, and their tensors differ.
    dir=$1
    shift
    out=$(mktemp) || exit 1
    trap 'rm -f "$out" "$out".*' EXIT
    passes "$out" "$bin" --out-npy "$out.up.npy" "$@" "$dir"
    turned=$(sed -n 's/^batch: .*, \([0-9]*\) turned upright by EXIF,.*/\1/p' \
        "$out")
    [ -n "$turned" ] && [ "$turned" -ge 7 ] ||
        fail "expected 7 or more images turned upright by EXIF" "$out"
    passes "$out" "$bin" --no-exif --out-npy "$out.stored.npy" "$@" "$dir"
    ! grep -q 'turned upright' "$out" ||
        fail "--no-exif: turned images all the same" "$out"
    cmp -s "$out.up.npy" "$out.stored.npy" &&
        fail "the tensors with and without --no-exif are the same"
    echo "$turned images turned upright by EXIF; PASS with and without"
    ;;
bad)
    dir=$1
    shift
    out=$(mktemp) || exit 1
    trap 'rm -f "$out"' EXIT
    npy=$out.npy
    trap 'rm -f "$out" "$npy"' EXIT
    passes "$out" "$bin" --skip-bad --resize 64x48 --out-npy "$npy" "$dir"
    for name in "$@"; do
        grep -q "^skipped: .*/$name: " "$out" ||
            fail "--skip-bad: expected a 'skipped: .../$name' line" "$out"
    done
    # The .npy holds the others: its shape's first number and its size.
    good=$(($(ls "$dir" | wc -l) - $#))
    head -c 128 "$npy" | grep -q "'shape': ($good, 48, 64)" &&
        [ "$(wc -c <"$npy")" -eq $((128 + good * 48 * 64 * 4)) ] ||
        fail "--skip-bad: expected $good images in $npy" "$out"
    grep -E '^(skipped|routed|wrote|PASS)' "$out"
    "$bin" --resize 64x48 "$dir" >"$out" 2>&1
    rc=$?
    [ $rc -eq 1 ] && grep -q "/$1[:,]" "$out" ||
        fail "without --skip-bad: expected exit 1 naming $1, got $rc" "$out"
    grep "/$1" "$out" | head -3
    ;;
trees)
    fx=$bin dir=$1
    rm -rf "$dir" && mkdir -p "$dir/cls/cat/sub" "$dir/cls/zebra" \
        "$dir/no_image/a" "$dir/no_image/b" || exit 1
    for f in cls/cat/a.png cls/cat/sub/b.png cls/zebra/z.png \
        no_image/b/x.png; do
        cp "$fx/gray.png" "$dir/$f" || exit 1
    done
    echo x >"$dir/cls/cat/x.webp" && echo x >"$dir/cls/notes.txt" &&
        printf '%s 0\n%s\n' "$fx/gray.png" "$fx/gray.png" \
            >"$dir/mixed.txt" &&
        printf '%s\n' "$fx/gray.png" >"$dir/bare.txt" || exit 1
    ;;
dataset)
    dir=$1
    out=$(mktemp) || exit 1
    trap 'rm -f "$out" "$out.err"' EXIT
    # run WANT_RC ARGS...: the run's stdout in $out, stderr in $out.err.
    run() {
        want=$1
        shift
        "$bin" "$@" >"$out" 2>"$out.err"
        rc=$?
        [ $rc -eq "$want" ] ||
            { cat "$out.err"; fail "$*: exit $rc, expected $want" "$out"; }
    }
    # has FILE TEXT: FILE holds the line TEXT.
    has() { grep -Fxq "$2" "$1" || fail "expected the line: $2" "$1"; }
    run 77 --class-folders "$dir/cls"
    has "$out" "classes: 2 class folders of $dir/cls: 0 cat (2 images), \
1 zebra (1 image)"
    grep -q "^batch: 3 images of 3 files (0 skipped, 2 other files left \
out), " "$out" || fail "expected 3 images and 2 files left out" "$out"
    want="skipped: $dir/cls/notes.txt: not in a class folder
skipped: $dir/cls/cat/x.webp: not an image imgbatch reads (.webp)"
    [ "$(grep '^skipped' "$out.err")" = "$want" ] ||
        fail "expected, in this order: $want" "$out.err"
    run 77 --class-folders "$dir/cls" --shuffle --seed 4 --rank 1 \
        --world-size 2 --batch-size 1
    has "$out" "order: shuffled each pass from seed 4 (splitmix64 and \
Fisher-Yates: not torch's generator); rank 1 of 2 as DistributedSampler: \
2 of the 3 images a pass, the list padded with 1 from its start"
    run 77 --class-folders "$dir/cls" --drop-last --rank 1 --world-size 2 \
        --batch-size 1
    has "$out" "order: the files in turn; rank 1 of 2 as \
DistributedSampler: 1 of the 3 images a pass, the list's last 1 cut \
(drop_last)"
    run 77 --class-folders "$dir/cls" --drop-last --batch-size 2
    has "$out" "order: the files in turn; the last 1, a short batch, left \
out (drop_last)"
    run 1 --class-folders "$dir/cls" --drop-last --batch-size 4
    [ "$(tail -n 1 "$out.err")" = "imgbatch: drop_last leaves rank 0 no \
whole batch: 3 images a pass, batches of 4" ] ||
        fail "expected drop_last's refusal last" "$out.err"
    grep -E '^(classes|batch|order)' "$out"
    echo "ok: classes, files left out, order lines, drop_last refused"
    ;;
unread)
    fx=$1
    out=$(mktemp) || exit 1
    trap 'rm -f "$out" "$out.err"' EXIT
    "$bin" "$fx/batch" >"$out" 2>"$out.err"
    rc=$?
    [ $rc -eq 77 ] || fail "expected exit 77 without a GPU, got $rc" "$out"
    grep -Fxq "skipped: $fx/batch/notes.txt: not an image imgbatch reads \
(.txt)" "$out.err" || fail "expected notes.txt named" "$out.err"
    grep -q "^batch: 4 images of 4 files (0 skipped, 1 other file left \
out), " "$out" || fail "expected 1 other file left out" "$out"
    cat "$out.err"
    ;;
labels)
    wild=$1/wild bad=$1/wild_bad out=$2
    rm -rf "$out" && mkdir -p "$out/set/a/deep" "$out/set/b" "$out/set/c" ||
        exit 1
    i=0
    for f in "$wild"/img_000*.jpg; do
        if [ $i -lt 5 ]; then d=a; elif [ $i -lt 10 ]; then d=a/deep
        elif [ $i -lt 20 ]; then d=b; else d=c; fi
        cp "$f" "$out/set/$d/" || exit 1
        i=$((i + 1))
    done
    [ $i -eq 40 ] || fail "$wild: expected 40 files, found $i"
    # pairs NAME ARGS...: a run writing NAME.npy and NAME.labels.npy
    # (PASS), then NAME.pairs: one "md5 label" line per tensor image, in
    # the tensor's order (each image 64 x 48 float32: 12288 bytes).
    pairs() {
        name=$1
        shift
        passes "$out/$name.log" "$bin" --class-folders "$out/set" \
            --resize 64x48 --batch-size 7 --out-npy "$out/$name.npy" \
            --out-labels "$out/$name.labels.npy" "$@"
        n=$(( ($(wc -c <"$out/$name.labels.npy") - 128) / 8 ))
        tail -c +129 "$out/$name.npy" | split -b 12288 -a 3 - \
            "$out/$name.img." || exit 1
        od -An -v -t d8 -j 128 "$out/$name.labels.npy" |
            tr -s ' ' '\n' | grep -v '^$' >"$out/$name.labels" || exit 1
        [ "$(wc -l <"$out/$name.labels")" -eq "$n" ] &&
            [ "$(ls "$out/$name".img.* | wc -l)" -eq "$n" ] ||
            fail "$name: $n labels, images and labels differ in number"
        ls "$out/$name".img.* | xargs md5sum | cut -d' ' -f1 |
            paste -d' ' - "$out/$name.labels" >"$out/$name.pairs"
        rm -f "$out/$name".img.*
    }
    pairs turn
    [ "$(uniq -c "$out/turn.labels" | awk '{printf "%s:%s ", $2, $1}')" = \
        "0:10 1:10 2:20 " ] || fail "in turn: expected labels 0 x 10, \
1 x 10, 2 x 20" "$out/turn.labels"
    pairs shuffled --shuffle --seed 9
    sort "$out/turn.pairs" >"$out/a" && sort "$out/shuffled.pairs" >"$out/b"
    cmp -s "$out/a" "$out/b" ||
        fail "shuffled: not the same images with the same labels"
    cmp -s "$out/turn.pairs" "$out/shuffled.pairs" &&
        fail "shuffled: the order in turn"
    for drop in "" --drop-last; do
        : >"$out/ranks"
        for r in 0 1 2; do
            pairs rank$r --shuffle --seed 9 --rank $r --world-size 3 $drop
            cat "$out/rank$r.pairs" >>"$out/ranks"
            want=14
            [ -n "$drop" ] && want=7
            [ "$(wc -l <"$out/rank$r.pairs")" -eq $want ] ||
                fail "rank $r $drop: expected $want images"
        done
        sort -u "$out/ranks" >"$out/b"
        if [ -n "$drop" ]; then
            [ "$(sort "$out/ranks" | uniq -d | wc -l)" -eq 0 ] &&
                [ "$(wc -l <"$out/b")" -eq 21 ] ||
                fail "three ranks, drop_last: expected 21 distinct images"
        else
            cmp -s "$out/a" "$out/b" ||
                fail "three ranks: expected every image, with its label"
        fi
    done
    passes "$out/keep.log" "$bin" --class-folders "$out/set" \
        --resize 64x48 --batch-size 7 --keep-on-gpu --shuffle --repeat 3
    grep -E '^(classes|order|check|PASS)' "$out/keep.log"
    mkdir -p "$out/bad/only" && cp "$bad"/*.jpg "$out/bad/only/" || exit 1
    "$bin" --class-folders "$out/bad" --resize 64x48 --shuffle \
        --out-npy "$out/bad.npy" --out-labels "$out/bad.labels.npy" \
        >"$out/bad.log" 2>&1
    rc=$?
    left=$(ls "$out" | grep '^bad\.' | grep -v '^bad\.log$')
    [ $rc -eq 1 ] && [ -z "$left" ] ||
        fail "a bad file, no --skip-bad: expected exit 1 and no file \
left, got exit $rc and: $left" "$out/bad.log"
    echo "ok: labels in turn, shuffled, three ranks padded and cut, kept;\
 nothing left by a failed run"
    rm -rf "$out"
    ;;
*)
    echo "usage: tests.sh outputs|corpora|engine|routed|bare|repeatable|npy|\
gpu-vs-cpu|garbled|all-bad|bad|trees|dataset|unread|labels ..." >&2
    exit 2
    ;;
esac
