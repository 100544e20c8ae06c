#!/bin/sh
# lesson.sh - CPU checks of a chapter's lesson.cu and exercise.cu.
#
#   lesson.sh alone FILE NVCC STB_DIR
#       FILE builds by itself: copied alone into an empty folder and built
#       with the first "nvcc ..." line of its header comment, run as
#       written (with the nvcc of NVCC first on PATH, and STB_DIR put where
#       the line says /usr/include/stb). So the build line a reader copies
#       works, and the file needs nothing from this project.
#   lesson.sh fixme LESSON EXERCISE
#       Past each file's header comment (up to the first line holding
#       "*/"), the exercise differs from the lesson only in lines that say
#       FIXME, and in 3 to 10 of them.
mode=$1
shift

# body FILE: FILE without its leading comment block.
body() {
    awk 'done { print; next } /\*\// { done = 1 }' "$1"
}

case $mode in
alone)
    file=$1 nvcc=$2 stb=$3
    line=$(sed -n 's/^[ /*]*\(nvcc .*\)$/\1/p' "$file" | head -n 1)
    if [ -z "$line" ]; then
        echo "$file: no 'nvcc ...' build line in its header comment"
        exit 1
    fi
    line=$(printf '%s\n' "$line" | sed "s|/usr/include/stb|$stb|g")
    dir=$(mktemp -d) || exit 1
    trap 'rm -rf "$dir"' EXIT
    cp "$file" "$dir/" || exit 1
    echo "in an empty folder: $line"
    cd "$dir" && PATH="$(dirname "$nvcc"):$PATH" sh -c "$line" || {
        echo "$file does not build alone with its own build line"
        exit 1
    }
    out=$(printf '%s\n' "$line" | sed -n 's/.* -o \([^ ]*\).*/\1/p')
    if [ -z "$out" ] || [ ! -x "$out" ]; then
        echo "the build line made no program named by its -o"
        exit 1
    fi
    ;;
fixme)
    lesson=$1 exercise=$2
    a=$(mktemp) && b=$(mktemp) || exit 1
    trap 'rm -f "$a" "$b"' EXIT
    body "$lesson" >"$a"
    body "$exercise" >"$b"
    changed=$(diff "$a" "$b" | grep '^>')
    other=$(printf '%s\n' "$changed" | grep -v FIXME | grep -v '^$')
    count=$(printf '%s\n' "$changed" | grep -c FIXME)
    if [ -n "$other" ]; then
        echo "the exercise differs from the lesson in lines without FIXME:"
        printf '%s\n' "$other"
        exit 1
    fi
    if [ "$count" -lt 3 ] || [ "$count" -gt 10 ]; then
        echo "the exercise has $count FIXME lines; 3 to 10 expected"
        exit 1
    fi
    echo "exercise = lesson with $count FIXME lines"
    ;;
*)
    echo "lesson.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
