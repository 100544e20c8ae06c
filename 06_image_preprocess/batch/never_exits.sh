#!/bin/sh
# never_exits.sh OBJ_DIR - the loader library (imgbatch.h) never ends its
# host process: none of its object files in OBJ_DIR (the build's
# obj/06_image_preprocess/batch) refers to exit, _exit, abort or an
# assert, nor to the helpers of common/ that exit (cm_fail, cm_host_alloc
# and the like, CUDA_CHECK's exit is exit itself). nm lists what each
# object needs from elsewhere, so a call hidden in a macro counts too.
# The library's files are every batch/*.c and *.cu but the CLI's:
# imgbatch.cu (its main), batch_cli.c (its options), bare_decode.cu (its
# --bare-decode), batch_report.c (its report and CSV), corpus_main.c
# (--make-corpus), and the example, example.cu.
set -eu
[ $# -eq 1 ] || { echo "usage: never_exits.sh OBJ_DIR" >&2; exit 2; }
objs=$1
forbidden='^(exit|_exit|_Exit|quick_exit|abort|__assert_fail'
forbidden="$forbidden|cm_fail|cm_host_alloc|cm_require_host_bytes"
forbidden="$forbidden|cm_require_device_bytes|cm_mul_size|cm_select_device"
forbidden="$forbidden|cm_csv_open|cm_csv_finish)\$"
found=0 checked=0
for o in "$objs"/*.o; do
    case ${o##*/} in
    imgbatch.cu.o|example.cu.o|batch_cli.c.o|bare_decode.cu.o|\
    batch_report.c.o|corpus_main.c.o) continue ;;
    esac
    checked=$((checked + 1))
    bad=$(nm -u "$o" | awk '{print $NF}' | grep -E "$forbidden" | tr '\n' ' ')
    if [ -n "$bad" ]; then
        echo "never_exits: ${o##*/} refers to $bad"
        found=1
    fi
done
[ "$checked" -ge 15 ] || {
    echo "never_exits: only $checked library objects in $objs"; exit 1; }
[ "$found" -eq 0 ] || exit 1
echo "never_exits: $checked library objects refer to no exit"
