#!/bin/sh
# exercise_states_test.sh - tests/exercise_states.sh on small made-up
# files and programs, so that the test which proves an exercise never lies
# can itself fail: states made right, bad numbering refused, and every way
# a run can lie (PASS, a crash, stderr, the wrong exit) caught.
states="sh $(dirname "$0")/exercise_states.sh"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

# expect RC REGEX CMD...: CMD exits RC and prints a line matching REGEX.
expect() {
    want=$1 regex=$2
    shift 2
    "$@" >"$dir/log" 2>&1
    rc=$?
    if [ $rc -ne "$want" ] || ! grep -Eq -- "$regex" "$dir/log"; then
        fail "$* exited $rc (wanted $want), output:"; cat "$dir/log"
    fi
}

printf '/* lesson\n */\na\nb\nc\nd\ne\nf\ng\n' >"$dir/lesson.cu"
# FIXME 1: two hunks (b; g, as two lines, one not numbered); 2 and 3:
# adjacent lines, split; a header of another length.
printf '%s\n' '/* exercise' ' * more' ' */' a 'B /* FIXME 1 */' c \
    'D /* FIXME 2 */' 'E /* FIXME 3 */' f 'G1 /* FIXME 1 */' G2 >"$dir/ex.cu"
expect 0 'FIXME 1: exercise.cu lines 5-5 10-11' \
    $states split "$dir/lesson.cu" "$dir/ex.cu" "$dir/s"
body() { awk 'done { print; next } /\*\// { done = 1 }' "$1" | tr '\n' ' '; }
want="a b c D /* FIXME 2 */ E /* FIXME 3 */ f g "
[ "$(body "$dir/s/only_1.cu")" = "$want" ] ||
    fail "only_1: $(body "$dir/s/only_1.cu")"
[ "$(body "$dir/s/all_but_2.cu")" = "a b c D /* FIXME 2 */ e f g " ] ||
    fail "all_but_2: $(body "$dir/s/all_but_2.cu")"
[ "$(body "$dir/s/all.cu")" = "a b c d e f g " ] ||
    fail "all: $(body "$dir/s/all.cu")"
head -n 1 "$dir/s/all.cu" | grep -q '^/\* exercise' || fail "all: header"
# FIXME 1 half solved, each of its hunks left in turn.
[ "$(body "$dir/s/part_1_1.cu")" = "a B /* FIXME 1 */ c d e f g " ] ||
    fail "part_1_1: $(body "$dir/s/part_1_1.cu")"
[ "$(body "$dir/s/part_1_2.cu")" = "a b c d e f G1 /* FIXME 1 */ G2 " ] ||
    fail "part_1_2: $(body "$dir/s/part_1_2.cu")"
want="only_1 all_but_1 only_2 all_but_2 only_3 all_but_3 part_1_1 part_1_2 "
[ "$(tr '\n' ' ' <"$dir/s/states")" = "$want" ] ||
    fail "states: $(cat "$dir/s/states")"
# A hunk that only changes a comment, left alone, is no partial state:
# of FIXME 1's two hunks only the code's is.
printf '%s\n' '/* exercise' ' */' '/* a, FIXME 1 */' b 'C /* FIXME 1 */' \
    'D /* FIXME 2 */' 'E /* FIXME 3 */' f g >"$dir/ex2.cu"
printf '/* lesson\n */\n/* a */\nb\nc\nd\ne\nf\ng\n' >"$dir/lesson2.cu"
expect 0 'FIXME 1: exercise.cu lines 3-3 5-5' \
    $states split "$dir/lesson2.cu" "$dir/ex2.cu" "$dir/s2"
want="only_1 all_but_1 only_2 all_but_2 only_3 all_but_3 part_1_2 "
[ "$(tr '\n' ' ' <"$dir/s2/states")" = "$want" ] ||
    fail "states with a comment hunk: $(cat "$dir/s2/states")"

# bad EXERCISE_BODY REGEX: an exercise the split must refuse.
bad() {
    printf '/* exercise\n */\n%s\n' "$1" | tr '|' '\n' >"$dir/bad.cu"
    expect 1 "$2" $states split "$dir/lesson.cu" "$dir/bad.cu" "$dir/b"
}
bad 'a|B FIXME|c|D /* FIXME 2 */|E /* FIXME 3 */|f|g' \
    'lines 4-4 differ from the lesson but none says FIXME and a number'
bad 'a|B /* FIXME 1 */|c|D /* FIXME 2 */|E /* FIXME 4 */|f|g' \
    'numbered 1 2 4 - expected 1 to N'
bad 'a|B /* FIXME 1 */|c|D /* FIXME 2 */|e|f|g' 'numbered 1 2 - expected'
bad 'a|B /* FIXME 1 */|c|D /* FIXME 2 */|E /* FIXME 3 */|f' \
    'lesson.cu lines 9-9 are missing from the exercise'
bad 'a|B /* FIXME 1 */|c|D /* FIXME 2 */|E|F /* FIXME 3 */|g' \
    'mix FIXME numbers'
bad 'a|B /* FIXME 1 */|C /* FIXME 2 */|D /* FIXME 3 */|E /* FIXME 4 */'\
'|F /* FIXME 5 */|G /* FIXME 6 */' \
    'numbered 1 2 3 4 5 6 - expected'

# Runs: fake programs for each state of a 1-FIXME list.
prog() { printf '#!/bin/sh\n%s\n' "$2" >"$dir/r/$1"; chmod +x "$dir/r/$1"; }
mkdir -p "$dir/r" && echo "only_1 all_but_1" >"$dir/r/states"
run() { $states run "$dir/r" "$dir/r/none" "$dir/r/all"; }
prog none 'echo "FAIL: x"; exit 1'
prog only_1 'echo "FAIL: y"; exit 1'
prog all_but_1 'echo "FAIL: z"; exit 1'
prog all 'echo PASS'
expect 0 'every partial state FAILs' run
prog all_but_1 'echo PASS; echo "FAIL: z"; exit 1'
expect 1 'all_but_1: a PASS line' run
prog all_but_1 'echo "FAIL: z"; echo "x.cu:1: cudaFree failed" >&2; exit 1'
expect 1 'all_but_1: output on stderr' run
prog all_but_1 'echo "FAIL: z"; kill -ABRT $$'
expect 1 'all_but_1: killed by signal 6' run
prog all_but_1 'echo "FAIL: z"; exit 2'
expect 1 'all_but_1: exit 2, expected 1' run
prog all_but_1 'echo "FAIL: z"; echo PASS; exit 1'
expect 1 "last verdict 'PASS', expected FAIL" run
prog all_but_1 'echo "FAIL: z"; exit 1'
prog all 'echo "FAIL: w"; exit 0'
expect 1 "all: last verdict 'FAIL: w', expected PASS" run
prog all 'echo PASS'
prog only_1 'echo "no usable CUDA device" >&2; exit 77'
expect 77 'no usable CUDA device' run
rm "$dir/r/only_1"
expect 1 'only_1: .* was not built' run

[ $failures -eq 0 ] || { echo "$failures checks failed"; exit 1; }
echo "exercise_states.sh: all checks passed"
