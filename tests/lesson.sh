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
#       "*/"), the exercise differs from the lesson only in hunks that say
#       "FIXME k", numbered 1 to N, N from 3 to 5, and with every FIXME
#       solved it is the lesson (tests/exercise_states.sh split).
mode=$1
shift

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
    dir=$(mktemp -d) || exit 1
    trap 'rm -rf "$dir"' EXIT
    sh "$(dirname "$0")/exercise_states.sh" split "$lesson" "$exercise" \
        "$dir" || exit 1
    echo "exercise = lesson with $(grep -c "^only_" "$dir/states") FIXMEs"
    ;;
*)
    echo "lesson.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
