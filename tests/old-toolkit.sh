#!/bin/sh
# old-toolkit.sh - the course builds with CUDA 12.0 and newer, not only with
# the CUDA installed here: every source compiles against the headers of
# older CUDA releases, so a call newer than the release (cudaMemcpyBatchAsync
# is 12.8's) must sit behind its `#if CUDART_VERSION >= ...`.
#
#   old-toolkit.sh fetch DIR
#       Downloads from PyPI (pip download) the runtime, cuBLAS and cuRAND
#       wheels of each release below and keeps only their include/ folders,
#       as DIR/<release>/include. What CI runs before `make test`.
#   old-toolkit.sh check SRC DIR OUT NVCC STB_INCLUDE "CHAPTERS"
#       For each release: compiles every object of the Makefile (`make
#       objects`, so with its flags and -Werror) and every lesson and
#       exercise, with DIR/<release>/include in place of CUDA_PATH/include,
#       into OUT/<release>. Exits 77 (CTest: skipped) when DIR lacks the
#       headers.
#   old-toolkit.sh sms SRC
#       The Makefile's default SMS is what nvcc --list-gpu-code allows,
#       checked with stand-ins for the nvcc of CUDA 12.4 and 13.0 and one
#       that cannot answer.
#
# How the compile is honest. No older nvcc can be installed here (PyPI's
# nvcc wheels hold ptxas and libnvvm, not the nvcc driver nor its front
# end), so the installed nvcc compiles, with the old headers first on its
# include path: every declaration our code calls (cuda_runtime_api.h,
# driver_types.h, cublas_api.h, curand.h, ...) and CUDART_VERSION come
# from the old release, so a guard that is missing or wrong fails here.
# Only crt/ still comes from the installed toolkit, with nv/ and cccl/
# that it includes: crt/ is the compiler's own half of the headers (the
# wheels ship it with nvcc, not with the runtime), and it must match the
# compiler that reads it. The C files go through gcc with the same old
# headers first, and crt/ likewise from the installed toolkit. After the
# build, every header a compile read is checked (the -MMD files): one
# from the installed toolkit outside crt/, nv/ and cccl/ fails the test.
# What this does not show: that the older nvcc itself accepts our flags,
# or that programs link and run with the older libraries.
set -u

# Each release: its CUDART_VERSION, then the wheels (name==version) whose
# include/ folders make its headers.
RELEASES="12.0 12.8"
release_info() {
    case $1 in
    12.0) echo 12000 nvidia-cuda-runtime-cu12==12.0.107 \
              nvidia-cublas-cu12==12.0.1.189 nvidia-curand-cu12==10.3.1.50 ;;
    12.8) echo 12080 nvidia-cuda-runtime-cu12==12.8.90 \
              nvidia-cublas-cu12==12.8.4.1 nvidia-curand-cu12==10.3.9.90 ;;
    esac
}

fail() { echo "old-toolkit: $*" >&2; exit 1; }
usage() { echo "usage: old-toolkit.sh $* (see its header)" >&2; exit 2; }

fetch() {
    dir=$1
    command -v python3 >/dev/null 2>&1 || fail "python3 not found (for pip)"
    for rel in $RELEASES; do
        set -- $(release_info "$rel")
        shift
        if [ -f "$dir/$rel/complete" ] &&
           [ "$(cat "$dir/$rel/complete")" = "$*" ]; then
            echo "CUDA $rel headers: already in $dir/$rel"
            continue
        fi
        rm -rf "$dir/$rel" "$dir/wheels-$rel"
        mkdir -p "$dir/$rel/include" "$dir/wheels-$rel" || exit 1
        echo "CUDA $rel headers: pip download $*"
        PIP_DISABLE_PIP_VERSION_CHECK=1 python3 -m pip download --no-deps \
            --no-cache-dir --quiet --dest "$dir/wheels-$rel" "$@" ||
            fail "pip download of CUDA $rel's wheels failed"
        # A wheel is a zip: keep nvidia/<package>/include/* only.
        python3 - "$dir/wheels-$rel" "$dir/$rel/include" <<'EOF' ||
import os, sys, zipfile
wheels, dest = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(wheels)):
    with zipfile.ZipFile(os.path.join(wheels, name)) as z:
        for m in z.infolist():
            parts = m.filename.split("/")
            if (len(parts) > 3 and parts[0] == "nvidia" and
                    parts[2] == "include" and not m.is_dir() and
                    parts[-1] != "__init__.py"):
                out = os.path.join(dest, *parts[3:])
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with z.open(m) as src, open(out, "wb") as dst:
                    dst.write(src.read())
EOF
            fail "could not unpack CUDA $rel's wheels"
        rm -rf "$dir/wheels-$rel"
        echo "$*" >"$dir/$rel/complete"
    done
}

# audit OUT OLD_INC NVCC_INC: every header named in OUT's .d files that
# lies in the installed toolkit's include folder is the compiler's own
# (crt/, nv/, cccl/); and the old headers were read at all.
audit() {
    local out=$1 old_inc=$2 nvcc_inc=$3 used_old=0 bad="" dep path
    for dep in $(find "$out" -name '*.d' -exec cat {} + |
                 tr ' \\' '\n\n' | sed -n 's/:$//; /\.h/p' | sort -u); do
        path=$(readlink -f "$dep" 2>/dev/null) || continue
        case $path in
        "$old_inc"/*) used_old=1 ;;
        "$nvcc_inc"/crt/* | "$nvcc_inc"/nv/* | "$nvcc_inc"/cccl/*) ;;
        "$nvcc_inc"/*) bad="$bad ${path#"$nvcc_inc"/}" ;;
        esac
    done
    [ -z "$bad" ] || fail "read from the installed CUDA, not the old" \
        "release's headers:$bad"
    [ $used_old = 1 ] || fail "no compile read the headers in $old_inc"
}

check() {
    src=$1 dir=$2 out=$3 nvcc=$4 stb=$5 chapters=$6
    for rel in $RELEASES; do
        if [ ! -f "$dir/$rel/complete" ]; then
            # Named from SRC, where the user runs the fetch.
            shown=${dir#"$src"/}
            echo "no CUDA $rel headers in $shown: run" \
                "tests/old-toolkit.sh fetch $shown (downloads from PyPI)"
            exit 77
        fi
    done
    command -v "$nvcc" >/dev/null 2>&1 || fail "no nvcc at $nvcc"
    nvcc_bin=$(readlink -f "$(command -v "$nvcc")")
    nvcc_inc=$(readlink -f "$(dirname "$nvcc_bin")/../include")
    # The make below is ours, not the one running the tests.
    unset MAKEFLAGS MFLAGS MAKELEVEL
    # gcc finds crt/ (and only what the old release lacks) in the installed
    # toolkit, searched after every -I folder; the audit below refuses any
    # header from there but crt/, nv/ and cccl/. Some machines link these
    # headers into /usr/local/include, which gcc searches anyway; others
    # (the GPU machines) do not.
    export C_INCLUDE_PATH="$nvcc_inc" CPLUS_INCLUDE_PATH="$nvcc_inc"
    # nvcc 13's launch stubs name cudaKernel_t (CUDA 12.1+) unless
    # __NV_LEGACY_LAUNCH, a switch of its own crt/host_runtime.h, makes
    # them call cudaLaunchKernel, which every 12.x declares. It changes
    # only the code nvcc generates for a <<<...>>> launch, not ours.
    legacy="-D__NV_LEGACY_LAUNCH -Xcompiler -D__NV_LEGACY_LAUNCH"
    for rel in $RELEASES; do
        set -- $(release_info "$rel")
        want=$1
        root=$(readlink -f "$dir/$rel")
        build=$out/$rel
        rm -rf "$build" && mkdir -p "$build/lessons" || exit 1
        echo "== CUDA $rel: headers of $(cat "$root/complete")"

        # The compilers see the old release: CUDART_VERSION is its own.
        printf '%s\n' '#include <cuda_runtime_api.h>' \
            "#if CUDART_VERSION != $want" '#error wrong CUDART_VERSION' \
            '#endif' >"$build/probe.c"
        cp "$build/probe.c" "$build/probe.cu"
        gcc -I"$root/include" -fsyntax-only "$build/probe.c" ||
            fail "gcc does not see CUDA $rel's headers"
        "$nvcc" -I"$root/include" -E "$build/probe.cu" -o /dev/null ||
            fail "nvcc does not see CUDA $rel's headers"

        (cd "$src" && make --no-print-directory -j"$(nproc)" objects \
            BUILD="$build" CUDA_PATH="$root" NVCC="$nvcc" SMS=75 \
            STB_INCLUDE="$stb" CHAPTERS="$chapters" \
            NVCCFLAGS="-O2 $legacy") >"$build/make.log" 2>&1 || {
            grep -v -e '^  [A-Z]* ' "$build/make.log" | tail -n 30
            fail "the sources do not compile against CUDA $rel's headers"
        }
        n=$(find "$build/obj" -name '*.o' | wc -l)
        for ch in $chapters; do
            for kind in lesson exercise; do
                file=$src/$ch/$kind.cu
                [ -f "$file" ] || continue
                "$nvcc" -I"$root/include" -I"$stb" $legacy -O2 \
                    -gencode arch=compute_75,code=sm_75 \
                    -Werror all-warnings -Xcompiler -Wall,-Wextra \
                    -MMD -c "$file" -o "$build/lessons/$ch.$kind.o" ||
                    fail "$ch/$kind.cu does not compile against CUDA" \
                        "$rel's headers"
                n=$((n + 1))
            done
        done
        audit "$build" "$root/include" "$nvcc_inc"
        echo "   $n files compiled against CUDA $rel's headers"
    done
    echo "PASS"
}

# sms SRC: `make help` shows the SMS that the Makefile derived.
sms() {
    src=$1
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    unset MAKEFLAGS MFLAGS MAKELEVEL SMS
    # As on a machine without a GPU, where SMS follows nvcc alone.
    export NVIDIA_SMI=false
    # What CUDA 12.4's and 13.0's nvcc answer to --list-gpu-code, and an
    # nvcc that does not know the option.
    printf '%s\n' '#!/bin/sh' 'printf "sm_%s\n" 50 52 53 60 61 62 70 72 75 \
        80 86 87 89 90' >"$tmp/nvcc-12.4"
    printf '%s\n' '#!/bin/sh' 'printf "sm_%s\n" 75 80 86 87 88 89 90 100 \
        110 103 120 121' >"$tmp/nvcc-13.0"
    printf '%s\n' '#!/bin/sh' 'echo "nvcc fatal: Unknown option" >&2' \
        'exit 1' >"$tmp/nvcc-none"
    chmod +x "$tmp"/nvcc-*
    status=0
    expect_sms() {
        want=$1
        shift
        got=$(cd "$src" && make --no-print-directory help "$@" |
              sed -n 's/^ *SMS="\([^"]*\)".*/\1/p')
        if [ "$got" = "$want" ]; then
            echo "ok: make $* -> SMS=\"$got\""
        else
            echo "make $*: SMS=\"$got\", expected \"$want\""
            status=1
        fi
    }
    expect_sms "75 80 86 89 90" NVCC="$tmp/nvcc-12.4"
    expect_sms "75 80 86 89 90 100 120" NVCC="$tmp/nvcc-13.0"
    expect_sms "75 80 86 89 90 100 120" NVCC="$tmp/nvcc-none"
    expect_sms "86" NVCC="$tmp/nvcc-12.4" SMS=86
    expect_sms "100 120" NVCC="$tmp/nvcc-12.4" SMS="100 120"
    # The derived list is what the programs learn they were built for.
    flags=$(cd "$src" && make --no-print-directory -n -B \
            NVCC="$tmp/nvcc-12.4" BUILD="$tmp/build" \
            "$tmp/build/obj/common/device.c.o")
    case $flags in
    *"-DCM_BUILT_SMS='\"75 80 86 89 90\"'"*)
        echo "ok: CM_BUILT_SMS is the derived list" ;;
    *) echo "CM_BUILT_SMS is not the derived list in: $flags"; status=1 ;;
    esac
    exit $status
}

mode=${1:-}
[ $# -gt 0 ] && shift
case $mode in
fetch) [ $# -eq 1 ] || usage "fetch DIR"; fetch "$@" ;;
check) [ $# -eq 6 ] || usage "check SRC DIR OUT NVCC STB_INCLUDE CHAPTERS"
       check "$@" ;;
sms) [ $# -eq 1 ] || usage "sms SRC"; sms "$@" ;;
*) usage "fetch|check|sms ..." ;;
esac
