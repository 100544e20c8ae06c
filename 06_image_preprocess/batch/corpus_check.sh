#!/bin/sh
# corpus_check.sh BIN - imgbatch --make-corpus (BIN: imgbatch) end to end,
# without a GPU (tests/06_image_preprocess.cmake runs it as a CPU test):
# the files
# are named in order, nothing else is left in the folder, a mixed corpus
# has its progressive files where it says, the same options give the
# same bytes with 1 or 3 threads and another seed other bytes, and a
# folder that cannot be made is one line and exit 1. (What the files
# decode to is checked by tests/test_06_corpus.c.) Prints PASS.
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
