#!/bin/sh
# so_check.sh SO HEADER PIC_DIR - libimgbatch.so exports the functions
# imgbatch.h (HEADER) declares, no more and no fewer, and refers to no
# function that ends its host process (exit, _exit, abort and the like):
# nm lists what the linked library needs from elsewhere, after the link
# dropped what the API cannot reach. Each such function is then looked
# for in the library's own objects (PIC_DIR): one they refer to fails the
# test, with one exception, named: stb_image's own assert() (its
# STBI_ASSERT), in the chapter's stb_impl.c, which the library reaches
# through the CPU decoder. One none of them refers to came with the
# toolkit's static code (cudart_static and what the compiler links in:
# a GCC 13 build's .so needs abort from it, a GCC 12 build's does not);
# it is named on the last line, not failed.
set -eu
[ $# -eq 3 ] || { echo "usage: so_check.sh SO HEADER PIC_DIR" >&2; exit 2; }
so=$1 header=$2 pic=$3
[ -f "$so" ] || { echo "so_check: no $so (make builds it)"; exit 1; }
tmp=${TMPDIR:-/tmp}/so_check.$$
trap 'rm -f "$tmp".*' EXIT

# Declared: each line of the header that starts a declaration with a type
# and names an imgbatch_ function.
grep -E '^[a-z][a-z_ ]*[ *]imgbatch_[a-z_]+\(' "$header" |
    sed -E 's/^[^(]*[ *](imgbatch_[a-z_]+)\(.*/\1/' | sort -u > "$tmp.declared"
nm -D --defined-only "$so" | awk '{print $NF}' | sed 's/@.*//' |
    sort -u > "$tmp.exported"
[ -s "$tmp.declared" ] || { echo "so_check: no function in $header"; exit 1; }
if ! cmp -s "$tmp.declared" "$tmp.exported"; then
    extra=$(comm -13 "$tmp.declared" "$tmp.exported" | tr '\n' ' ')
    missing=$(comm -23 "$tmp.declared" "$tmp.exported" | tr '\n' ' ')
    echo "so_check: exported but not in imgbatch.h: ${extra:-none};" \
         "in imgbatch.h but not exported: ${missing:-none}"
    exit 1
fi
n=$(wc -l < "$tmp.declared")

forbidden='^(exit|_exit|_Exit|quick_exit|abort|__assert_fail|signal'
forbidden="$forbidden|sigaction|atexit|at_quick_exit)\$"
found=$(nm -D --undefined-only "$so" | awk '{print $NF}' | sed 's/@.*//' |
        grep -E "$forbidden" | tr '\n' ' ' || true)
bad= toolkit= assert=
for sym in $found; do
    users=$(for o in $(find "$pic" -name '*.o'); do
                nm -u "$o" | awk '{print $NF}' | grep -qx "$sym" &&
                    echo "${o##*/}"; done | tr '\n' ' ')
    if [ -z "$users" ]; then
        toolkit="$toolkit $sym"
    elif [ "$sym" = __assert_fail ] && [ "$users" = "stb_impl.c.o " ]; then
        assert=" (stb_image's assert aside)"
    else
        bad="$bad $sym (from $users)"
    fi
done
[ -z "$bad" ] || { echo "so_check: $so refers to$bad"; exit 1; }
echo "so_check: $so exports the $n functions of imgbatch.h and nothing" \
     "else, and its objects refer to no exit$assert"
[ -z "$toolkit" ] ||
    echo "so_check: the toolkit's static code refers to$toolkit"
