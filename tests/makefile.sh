#!/bin/sh
# makefile.sh - what the top Makefile and `make test` promise a user,
# checked with stand-in tools (no compile, no GPU), so each check takes
# a second or two.
#
#   makefile.sh MODE SRC
#
#   short_lines     `make 07` prints one short line a file (  NVCC
#                   07_bandwidth/sweep.cu,   LINK build/bin/07_bandwidth)
#   verbose         V=1 prints each command in full instead
#   native_sms      the default SMS is the GPUs' here (nvidia-smi), else
#                   what nvcc builds; SMS given on the command line wins
#   sms_stamp       a change of that choice rebuilds the GPU code, and
#                   no change rebuilds nothing
#   bad_chapter     make 08, make lesson-99, CHAPTERS=03: exit 2 and one
#                   line naming the chapters there are
#   stb_include     STB_INCLUDE set to a folder without stb_image.h: named
#   ctest_summary   tests/ctest.sh keeps CTest's closing line and ends
#                   with what ran, passed, failed and skipped, and why
#   ctest_no_tests  a CTEST_ARGS that selects no test fails
set -u
mode=${1:?usage: makefile.sh MODE SRC}
src=${2:?usage: makefile.sh MODE SRC}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# The make below is ours, not the one running the tests.
unset MAKEFLAGS MFLAGS MAKELEVEL SMS V CHAPTERS STB_INCLUDE
status=0
fail() { echo "FAILED: $*"; status=1; }
ok() { echo "ok: $*"; }

# A compiler, archiver and linker in one: it logs its arguments and
# makes the file named by -o (or ar's archive); as nvcc it lists
# sm_75 ... sm_120 for --list-gpu-code.
tool=$tmp/tool
cat >"$tool" <<'EOF'
#!/bin/sh
echo "$*" >>"${FAKE_LOG:?}"
case $1 in
--list-gpu-code) printf 'sm_%s\n' 75 80 86 87 89 90 100 120; exit 0 ;;
rcs) : >"$2"; exit 0 ;;
esac
while [ $# -gt 0 ]; do
    [ "$1" = -o ] && { mkdir -p "$(dirname "$2")"; : >"$2"; }
    shift
done
EOF
chmod +x "$tool"
export FAKE_LOG="$tmp/log"
# smi TEXT: an nvidia-smi that prints TEXT (one GPU a line).
smi() {
    printf '#!/bin/sh\nprintf "%s"\n' "$1" >"$tmp/smi"
    chmod +x "$tmp/smi"
    echo "$tmp/smi"
}
# mk ARGS...: make in SRC with the stand-ins, into $tmp/build.
mk() {
    (cd "$src" && make --no-print-directory NVCC="$tool" CC="$tool" \
        CXX="$tool" AR="$tool" BUILD="$tmp/build" CHAPTERS=07_bandwidth \
        "$@")
}
sms_of() {
    mk help "$@" | sed -n 's/^ *SMS="\([^"]*\)".*/\1/p'
}

case $mode in
short_lines)
    mk 07 NVIDIA_SMI=false >"$tmp/out" 2>&1 || fail "make 07 failed"
    cat "$tmp/out"
    bad=$(grep -cvE '^  (CC|NVCC|AR|LINK) +[^ ]+$' "$tmp/out")
    [ "$bad" -eq 0 ] || fail "$bad lines are not one short line a file"
    grep -qx '  NVCC 07_bandwidth/bandwidth.cu' "$tmp/out" ||
        fail "no line '  NVCC 07_bandwidth/bandwidth.cu'"
    grep -qx '  CC   common/units.c' "$tmp/out" ||
        fail "no line '  CC   common/units.c'"
    grep -qx "  LINK $tmp/build/bin/07_bandwidth" "$tmp/out" ||
        fail "no LINK line for the lab"
    [ $status -eq 0 ] && ok "one short line a file"
    ;;
verbose)
    mk 07 NVIDIA_SMI=false V=1 >"$tmp/out" 2>&1 || fail "make 07 V=1 failed"
    want="^$tool .*-gencode arch=compute_90,code=sm_90 .*"
    grep -E "$want-c 07_bandwidth/bandwidth.cu" "$tmp/out" >/dev/null ||
        fail "V=1 does not show the nvcc command"
    grep -qE '^  (CC|NVCC|LINK) +[^ ]+$' "$tmp/out" &&
        fail "V=1 still prints the short lines"
    [ $status -eq 0 ] && ok "V=1 shows each command"
    ;;
native_sms)
    # expect WANT ARGS...: make help shows SMS=WANT.
    expect() {
        want=$1
        shift
        got=$(sms_of "$@")
        if [ "$got" = "$want" ]; then
            ok "$* -> SMS=\"$got\""
        else
            fail "$*: SMS=\"$got\", expected \"$want\""
        fi
    }
    all="75 80 86 89 90 100 120"
    expect "90" NVIDIA_SMI="$(smi '9.0\n')"
    expect "86 90" NVIDIA_SMI="$(smi '9.0\n8.6\n9.0\n')"
    expect "87" NVIDIA_SMI="$(smi '8.7\n')"
    expect "100 120" NVIDIA_SMI="$(smi '12.0\n10.0\n')"
    # A GPU this nvcc cannot build for, a failing nvidia-smi, none.
    expect "$all" NVIDIA_SMI="$(smi '12.1\n')"
    expect "$all" NVIDIA_SMI="$(smi 'NVIDIA-SMI has failed because it \
could not communicate with the NVIDIA driver.\n')"
    expect "$all" NVIDIA_SMI=false
    expect "$all" NVIDIA_SMI=/no/such/nvidia-smi
    expect "80" NVIDIA_SMI="$(smi '9.0\n')" SMS=80
    # The choice reaches the compile and the programs (CM_BUILT_SMS).
    line=$(mk -n -B "$tmp/build/obj/common/device.c.o" \
           NVIDIA_SMI="$(smi '8.6\n')")
    case $line in
    *"-DCM_BUILT_SMS='\"86\"'"*) ok "CM_BUILT_SMS is the GPU's" ;;
    *) fail "CM_BUILT_SMS is not the GPU's in: $line" ;;
    esac
    ;;
sms_stamp)
    obj=$tmp/build/obj/07_bandwidth/bandwidth.cu.o
    # built SMI_TEXT: make the object; prints what nvcc was asked.
    built() {
        : >"$FAKE_LOG"
        mk "$obj" NVIDIA_SMI="$(smi "$1")" >/dev/null 2>&1 ||
            fail "make $obj failed"
        grep -o 'code=sm_[0-9]*' "$FAKE_LOG" | tr '\n' ' '
    }
    got=$(built '9.0\n')
    [ "$got" = "code=sm_90 " ] || fail "first build: '$got'"
    got=$(built '9.0\n')
    [ -z "$got" ] && ok "the same GPU: nothing rebuilt" ||
        fail "the same GPU rebuilt: '$got'"
    got=$(built '8.6\n')
    [ "$got" = "code=sm_86 " ] && ok "another GPU: rebuilt for sm_86" ||
        fail "another GPU: '$got'"
    got=$(built 'none\n')
    case $got in
    "code=sm_75 code=sm_80 "*"code=sm_120 ")
        ok "no GPU: rebuilt for every architecture" ;;
    *) fail "no GPU: '$got'" ;;
    esac
    ;;
bad_chapter)
    # refused WHAT ARGS...: make ARGS exits 2 with one stderr line that
    # names WHAT and every chapter.
    refused() {
        what=$1
        shift
        (cd "$src" && make --no-print-directory NVIDIA_SMI=false -n "$@") \
            >"$tmp/out" 2>"$tmp/err"
        rc=$?
        if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
            grep -q -- "$what" "$tmp/err" &&
            grep -q 'the chapters are 01_array_basics .*07_bandwidth' \
                "$tmp/err"; then
            ok "make $*: $(cat "$tmp/err")"
        else
            fail "make $*: exit $rc, stderr:"; cat "$tmp/err"
        fi
    }
    refused "make 08: no chapter 08;" 08
    refused "make lesson-99: no chapter 99;" lesson-99
    refused "make exercise-1: no chapter 1;" exercise-1
    refused "make run-07: no chapter 07 in CHAPTERS=\"03_matmul\";" \
        run-07 CHAPTERS=03_matmul
    refused "make compare-08: no chapter 08;" compare-08
    refused 'CHAPTERS="03": no chapter folder 03;' CHAPTERS=03
    # What is right still works.
    (cd "$src" && make --no-print-directory NVIDIA_SMI=false -n 07 \
        lesson-01 run-06-batch >/dev/null) ||
        fail "make -n 07 lesson-01 run-06-batch failed"
    ;;
stb_include)
    (cd "$src" && make --no-print-directory NVIDIA_SMI=false stb \
        STB_INCLUDE="$tmp/nostb") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 0 ] &&
        grep -qx "error: STB_INCLUDE=$tmp/nostb has no stb_image.h" \
            "$tmp/err"; then
        ok "make stb STB_INCLUDE=$tmp/nostb: $(head -n 1 "$tmp/err")"
    else
        fail "make stb STB_INCLUDE=$tmp/nostb: exit $rc:"; cat "$tmp/err"
    fi
    ;;
ctest_summary | ctest_no_tests)
    # A suite of five: two pass, one fails, two skip (exit 77) for
    # different reasons.
    suite=$tmp/suite
    mkdir -p "$suite"
    skip_gpu="echo 'lab: no usable CUDA device: no NVIDIA driver or GPU \
found' >&2; exit 77"
    cat >"$suite/CTestTestfile.cmake" <<EOF
add_test(a_pass sh -c "echo fine")
add_test(b_pass sh -c "exit 0")
add_test(c_fail sh -c "echo broken; exit 1")
add_test(d_gpu sh -c "$skip_gpu")
add_test(e_tool sh -c "echo 'skipped: gnuplot not found'; exit 77")
set_tests_properties(d_gpu e_tool PROPERTIES SKIP_RETURN_CODE 77)
set_tests_properties(a_pass b_pass c_fail d_gpu PROPERTIES LABELS cpu)
EOF
    if [ "$mode" = ctest_no_tests ]; then
        sh "$src/tests/ctest.sh" "$suite" -L gpuu >"$tmp/out" 2>&1
        rc=$?
        cat "$tmp/out"
        [ $rc -ne 0 ] || fail "-L gpuu selects no test, yet exit 0"
        tail -n 1 "$tmp/out" | grep -q '^make test: no test ran' ||
            fail "no closing 'make test: no test ran' line"
        exit $status
    fi
    sh "$src/tests/ctest.sh" "$suite" >"$tmp/out" 2>&1
    rc=$?
    cat "$tmp/out"
    [ $rc -ne 0 ] || fail "a test failed, yet exit 0"
    grep -q '^80% tests passed, 1 tests failed out of 5' "$tmp/out" ||
        fail "CTest's closing line is gone"
    printf '%s\n' "make test: 3 ran, 2 passed, 1 failed (listed above), \
2 skipped:" "  1 needs a GPU (no usable CUDA device: no NVIDIA driver or \
GPU found)" "  1 gnuplot not found" >"$tmp/want"
    tail -n 3 "$tmp/out" | cmp -s - "$tmp/want" ||
        { fail "the last lines are not:"; cat "$tmp/want"; }
    # Without the failure: exit 0.
    sh "$src/tests/ctest.sh" "$suite" -E c_fail >"$tmp/out" 2>&1 ||
        fail "without c_fail: exit $?"
    tail -n 3 "$tmp/out" | head -n 1 |
        grep -qx 'make test: 2 ran, 2 passed, 2 skipped:' ||
        fail "without c_fail: $(tail -n 3 "$tmp/out" | head -n 1)"
    ;;
*)
    echo "makefile.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
exit $status
