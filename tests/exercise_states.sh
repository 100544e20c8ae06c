#!/bin/sh
# exercise_states.sh - every partial state of a chapter's exercise, made,
# built and run, so a test proves that an exercise never lies.
#
# Past their header comments (up to the first line holding "*/"), the
# exercise differs from the lesson in hunks (`diff`), and each hunk holds
# a line saying "FIXME k": it is part of FIXME k. FIXME k is solved by
# putting the lesson's lines back in all of its hunks, so one FIXME may
# span several hunks (a comment and its code). Such a FIXME half solved
# must fail too: for each of its hunks, a state with that hunk alone left
# (everything else solved), unless the code left is the lesson's but for
# comments ("cc -fpreprocessed" strips them). A hunk whose exercise
# lines each say FIXME, with different numbers, as many lines as the
# lesson's, is split line by line (adjacent lines, separate FIXMEs).
# The FIXMEs are numbered 1 to N, with N from 3 to 5.
#
#   exercise_states.sh split LESSON EXERCISE DIR
#       Writes DIR/none.cu (the exercise), DIR/only_K.cu (FIXME K solved
#       alone), DIR/all_but_K.cu (all others solved) for each K, and
#       DIR/all.cu (all solved, whose body must be the lesson's), and
#       DIR/part_K_H.cu (hunk H of FIXME K alone left) for a FIXME of
#       several hunks; lists the partial states' names in DIR/states.
#       Exit 1 if the FIXMEs are
#       not numbered as above.
#   exercise_states.sh build LESSON EXERCISE DIR NVCC [NVCC ARGS...]
#       split, then builds each state DIR/states lists (only_K, all_but_K,
#       part_K_H) into DIR/NAME with "NVCC -o DIR/NAME DIR/NAME.cu NVCC
#       ARGS...": each must build.
#   exercise_states.sh run DIR EXERCISE_BIN LESSON_BIN [ARGS...]
#       Runs the unsolved exercise and each built state (with ARGS): each
#       must exit 1 with nothing on stderr, its last PASS/FAIL line
#       "FAIL: ..." and no PASS line; then the lesson (all solved) must
#       exit 0 with "PASS" its last such line. A run that exits 77 (no
#       GPU) makes this exit 77.
mode=$1
shift

# body FILE: FILE without its leading comment block; head FILE: that block.
body() {
    awk 'done { print; next } /\*\// { done = 1 }' "$1"
}
head_comment() {
    awk '{ print } /\*\// { exit }' "$1"
}
# code FILE: FILE's body without comments, blank lines or indentation.
code() {
    body "$1" | ${CC:-cc} -fpreprocessed -E -P -x c - |
        sed 's/^[[:space:]]*//; /^$/d'
}

# units LESSON_BODY EXERCISE_BODY LESSON_HEAD EXERCISE_HEAD: one line per
# unit (a hunk, or a line of
# a split hunk): "K FIRST LAST LESSON_FIRST LESSON_LAST", exercise lines
# FIRST..LAST (LAST = FIRST - 1: none) replaced by lesson lines; or one
# line "error: ..." and exit 1.
units() {
    diff "$1" "$2" | awk -v loff="$(wc -l <"$3")" -v eoff="$(wc -l <"$4")" '
    # Messages name lines of the whole files, not of their bodies.
    function fail(msg) { print "error: " msg; bad = 1; exit 1 }
    function num(line,   s) {
        if (!match(line, /FIXME [0-9]+/)) return ""
        s = substr(line, RSTART + 6, RLENGTH - 6)
        return s + 0
    }
    function range(s, r) {   # "a,b" or "a" into r[1], r[2]
        if (index(s, ",")) { split(s, r, ","); r[1] += 0; r[2] += 0 }
        else { r[1] = s + 0; r[2] = s + 0 }
    }
    function flush(   i, k, n, same, all, nl, ne) {
        if (!open) return
        open = 0
        nl = lcount; ne = ecount
        if (ne == 0)
            fail("lesson.cu lines " l1 + loff "-" l2 + loff " are " \
                 "missing from the exercise, with no FIXME line in " \
                 "their place")
        k = ""; same = 1; all = 1
        for (i = 1; i <= ne; i++) {
            n = num(eline[i])
            if (n == "") { all = 0; continue }
            if (k == "") k = n
            else if (n != k) same = 0
        }
        if (k == "")
            fail("exercise.cu lines " e1 + eoff "-" e2 + eoff " differ " \
                 "from the lesson but none says FIXME and a number")
        if (same) {
            print k, e1, e2, l1, l2
            return
        }
        if (!all || nl != ne)
            fail("exercise.cu lines " e1 + eoff "-" e2 + eoff " mix " \
                 "FIXME numbers; split line by line only when each " \
                 "line says FIXME k and the lesson has as many lines " \
                 "there")
        for (i = 1; i <= ne; i++)
            print num(eline[i]), e1 + i - 1, e1 + i - 1, l1 + i - 1, \
                  l1 + i - 1
    }
    /^[0-9]/ {
        flush()
        open = 1; lcount = 0; ecount = 0
        cmd = $0; sub(/^[0-9,]+/, "", cmd); op = substr(cmd, 1, 1)
        split($0, parts, /[acd]/)
        range(parts[1], lr); range(parts[2], er)
        l1 = lr[1]; l2 = lr[2]; e1 = er[1]; e2 = er[2]
        if (op == "a") { l1 = lr[1] + 1; l2 = lr[1] }  # no lesson lines
        if (op == "d") { e1 = er[1] + 1; e2 = er[1] }  # no exercise lines
        next
    }
    /^< / { lcount++; next }
    /^> / { eline[++ecount] = substr($0, 3); next }
    END { if (!bad) flush() }'
}

# patch EXERCISE_BODY LESSON_BODY UNITS SOLVED: the exercise body with the
# units of FIXMEs in SOLVED (" 1 3 ") replaced by the lesson's lines.
patch() {
    awk -v solved="$4" -v ufile="$3" -v lfile="$2" '
    BEGIN {
        while ((getline line < lfile) > 0) lesson[++nl] = line
        while ((getline line < ufile) > 0) {
            split(line, u, " ")
            if (index(solved, " " u[1] " ") == 0) continue
            start[u[2]] = 1; last[u[2]] = u[3]
            lfirst[u[2]] = u[4]; llast[u[2]] = u[5]
        }
    }
    {
        i = FNR
        if (skip_to >= i) next
        if (i in start) {
            for (j = lfirst[i]; j <= llast[i]; j++) print lesson[j]
            skip_to = last[i]
            next
        }
        print
    }' "$1"
}

# split LESSON EXERCISE DIR: the states' sources (see the top).
split_states() {
    lesson=$1 exercise=$2 dir=$3
    mkdir -p "$dir" || return 1
    body "$lesson" >"$dir/lesson.body"
    body "$exercise" >"$dir/exercise.body"
    head_comment "$lesson" >"$dir/lesson.head"
    head_comment "$exercise" >"$dir/exercise.head"
    units "$dir/lesson.body" "$dir/exercise.body" "$dir/lesson.head" \
        "$dir/exercise.head" >"$dir/units"
    if grep -q '^error: ' "$dir/units"; then
        sed -n 's/^error: //p' "$dir/units"
        return 1
    fi
    count=$(cut -d ' ' -f 1 "$dir/units" | sort -n | uniq | wc -l)
    max=$(cut -d ' ' -f 1 "$dir/units" | sort -n | tail -n 1)
    if [ "$count" -lt 3 ] || [ "$count" -gt 5 ] || [ "$max" != "$count" ]
    then
        echo "the FIXMEs are numbered $(cut -d ' ' -f 1 "$dir/units" |
            sort -n | uniq | tr '\n' ' ')- expected 1 to N, N from 3 to 5"
        return 1
    fi
    all=" " k=1
    while [ $k -le "$count" ]; do all="$all$k "; k=$((k + 1)); done
    : >"$dir/states"
    # state NAME SOLVED: writes NAME.cu
    state() {
        { cat "$dir/exercise.head"
          patch "$dir/exercise.body" "$dir/lesson.body" "$dir/units" "$2"
        } >"$dir/$1.cu"
    }
    state none " "
    k=1
    while [ $k -le "$count" ]; do
        state "only_$k" " $k "
        state "all_but_$k" "$(printf '%s' "$all" | sed "s/ $k / /")"
        echo "only_$k all_but_$k" >>"$dir/states"
        k=$((k + 1))
    done
    # A FIXME of several hunks, one of them left: it must fail, unless
    # what is left is a comment.
    lesson_code=$(code "$lesson")
    k=1
    while [ $k -le "$count" ]; do
        n=$(awk -v k=$k '$1 == k' "$dir/units" | wc -l)
        h=1
        while [ "$n" -gt 1 ] && [ $h -le "$n" ]; do
            awk -v k=$k -v h=$h '$1 != k || ++seen != h' "$dir/units" \
                >"$dir/units.part"
            { cat "$dir/exercise.head"
              patch "$dir/exercise.body" "$dir/lesson.body" \
                  "$dir/units.part" "$all"
            } >"$dir/part_${k}_$h.cu"
            if [ "$(code "$dir/part_${k}_$h.cu")" = "$lesson_code" ]
            then
                rm -f "$dir/part_${k}_$h.cu"
            else
                echo "part_${k}_$h" >>"$dir/states"
            fi
            h=$((h + 1))
        done
        k=$((k + 1))
    done
    state all "$all"
    if ! body "$dir/all.cu" | cmp -s - "$dir/lesson.body"; then
        echo "with every FIXME solved, the exercise is not the lesson:"
        body "$dir/all.cu" | diff "$dir/lesson.body" -
        return 1
    fi
    if ! cmp -s "$dir/none.cu" "$exercise"; then
        echo "the unsolved state is not the exercise (a bug here)"
        return 1
    fi
    awk -v off="$(wc -l <"$dir/exercise.head")" '
        { n[$1] = n[$1] " " $2 + off "-" $3 + off }
        END { for (k in n) print "FIXME " k ": exercise.cu lines" n[k] }' \
        "$dir/units" | sort
}

# verdict NAME WANT CMD...: runs CMD, judges it (see the top); 77 passed on.
verdict() {
    name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 77 ]; then
        cat "$tmp/err"
        exit 77
    fi
    last=$(grep -E '^(PASS|FAIL)' "$tmp/out" | tail -n 1)
    problem=
    if [ $rc -gt 128 ]; then
        problem="killed by signal $((rc - 128))"
    elif [ "$want" = FAIL ]; then
        [ $rc -eq 1 ] || problem="exit $rc, expected 1"
    else
        [ $rc -eq 0 ] || problem="exit $rc, expected 0"
    fi
    if [ "$want" = FAIL ]; then
        case $last in
        "FAIL: "*) ;;
        *) problem="$problem${problem:+; }last verdict '$last', expected FAIL"
        esac
        if grep -q '^PASS' "$tmp/out"; then
            problem="$problem${problem:+; }a PASS line"
        fi
    else
        [ "$last" = PASS ] ||
            problem="$problem${problem:+; }last verdict '$last', expected PASS"
    fi
    if [ -s "$tmp/err" ]; then
        problem="$problem${problem:+; }output on stderr"
    fi
    if [ -n "$problem" ]; then
        echo "$name: $problem"
        echo "--- stdout (last 20 lines)"; tail -n 20 "$tmp/out"
        echo "--- stderr"; cat "$tmp/err"
        failed=$((failed + 1))
    else
        echo "$name: exit $rc, $last"
    fi
}

case $mode in
split)
    [ $# -eq 3 ] || { echo "usage: $0 split LESSON EXERCISE DIR" >&2; exit 2; }
    split_states "$@" || exit 1
    ;;
build)
    [ $# -ge 4 ] || {
        echo "usage: $0 build LESSON EXERCISE DIR NVCC [ARGS...]" >&2; exit 2; }
    lesson=$1 exercise=$2 dir=$3
    shift 3
    split_states "$lesson" "$exercise" "$dir" || exit 1
    nvcc=$1
    shift
    failed=0
    for name in $(cat "$dir/states"); do
        rm -f "$dir/$name"
        echo "$nvcc -o $dir/$name $dir/$name.cu $*"
        if ! "$nvcc" -o "$dir/$name" "$dir/$name.cu" "$@"; then
            echo "$name: does not build"
            failed=$((failed + 1))
        fi
    done
    [ $failed -eq 0 ] || { echo "$failed states do not build"; exit 1; }
    echo "every state builds"
    ;;
run)
    [ $# -ge 3 ] || {
        echo "usage: $0 run DIR EXERCISE_BIN LESSON_BIN [ARGS...]" >&2
        exit 2
    }
    dir=$1 exercise_bin=$2 lesson_bin=$3
    shift 3
    if [ ! -s "$dir/states" ]; then
        echo "$dir/states is missing: run '$0 build' first"
        exit 1
    fi
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    failed=0
    verdict none FAIL "$exercise_bin" "$@"
    for name in $(cat "$dir/states"); do
        if [ ! -x "$dir/$name" ]; then
            echo "$name: $dir/$name was not built"
            failed=$((failed + 1))
            continue
        fi
        verdict "$name" FAIL "$dir/$name" "$@"
    done
    verdict all PASS "$lesson_bin" "$@"
    [ $failed -eq 0 ] || { echo "$failed states lie"; exit 1; }
    echo "every partial state FAILs, and all solved PASSes"
    ;;
*)
    echo "exercise_states.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
