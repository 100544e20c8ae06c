#!/bin/sh
# bench.sh - imgbatch's benchmark: the table of its README ("Measured"),
# in one command on a machine with a GPU, after `make` (it builds
# nothing).
#
#   06_image_preprocess/batch/bench.sh OUT_DIR [--count N] [--rounds R]
#                                      [--bin FILE] [--photos-only]
#                                      [--big-count M] [--cases RE]
#
#  1. Photographs: those Python packages ship (scikit-image's data:
#     astronaut, coffee, chelsea, rocket, hubble_deep_field, ...;
#     scikit-learn's china.jpg and flower.jpg; matplotlib's
#     grace_hopper.jpg), copied into OUT_DIR/photos, a missing package
#     skipped (BENCH_PHOTOS=DIR takes DIR's instead). Without any, the
#     corpora are drawn by imgbatch's own generator, and a line says so.
#  2. Corpora of N files each (default 2000), cut from the photographs
#     (imgbatch --make-corpus --from): wild (333 to 640 pixels a side,
#     chroma mixed: 4:2:0 mostly, 4:2:2, 4:4:4, gray), wild420 (the same
#     sizes, all 4:2:0), same (500 x 375, 4:2:0), same_mixed (500 x 375,
#     chroma mixed); and, when its case comes, wild_100k: M (default
#     100,000; 0: no such case) hard links of wild's files in turn, in
#     one folder (the files of the photographs' wild corpus, read from
#     the page cache as 100,000 names).
#  3. Each case of the table: imgbatch with the tensor kept on the GPU
#     (--keep-on-gpu --repeat 7), torchvision doing the same at its best
#     list size of 32, 64, 128 and 256 (bench_torchvision.py, 7 passes
#     each; on wild_100k 3, and only at wild_crop_rgb_f16's best size
#     when this run measured it), nvJPEG's bare batched decode where the
#     case has one
#     (--bare-decode); imgbatch through the backends a GPU without the
#     hardware decoder would take (forced); four cases again with
#     --hybrid-share auto (the engines' files shared with the hybrid path
#     on the reader threads: the `_split` rows), beside the bare decode
#     where there is one, without torchvision. Where a case has a bare
#     decode, imgbatch and the bare decode take turns, --rounds R times
#     (default 3): the host work inside nvjpegDecodeBatched, which sets
#     both rates, drifts by 10-20% over a minute on one machine, so two
#     runs minutes apart would compare the machine, not the programs.
#     The crop cases also time the loader most PyTorch code uses
#     (bench_torchvision.py --dataloader, pil_loader.py): DataLoader, 16
#     workers, PIL and torchvision's transforms, imgbatch's batch size,
#     pinned and moved to the GPU; 3 epochs after a warm-up one (on
#     wild_100k one).
#     --cases RE runs only the cases whose names match RE, an extended
#     regular expression, and makes only the corpora they read: the
#     benchmark in parts (--big-count 0, then --cases wild_100k).
#  4. One table on stdout: images/s, the median (of the rounds' medians,
#     where there are rounds) and spread (min-max) over all passes, to
#     three significant digits; imgbatch's time over the bare decode's
#     (the median over the rounds of each round's ratio); imgbatch over
#     torchvision; DataLoader and PIL's images/s; each case's "limited
#     by" line; every run's output in OUT_DIR/logs.
#
# Exit status: 0; 1 a run failed (its log named); 2 usage error; 77 no
# usable GPU (found by the first imgbatch run, after the corpora).
set -u
here=$(cd "$(dirname "$0")" && pwd)
usage() { echo "bench.sh: $* (usage: bench.sh OUT_DIR [--count N]" \
    "[--rounds R] [--bin FILE] [--photos-only] [--big-count M]" \
    "[--cases RE])" >&2
    exit 2; }
out= count=2000 rounds=3 bin=$here/../../build/bin/imgbatch photos_only=
big=100000 only= crop_list=
while [ $# -gt 0 ]; do
    case $1 in
    --count) [ $# -ge 2 ] || usage "--count needs a value"
        count=$2; shift 2 ;;
    --rounds) [ $# -ge 2 ] || usage "--rounds needs a value"
        rounds=$2; shift 2 ;;
    --bin) [ $# -ge 2 ] || usage "--bin needs a value"
        bin=$2; shift 2 ;;
    --photos-only) photos_only=1; shift ;;
    --big-count) [ $# -ge 2 ] || usage "--big-count needs a value"
        big=$2; shift 2 ;;
    --cases) [ $# -ge 2 ] || usage "--cases needs a value"
        only=$2; shift 2 ;;
    -*) usage "unknown option '$1'" ;;
    *) [ -z "$out" ] || usage "unexpected argument '$1'"
        out=$1; shift ;;
    esac
done
[ -n "$out" ] || usage "give the folder for the corpora and logs"
case $count in ''|*[!0-9]*|0) usage "--count: '$count' is not a whole \
number above 0" ;; esac
case $rounds in ''|*[!0-9]*|0) usage "--rounds: '$rounds' is not a whole \
number above 0" ;; esac
case $big in ''|*[!0-9]*) usage "--big-count: '$big' is not a whole \
number" ;; esac
# The cases (step 3): name, corpus, transform (the same options for both), a
# bare decode ("bare"; "bare-": without torchvision; "-": neither), the
# DataLoader ("dl"), options for imgbatch alone (the split).
split="--hybrid-share auto"
rgb="--color rgb --dtype float16 --mean 0.485,0.456,0.406 \
--std 0.229,0.224,0.225"
cases="same|same||bare
same_mixed|same_mixed||bare
wild_224|wild|--resize 224x224|bare
wild420_224|wild420|--resize 224x224|bare
wild_224_rgb_f16|wild|--resize 224x224 $rgb|
wild_crop_rgb_f16|wild|--resize-short 256 --crop 224x224 $rgb||dl
wild_100k_crop_rgb_f16|wild_100k|--resize-short 256 --crop 224x224 $rgb||dl
wild_224_gpu_hybrid|wild|--resize 224x224 --nvjpeg-backend gpu-hybrid|-
wild_224_hybrid|wild|--resize 224x224 --nvjpeg-backend hybrid|-
same_split|same||bare-||$split
wild_224_split|wild|--resize 224x224|bare-||$split
wild420_224_split|wild420|--resize 224x224|bare-||$split
wild_crop_rgb_f16_split|wild|--resize-short 256 --crop 224x224 $rgb|-||$split"
all_cases=$cases
# --cases: only the cases whose names match RE (an extended regular
# expression), and only the corpora they read.
if [ -n "$only" ]; then
    cases=$(echo "$cases" | while IFS='|' read -r name rest; do
        echo "$name" | grep -Eq -- "$only" && echo "$name|$rest"; done)
    [ -n "$cases" ] || usage "--cases: '$only' matches no case (the" \
        "cases: $(echo "$all_cases" | cut -d'|' -f1 | tr '\n' ' ' |
        sed 's/ $//'))"
fi
# reads CORPUS: 0 when a case to run reads it (wild_100k's links read
# wild's files).
reads() {
    echo "$cases" | cut -d'|' -f2 | sed 's/^wild_100k$/wild/' |
        grep -qx "$1"
}
python=${PYTHON:-python3}
mkdir -p "$out/logs" || exit 1

# 1. Photographs.
photos=$out/photos
if [ -n "${BENCH_PHOTOS:-}" ]; then
    photos=$BENCH_PHOTOS
    echo "photographs: those in $photos (BENCH_PHOTOS)"
else
    rm -rf "$photos" && mkdir -p "$photos" || exit 1
    "$python" - "$photos" <<'EOF'
import os, shutil, sys
dest, found, where = sys.argv[1], [], []
def take(folder, names, package):
    for name in names:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            shutil.copyfile(path, os.path.join(dest, name))
            found.append(name)
            if package not in where:
                where.append(package)
try:
    import skimage
    take(os.path.join(os.path.dirname(skimage.__file__), "data"),
         ["astronaut.png", "coffee.png", "chelsea.png", "rocket.jpg",
          "hubble_deep_field.jpg", "camera.png", "coins.png", "moon.png",
          "brick.png", "grass.png", "gravel.png", "retina.jpg", "ihc.png",
          "motorcycle_left.png", "motorcycle_right.png", "cell.png"],
         "scikit-image")
except ImportError:
    pass
try:
    import sklearn
    take(os.path.join(os.path.dirname(sklearn.__file__), "datasets",
                      "images"), ["china.jpg", "flower.jpg"], "scikit-learn")
except ImportError:
    pass
try:
    import matplotlib
    take(os.path.join(matplotlib.get_data_path(), "sample_data"),
         ["grace_hopper.jpg"], "matplotlib")
except ImportError:
    pass
print(f"photographs: {len(found)} from {', '.join(where) or 'no package'}"
      f"{': ' + ' '.join(found) if found else ''}")
EOF
fi
from="--from $photos"
if [ -z "$(ls -A "$photos" 2>/dev/null)" ]; then
    echo "photographs: none found (scikit-image, scikit-learn, matplotlib);" \
        "the corpora are drawn by imgbatch's own generator"
    from=
fi
[ -n "$photos_only" ] && exit 0
[ -x "$bin" ] || { echo "bench.sh: $bin: no imgbatch (run make first)" >&2
    exit 1; }

# 2. Corpora.
mk() {
    name=$1
    shift
    rm -rf "${out:?}/$name"
    "$bin" --make-corpus "$out/$name" --count "$count" $from "$@" \
        >"$out/logs/corpus-$name.log" 2>&1 ||
        { cat "$out/logs/corpus-$name.log"; exit 1; }
    grep -v '^photographs:' "$out/logs/corpus-$name.log" |
        sed "1s/^corpus: /corpus $name: /"
}
reads wild && mk wild --kind wild
reads wild420 && mk wild420 --kind wild --chroma 420
reads same && mk same --kind baseline --size 500x375
reads same_mixed && mk same_mixed --kind wild --size 500x375

# links DIR N: DIR made anew with N hard links of wild's files (made
# just before), in turn, named by their number and the file's name.
links() {
    rm -rf "$1" && mkdir -p "$1" || return 1
    "$python" - "$out/wild" "$1" "$2" <<'EOF'
import os, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = sorted(f for f in os.listdir(src) if f.endswith(".jpg"))
for k in range(n):
    os.link(os.path.join(src, names[k % len(names)]),
            os.path.join(dst, "%06d_%s" % (k, names[k % len(names)])))
print("corpus wild_100k: %d hard links of the %d files of wild" %
      (n, len(names)))
EOF
}

results=$out/results.txt
: >"$results"
# rate LOG PATTERN: "median min max" from imgbatch's line PATTERN.
rate() {
    sed -n "s/.*$2 \([0-9.]*\) images\/s[a-z ]*(min \([0-9.]*\), max \
\([0-9.]*\).*/\1 \2 \3/p" "$1" | head -n 1
}
# combine: lines "median min max" on stdin, one a round -> "median min
# max": the median of the medians, the least min, the largest max.
combine() {
    awk 'NF >= 3 { n++; m[n] = $1 + 0
             if (n == 1 || $2 + 0 < lo) lo = $2 + 0
             if (n == 1 || $3 + 0 > hi) hi = $3 + 0 }
         END { if (!n) exit
             for (i = 2; i <= n; i++)
                 for (j = i; j > 1 && m[j - 1] > m[j]; j--) {
                     t = m[j]; m[j] = m[j - 1]; m[j - 1] = t }
             mid = n % 2 ? m[(n + 1) / 2] : (m[n / 2] + m[n / 2 + 1]) / 2
             print mid, lo, hi }'
}
echo "$cases" | while IFS='|' read -r name corpus transform bare dl alone; do
    if [ "$corpus" = wild_100k ]; then
        [ "$big" -eq 0 ] && continue
        links "$out/wild_100k" "$big" || { echo "bench.sh: cannot make" \
            "$out/wild_100k" >&2; echo "$name FAILED" >>"$results"
            continue; }
    fi
    turns=1
    case $bare in bare*) turns=$rounds ;; esac
    runs=$out/logs/rounds-$name
    : >"$runs.imgbatch"
    : >"$runs.bare"
    : >"$runs.ratio"
    r=1
    while [ $r -le $turns ]; do
        log=$out/logs/imgbatch-$name-$r.log
        "$bin" "$out/$corpus" --keep-on-gpu --flip --repeat 7 $transform \
            $alone >"$log" 2>&1
        rc=$?
        if [ $rc -eq 77 ]; then
            tail -n 1 "$log"
            echo "bench.sh: no usable GPU: the corpora are in $out;" \
                "nothing measured" >&2
            exit 77
        fi
        grep -q '^PASS' "$log" || { echo "bench.sh: imgbatch failed:" \
            "$log" >&2; echo "$name FAILED" >>"$results"; continue 2; }
        set -- $(rate "$log" "throughput:")
        echo "$@" >>"$runs.imgbatch"
        own=${1:-}
        if [ "$bare" = bare ] || [ "$bare" = bare- ]; then
            blog=$out/logs/bare-$name-$r.log
            "$bin" "$out/$corpus" --bare-decode --repeat 7 $transform \
                >"$blog" 2>&1
            grep -q '^PASS' "$blog" || { echo "bench.sh: the bare decode" \
                "failed: $blog" >&2; echo "$name FAILED" >>"$results"
                continue 2; }
            set -- $(rate "$blog" "decode:")
            echo "$@" >>"$runs.bare"
            # imgbatch's time over the bare decode's, this round (as a
            # line combine reads; its min and max are not used).
            [ -n "$own" ] && [ -n "${1:-}" ] &&
                awk -v b="$1" -v i="$own" 'BEGIN { print b / i, 0, 0 }' \
                    >>"$runs.ratio"
        fi
        r=$((r + 1))
    done
    set -- $(combine <"$runs.imgbatch")
    line="$name ${1:--} ${2:--} ${3:--}"
    set -- $(combine <"$runs.bare")
    line="$line ${1:--} ${2:--} ${3:--}"
    set -- $(combine <"$runs.ratio")
    ratio=${1:--}
    # The 100,000 files: torchvision 3 passes at each list size, or only
    # at the best one of the same work on wild's 2000 where this run
    # measured it; the DataLoader one epoch after its warm-up one.
    tv_more= dl_repeat=3
    if [ "$corpus" = wild_100k ]; then
        tv_more="--repeat 3 ${crop_list:+--lists $crop_list}"
        dl_repeat=1
    fi
    if [ "$bare" = bare ] || [ -z "$bare" ]; then
        tlog=$out/logs/torchvision-$name.log
        "$python" "$here/bench_torchvision.py" "$out/$corpus" $transform \
            --label "$name" $tv_more >"$tlog" 2>&1
        trc=$?
        n='\([0-9.]*\)'
        set -- $(sed -n "s/^RESULT .* list=$n median=$n min=$n max=$n\$/\
\2 \3 \4 \1/p" "$tlog")
        # 77: no PyTorch, torchvision or GPU there ("-"); else a number.
        if [ $trc -ne 77 ] && [ $# -ne 4 ]; then
            echo "bench.sh: torchvision gave no result: $tlog" >&2
            echo "$name FAILED" >>"$results"
            continue
        fi
        line="$line ${1:--} ${2:--} ${3:--} ${4:--}"
        [ "$name" = wild_crop_rgb_f16 ] && crop_list=${4:-}
    else
        line="$line - - - -"
    fi
    # DataLoader and PIL at imgbatch's batch size (its decoder: line).
    loader="- - -"
    if [ "$dl" = dl ]; then
        dlog=$out/logs/dataloader-$name.log
        size=$(sed -n 's/.*batches of \([0-9]*\) images.*/\1/p' \
            "$out/logs/imgbatch-$name-1.log" | head -n 1)
        "$python" "$here/bench_torchvision.py" "$out/$corpus" $transform \
            --label "$name" --dataloader --workers 16 \
            --batch-size "${size:-256}" --repeat $dl_repeat >"$dlog" 2>&1
        drc=$?
        n='\([0-9.]*\)'
        set -- $(sed -n "s/^RESULT .* workers=16 median=$n min=$n max=$n\$/\
\1 \2 \3/p" "$dlog")
        if [ $drc -ne 77 ] && [ $# -ne 3 ]; then
            echo "bench.sh: DataLoader gave no result: $dlog" >&2
            echo "$name FAILED" >>"$results"
            continue
        fi
        [ $# -eq 3 ] && loader="$1 $2 $3"
    fi
    echo "$line $ratio $loader" >>"$results"
    echo "$name: $(grep '^limited by:' "$out/logs/imgbatch-$name-1.log")"
done
rc=$?
[ $rc -eq 77 ] && exit 77

# 4. The table.
echo
awk '
function commas(n,   s, r) {
    s = sprintf("%d", n)
    r = ""
    while (length(s) > 3) {
        r = "," substr(s, length(s) - 2) r
        s = substr(s, 1, length(s) - 3) }
    return s r }
function sig3(x,   e) {
    if (x == "-" || x == "") return "-"
    if (x < 100) return sprintf("%.3g", x)
    e = int(log(x) / log(10)) - 2
    return commas(int(x / 10 ^ e + 0.5) * 10 ^ e) }
function span(m, lo, hi) {
    return m == "-" ? "-" : sig3(m) " (" sig3(lo) "-" sig3(hi) ")" }
BEGIN {
    printf "%-22s %-24s %-24s %-10s %-28s %-23s %-24s %s\n",
        "case (img/s)", "imgbatch", "nvJPEG bare", "time/bare",
        "torchvision best", "imgbatch / torchvision",
        "DataLoader+PIL (16 w)", "imgbatch / DataLoader" }
$2 == "FAILED" { printf "%-22s FAILED\n", $1; next }
{   tv = $8 == "-" ? "-" : span($8, $9, $10) " @" $11
    ratio = $8 == "-" ? "-" : sprintf("%.2f", $2 / $8)
    bare = $12 == "-" ? "-" : sprintf("%.2f", $12)
    dl = $13 == "-" ? "-" : span($13, $14, $15)
    dl_ratio = $13 == "-" ? "-" : sprintf("%.2f", $2 / $13)
    printf "%-22s %-24s %-24s %-10s %-28s %-23s %-24s %s\n", $1,
        span($2, $3, $4), span($5, $6, $7), bare, tv, ratio, dl,
        dl_ratio }' "$results"
grep -q FAILED "$results" && exit 1
exit 0
