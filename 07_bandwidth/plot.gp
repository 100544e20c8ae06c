# plot.gp - the --sweep CSV of 07_bandwidth as a PNG: GB/s against copy
# size, pageable and pinned, both directions. Run by `make plot-07`:
#   gnuplot -e "csv='sweep.csv'; png='sweep.png'" 07_bandwidth/plot.gp
if (!exists("csv") || !exists("png")) {
    print "usage: gnuplot -e \"csv='IN.csv'; png='OUT.png'\" plot.gp"
    exit status 2
}
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 960,600 font ",11"
} else {
    set terminal png size 960,600
}
set output png
set datafile separator comma
set key top left autotitle columnheader
set title "Host-GPU copy rate against copy size (median of repeats)"
set xlabel "bytes per copy"
set ylabel "GB/s (1e9 bytes/s)"
set logscale x 2
set format x "%.0b %BB"
set grid
set yrange [0:*]
plot csv using 1:2 with linespoints title "pageable H2D", \
     ''  using 1:3 with linespoints title "pageable D2H", \
     ''  using 1:4 with linespoints title "pinned H2D", \
     ''  using 1:5 with linespoints title "pinned D2H"
