/* chart.h - the summary of a bandwidth run as a table, a terminal bar
 * chart and CSV; plain C, so the CPU tests check every character.
 *
 *   bw_row rows[2] = {
 *       {.label = "pinned H2D", .counted = "800000000 B H2D", .ms = 14.6,
 *        .gbps = 54.79},
 *       {.label = "H2D + D2H at once", .counted = "1600000000 B H2D+D2H",
 *        .ms = 15.8, .gbps = 101.3, .at_once = 1}};
 *   char *text = bw_format_summary(rows, 2, 40);  fputs(text, stdout);
 *   free(text);
 * Every bw_format_* returns a malloc'd string (NULL if out of memory).
 */
#ifndef BW_CHART_H
#define BW_CHART_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One case of the summary. A case that could not run here (an API this
 * build or driver lacks) has ms and gbps NaN, and `counted` says why. */
typedef struct {
    char label[40];     /* "pinned H2D" */
    char counted[40];   /* the bytes the rate counts: "800000000 B H2D";
                           or why the case was not measured */
    double ms;          /* median time of one repetition */
    double gbps;        /* counted bytes / time, GB/s = 1e9 bytes/s */
    int at_once;        /* 1: both directions, or copies and compute, at
                           once; its GB/s adds the bytes in and out, so it
                           is no one link's rate */
} bw_row;

/* 1 if the row holds a measurement, 0 if it says why there is none. */
int bw_row_measured(const bw_row *row);

/* Columns: case, bytes counted, median ms, GB/s, under a header and a
 * rule; widths fit the longest entry. A row not measured shows its
 * reason in place of the bytes counted, and no numbers. */
char *bw_format_table(const bw_row *rows, size_t n);

/* One bar per row, `width` characters for the largest GB/s; a positive
 * rate always gets at least one '#', so no case looks like zero. A row
 * not measured gets an empty bar and its reason in place of the rate. */
char *bw_format_bars(const bw_row *rows, size_t n, int width);

/* The summary: the one-direction rows as a table and a bar chart, then
 * under a heading of their own the rows with at_once set, as a table: a
 * rate that adds two directions does not stand beside one that does not.
 * The bars are `width` characters for the largest one-direction rate. */
char *bw_format_summary(const bw_row *rows, size_t n, int width);

/* "case,bytes_counted,median_ms,gb_per_s" then one line per row, text
 * fields quoted; a row not measured has its reason as bytes_counted and
 * empty numbers. Returns 0, or -1 if a write failed. */
int bw_write_rows_csv(FILE *fp, const bw_row *rows, size_t n);

/* The four cases of --sweep, in column order. */
enum { BW_PAGEABLE_H2D, BW_PAGEABLE_D2H, BW_PINNED_H2D, BW_PINNED_D2H,
       BW_SWEEP_CASES };
extern const char *const bw_sweep_names[BW_SWEEP_CASES];

/* One size of the sweep: median, fastest and slowest time of the timed
 * runs of each case, in ms, one direction each (0 where not measured). */
typedef struct {
    size_t bytes;
    double ms[BW_SWEEP_CASES];
    double min_ms[BW_SWEEP_CASES], max_ms[BW_SWEEP_CASES];
} bw_sweep_point;

/* The spread of case `which` at one size: slowest / fastest run (1.00
 * when every run took as long); NaN when the fastest time is not > 0. */
double bw_sweep_spread(const bw_sweep_point *point, int which);

/* A size column (binary units) and one GB/s column (of the median) per
 * case; after each pageable case, its spread ("1.07x", or "-" when
 * bw_sweep_spread is NaN). */
char *bw_format_sweep(const bw_sweep_point *points, size_t n);

/* "bytes,<case>_gbps x4,<case>_ms x4" (medians), then "<case>_min_ms x4,
 * <case>_max_ms x4", one line per size. Returns 0, or -1 if a write
 * failed. */
int bw_write_sweep_csv(FILE *fp, const bw_sweep_point *points, size_t n);

/* The smallest size at which `which` reaches half of its best GB/s in the
 * sweep: below it the fixed cost per copy dominates. 0 if n is 0. */
size_t bw_half_peak_bytes(const bw_sweep_point *points, size_t n,
                          int which);

#ifdef __cplusplus
}
#endif

#endif /* BW_CHART_H */
