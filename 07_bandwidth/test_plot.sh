#!/bin/sh
# test_plot.sh SRC_DIR - `make plot-07` refuses a CSV that does not exist
# in one line, and turns a small sweep CSV (written here, no GPU needed)
# into a PNG: checks the PNG signature, the IHDR chunk and a non-trivial
# size. Exits 77 (skipped) when gnuplot is missing.
src=${1:?usage: test_plot.sh SRC_DIR}
gnuplot=${GNUPLOT:-gnuplot}

# First, without gnuplot or a GPU: a CSV that does not exist is named in
# one line of our own, before anything else runs (no "head:" error).
# (MAKEFLAGS= : a make of its own, not a part of the make running CTest)
export MAKEFLAGS=
err=$(make -s -C "$src" CHAPTERS=07_bandwidth BUILD=/nonexistent-build \
      PLOT07_CSV=/nonexistent.csv plot-07 2>&1 >/dev/null)
first=$(printf '%s\n' "$err" | head -n 1)
if [ "$first" != "error: PLOT07_CSV=/nonexistent.csv: no such file" ] ||
    printf '%s\n' "$err" | grep -q '^head:'; then
    echo "make plot-07 with a missing CSV said:"; printf '%s\n' "$err"
    exit 1
fi
if ! command -v "$gnuplot" >/dev/null 2>&1; then
    echo "skipped: gnuplot not found (GNUPLOT=$gnuplot)" >&2
    exit 77
fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT

# The columns 07_bandwidth --sweep --csv writes (see chart.c); plot.gp
# draws the first five.
{
    echo "bytes,pageable_h2d_gbps,pageable_d2h_gbps,pinned_h2d_gbps,\
pinned_d2h_gbps,pageable_h2d_ms,pageable_d2h_ms,pinned_h2d_ms,pinned_d2h_ms,\
pageable_h2d_min_ms,pageable_d2h_min_ms,pinned_h2d_min_ms,pinned_d2h_min_ms,\
pageable_h2d_max_ms,pageable_d2h_max_ms,pinned_h2d_max_ms,pinned_d2h_max_ms"
    echo "4096,0.50,0.60,1.50,1.40,0.008192,0.006827,0.002731,0.002926,\
0.007900,0.006500,0.002700,0.002900,0.009100,0.007400,0.002800,0.003000"
    echo "65536,3.10,3.50,15.20,14.80,0.021141,0.018725,0.004312,0.004428,\
0.020500,0.018100,0.004300,0.004400,0.023900,0.020200,0.004400,0.004500"
    echo "1048576,9.80,8.90,45.10,44.00,0.106998,0.117817,0.023250,\
0.023831,0.101000,0.112000,0.023100,0.023700,0.121000,0.129000,0.023400,\
0.024000"
    echo "16777216,12.50,11.00,54.90,53.70,1.342177,1.525201,0.305596,\
0.312425,1.290000,1.480000,0.305000,0.312000,1.530000,1.700000,0.306000,\
0.313000"
} >"$dir/sweep.csv"

if ! make -s -C "$src" CHAPTERS=07_bandwidth BUILD="$dir/build" \
        GNUPLOT="$gnuplot" PLOT07_CSV="$dir/sweep.csv" \
        PLOT07_PNG="$dir/out/sweep.png" plot-07 >"$dir/log" 2>&1; then
    echo "make plot-07 failed:"; cat "$dir/log"
    exit 1
fi
png=$dir/out/sweep.png
if [ ! -f "$png" ]; then
    echo "make plot-07 wrote no $png:"; cat "$dir/log"
    exit 1
fi
# PNG signature (8 bytes), then the first chunk: length 13, type IHDR.
head=$(od -An -tx1 -N16 "$png" | tr -d ' \n')
if [ "$head" != "89504e470d0a1a0a0000000d49484452" ]; then
    echo "not a PNG: first 16 bytes are $head"
    exit 1
fi
# IHDR data: width and height, 4 bytes each, big-endian, neither zero.
big_endian='{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }'
width=$(od -An -tu1 -j16 -N4 "$png" | awk "$big_endian")
height=$(od -An -tu1 -j20 -N4 "$png" | awk "$big_endian")
if [ "$width" -eq 0 ] || [ "$height" -eq 0 ]; then
    echo "PNG of ${width}x${height} pixels"
    exit 1
fi
size=$(wc -c <"$png")
if [ "$size" -lt 5000 ]; then
    echo "PNG of only $size bytes: nothing plotted?"
    exit 1
fi
echo "plot-07: ${width}x${height} PNG of $size bytes"
