#!/bin/sh
# corpus_check.sh BIN - imgbatch --make-corpus (BIN: imgbatch) end to end,
# without a GPU (tests/06_library.cmake runs it as a CPU test):
# the files are named in order, nothing else is left in the folder, a
# mixed corpus has its progressive files where it says, the same options
# give the same bytes with 1 or 3 threads and another seed other bytes; a
# wild corpus's headers hold the sizes, chroma, restart markers and Exif
# segments its summary counts; --from cuts photographs (and skips a file
# that is none); a folder that cannot be made or read is one line and
# exit 1. (What the files decode to is checked by tests/test_06_corpus.c.)
# Prints PASS.
bin=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# sof FILE: the JPEG's frame marker, c0 (baseline) or c2 (progressive),
# from the first bytes: the first ff byte followed by c0..c2.
sof() {
    od -An -v -tx1 -N 1024 "$1" | tr -s ' ' '\n' | grep -v '^$' |
        awk 'prev == "ff" && /^c[0-2]$/ { print; exit } { prev = $0 }'
}

make_corpus() {
    "$bin" --make-corpus "$@" >"$tmp/out" 2>"$tmp/err" ||
        fail "--make-corpus $*: exit $? ($(cat "$tmp/err"))"
}

make_corpus "$tmp/a" --count 6 --size 37x21 --kind mixed --threads 1
[ "$(ls -A "$tmp/a" | tr '\n' ' ')" = "img_00000.jpg img_00001.jpg \
img_00002.jpg img_00003.jpg img_00004.jpg img_00005.jpg " ] ||
    fail "files: $(ls -A "$tmp/a" | tr '\n' ' ')"
grep -q '^corpus: 6 JPEGs in .*, 37 x 21, ' "$tmp/out" ||
    fail "summary: $(cat "$tmp/out")"
for i in 0 1 2 3 4 5; do
    want=c0
    [ $i = 3 ] && want=c2
    got=$(sof "$tmp/a/img_0000$i.jpg")
    [ "$got" = $want ] || fail "img_0000$i.jpg: SOF $got, expected $want"
done

make_corpus "$tmp/b" --count 6 --size 37x21 --kind mixed --threads 3
for f in "$tmp"/a/*; do
    cmp -s "$f" "$tmp/b/${f##*/}" ||
        fail "${f##*/} differs between 1 and 3 threads"
done
make_corpus "$tmp/c" --count 1 --size 37x21 --kind mixed --seed 2
cmp -s "$tmp/a/img_00000.jpg" "$tmp/c/img_00000.jpg" &&
    fail "seeds 1 and 2 gave the same file"
make_corpus "$tmp/d" --count 2 --size 9x7 --kind gray-progressive
[ "$(sof "$tmp/d/img_00001.jpg")" = c2 ] || fail "gray-progressive: not SOF2"

# header FILE: "WIDTH HEIGHT COMPONENTS SAMPLING DRI EXIF" from the
# markers before the first scan (SAMPLING: component 0's, h and v in hex).
header() {
    od -An -v -tx1 "$1" | tr -s ' ' '\n' | grep -v '^$' | awk '
        function hex(s,   v, i) {
            v = 0
            for (i = 1; i <= length(s); i++)
                v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
            return v }
        { b[n++] = $0 }
        END {
            i = 2
            while (i + 4 <= n && b[i] == "ff") {
                m = b[i + 1]; len = hex(b[i + 2] b[i + 3])
                if (m == "c0" || m == "c2") {
                    h = hex(b[i + 5] b[i + 6])
                    w = hex(b[i + 7] b[i + 8])
                    comps = hex(b[i + 9]); samp = b[i + 11] }
                if (m == "dd") dri = 1
                if (m == "e1" && b[i + 4] == "45" && b[i + 5] == "78") exif = 1
                if (m == "da") break
                i += 2 + len }
            print w, h, comps, samp, dri + 0, exif + 0 }'
}

make_corpus "$tmp/w" --count 30 --kind wild --threads 2
summary=$(head -n 1 "$tmp/out")
gray=0 c420=0 c422=0 c444=0 dri=0 exif=0
for f in "$tmp"/w/*.jpg; do
    set -- $(header "$f")
    [ "$1" -ge 333 ] && [ "$1" -le 640 ] && [ "$2" -ge 333 ] &&
        [ "$2" -le 640 ] || fail "${f##*/}: $1 x $2"
    if [ "$3" = 1 ]; then gray=$((gray + 1))
    elif [ "$4" = 22 ]; then c420=$((c420 + 1))
    elif [ "$4" = 21 ]; then c422=$((c422 + 1))
    elif [ "$4" = 11 ]; then c444=$((c444 + 1))
    else fail "${f##*/}: components $3, sampling $4"; fi
    dri=$((dri + $5))
    exif=$((exif + $6))
done
want="$gray gray, $c420 YCbCr 4:2:0, $c422 4:2:2, $c444 4:4:4; $dri with \
restart markers, $exif with Exif"
case $summary in *"$want"*) ;; *) fail "headers: $want; $summary" ;; esac
[ $((c420 + c422 + c444)) -gt 0 ] && [ $dri -gt 0 ] && [ $exif -gt 0 ] ||
    fail "a wild corpus of 30 without variety: $summary"
make_corpus "$tmp/w4" --count 10 --kind wild --chroma 420
grep -q ' 0 gray, 10 YCbCr 4:2:0, 0 4:2:2, 0 4:4:4;' "$tmp/out" ||
    fail "--chroma 420: $(head -n 1 "$tmp/out")"

# --from: crops of the photographs in a folder; a file there that is no
# image is said and left out; a folder without images is refused.
mkdir -p "$tmp/photos" "$tmp/no_photos"
cp "$tmp/w/img_00000.jpg" "$tmp/photos/a.jpg"
echo "not an image" >"$tmp/photos/b.png"
make_corpus "$tmp/p" --count 4 --from "$tmp/photos" --size 64x48
grep -q '^photographs: 1 from ' "$tmp/out" &&
    grep -q 'cut from photographs' "$tmp/out" &&
    grep -q 'skipped .*b.png' "$tmp/err" || fail "--from: $(cat "$tmp/out")"
for dir in "$tmp/no_photos" "$tmp/missing"; do
    "$bin" --make-corpus "$tmp/q" --from "$dir" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] ||
        fail "--from $dir: exit $rc, stderr: $(cat "$tmp/err")"
    cat "$tmp/err"
done

# Existing folders are filled again; a path that cannot be a folder is
# refused with one line.
make_corpus "$tmp/a" --count 1 --size 37x21
for dir in "$tmp/a/img_00000.jpg" "$tmp/none/sub"; do
    "$bin" --make-corpus "$dir" --count 1 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] ||
        fail "--make-corpus $dir: exit $rc, stderr: $(cat "$tmp/err")"
    cat "$tmp/err"
done
echo PASS
