/* test_07_chart.c - the summary table, the terminal bar chart and the CSV
 * files of 07_bandwidth, character for character. */
#include "../07_bandwidth/chart.h"
#include "test.h"

#include <math.h>

/* Writes through fn into a temporary file and returns its text. */
static char *captured(int (*fn)(FILE *, const void *, size_t),
                      const void *data, size_t n)
{
    FILE *f = tmpfile();
    if (!f)
        return NULL;
    if (fn(f, data, n) != 0) {
        fclose(f);
        return NULL;
    }
    long len = ftell(f);
    char *text = malloc((size_t)len + 1);
    rewind(f);
    if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
        free(text);
        fclose(f);
        return NULL;
    }
    text[len] = '\0';
    fclose(f);
    return text;
}

static int rows_csv(FILE *f, const void *data, size_t n)
{
    return bw_write_rows_csv(f, (const bw_row *)data, n);
}

static int sweep_csv(FILE *f, const void *data, size_t n)
{
    return bw_write_sweep_csv(f, (const bw_sweep_point *)data, n);
}

int main(void)
{
    bw_row rows[3] = {
        {"pageable H2D, tutorial way", "800000000 B H2D", 1234.5678, 0.648, 0},
        {"pinned H2D", "800000000 B H2D", 14.6, 54.79, 0},
        {"H2D + D2H at \"once\"", "1600000000 B H2D+D2H", 29.9, 107.0, 1},
    };

    /* Columns as wide as their longest entry (or heading). */
    EXPECT_STR(bw_format_table(rows, 3),
    "case                        bytes counted          median ms      GB/s\n"
    "--------------------------  --------------------  ----------  --------\n"
    "pageable H2D, tutorial way  800000000 B H2D         1234.568      0.65\n"
    "pinned H2D                  800000000 B H2D           14.600     54.79\n"
    "H2D + D2H at \"once\"         1600000000 B H2D+D2H      29.900"
    "    107.00\n");
    EXPECT_STR(bw_format_table(rows, 0),
        "case  bytes counted   median ms      GB/s\n"
        "----  -------------  ----------  --------\n");

    /* Bars scale to the largest rate; a small positive rate still shows
     * one '#', and zero shows none. */
    EXPECT_STR(bw_format_bars(rows, 3, 20),
        "pageable H2D, tutorial way |#                   |    0.65 GB/s\n"
        "pinned H2D                 |##########          |   54.79 GB/s\n"
        "H2D + D2H at \"once\"        |####################|  107.00 GB/s\n");
    /* The summary keeps a rate that adds two directions apart from the
     * one-direction rates: they get the table and the bars, the at-once
     * row a table of its own under its own heading, and no bar. */
    EXPECT_STR(bw_format_summary(rows, 3, 10),
        "one direction at a time: GB/s = the bytes copied / the time\n"
        "case                        bytes counted     median ms      GB/s\n"
        "--------------------------  ---------------  ----------  --------\n"
        "pageable H2D, tutorial way  800000000 B H2D    1234.568      0.65\n"
        "pinned H2D                  800000000 B H2D      14.600     54.79\n"
        "\n"
        "pageable H2D, tutorial way |#         |    0.65 GB/s\n"
        "pinned H2D                 |##########|   54.79 GB/s\n"
        "\n"
        "at once: GB/s = (the bytes in + the bytes out) / the time: two "
        "directions\nadded, not one link's rate, not comparable with the "
        "rates above\n"
        "case                 bytes counted          median ms      GB/s\n"
        "-------------------  --------------------  ----------  --------\n"
        "H2D + D2H at \"once\"  1600000000 B H2D+D2H      29.900    107.00\n");
    /* Without an at-once row, no second heading. */
    EXPECT_STR(bw_format_summary(rows, 2, 10),
        "one direction at a time: GB/s = the bytes copied / the time\n"
        "case                        bytes counted     median ms      GB/s\n"
        "--------------------------  ---------------  ----------  --------\n"
        "pageable H2D, tutorial way  800000000 B H2D    1234.568      0.65\n"
        "pinned H2D                  800000000 B H2D      14.600     54.79\n"
        "\n"
        "pageable H2D, tutorial way |#         |    0.65 GB/s\n"
        "pinned H2D                 |##########|   54.79 GB/s\n");
    bw_row zero[2] = {{"none", "0 B H2D", 1.0, 0.0, 0},
                      {"half", "8 B H2D", 1.0, 2.0, 0}};
    EXPECT_STR(bw_format_bars(zero, 2, 4),
        "none |    |    0.00 GB/s\n"
        "half |####|    2.00 GB/s\n");
    zero[1].gbps = 0;
    EXPECT_STR(bw_format_bars(zero, 2, 4),
        "none |    |    0.00 GB/s\n"
        "half |    |    0.00 GB/s\n");
    /* Rounding to the nearest character: 1.25 of 4 is 1, 1.5 rounds up. */
    bw_row third[3] = {{"a", "", 1, 4.0, 0}, {"b", "", 1, 1.25, 0},
                       {"c", "", 1, 1.5, 0}};
    EXPECT_STR(bw_format_bars(third, 3, 4),
        "a |####|    4.00 GB/s\n"
        "b |#   |    1.25 GB/s\n"
        "c |##  |    1.50 GB/s\n");

    /* CSV: text quoted, inner quotes doubled. */
    EXPECT_STR(captured(rows_csv, rows, 3),
        "case,bytes_counted,median_ms,gb_per_s\n"
        "\"pageable H2D, tutorial way\",\"800000000 B H2D\",1234.567800,"
        "0.6480\n"
        "\"pinned H2D\",\"800000000 B H2D\",14.600000,54.7900\n"
        "\"H2D + D2H at \"\"once\"\"\",\"1600000000 B H2D+D2H\",29.900000,"
        "107.0000\n");

    /* The sweep: GB/s = bytes / ms / 1e6 of the median; the spread of
     * each pageable case is its slowest over its fastest run, "-" where
     * the runs are not known. */
    bw_sweep_point points[3] = {
        {4096, {0.008, 0.007, 0.0027, 0.0029},
         {0.008, 0.0056, 0.0025, 0.0029}, {0.0092, 0.007, 0.003, 0.0029}},
        {1 << 20, {0.1, 0.12, 0.023, 0.024}, {0.1, 0.12, 0.023, 0.024},
         {0.1, 0.12, 0.023, 0.024}},
        {1 << 30, {90, 100, 19.6, 20}, {0, 0, 0, 0}, {0, 0, 0, 0}},
    };
    EXPECT(fabs(bw_sweep_spread(&points[0], BW_PAGEABLE_H2D) - 1.15) < 1e-12);
    EXPECT(fabs(bw_sweep_spread(&points[0], BW_PAGEABLE_D2H) - 1.25) < 1e-12);
    EXPECT(fabs(bw_sweep_spread(&points[0], BW_PINNED_H2D) - 1.2) < 1e-12);
    EXPECT(bw_sweep_spread(&points[1], BW_PINNED_D2H) == 1.0);
    EXPECT(isnan(bw_sweep_spread(&points[2], BW_PAGEABLE_H2D)));
    bw_sweep_point negative = {8, {1, 1, 1, 1}, {-1, 1, 1, 1}, {1, 1, 1, 1}};
    EXPECT(isnan(bw_sweep_spread(&negative, BW_PAGEABLE_H2D)));
    EXPECT_STR(bw_format_sweep(points, 3),
        "      size  pageable H2D  spread  pageable D2H  spread"
        "    pinned H2D    pinned D2H   (GB/s)\n"
        "     4 KiB          0.51   1.15x          0.59   1.25x"
        "          1.52          1.41\n"
        "     1 MiB         10.49   1.00x          8.74   1.00x"
        "         45.59         43.69\n"
        "     1 GiB         11.93       -         10.74       -"
        "         54.78         53.69\n");
    EXPECT_STR(bw_format_sweep(points, 0),
        "      size  pageable H2D  spread  pageable D2H  spread"
        "    pinned H2D    pinned D2H   (GB/s)\n");
    /* The CSV keeps its first nine columns (plot.gp reads them) and adds
     * each case's fastest and slowest run. */
    EXPECT_STR(captured(sweep_csv, points, 2),
        "bytes,pageable_h2d_gbps,pageable_d2h_gbps,pinned_h2d_gbps,"
        "pinned_d2h_gbps,pageable_h2d_ms,pageable_d2h_ms,pinned_h2d_ms,"
        "pinned_d2h_ms,pageable_h2d_min_ms,pageable_d2h_min_ms,"
        "pinned_h2d_min_ms,pinned_d2h_min_ms,pageable_h2d_max_ms,"
        "pageable_d2h_max_ms,pinned_h2d_max_ms,pinned_d2h_max_ms\n"
        "4096,0.5120,0.5851,1.5170,1.4124,0.008000,0.007000,0.002700,"
        "0.002900,0.008000,0.005600,0.002500,0.002900,0.009200,0.007000,"
        "0.003000,0.002900\n"
        "1048576,10.4858,8.7381,45.5903,43.6907,0.100000,0.120000,0.023000,"
        "0.024000,0.100000,0.120000,0.023000,0.024000,0.100000,0.120000,"
        "0.023000,0.024000\n");

    /* Half of the best pinned H2D rate (54.78 / 2) is first reached at
     * 1 MiB; pageable H2D's best is 11.93, half 5.97: also 1 MiB. */
    EXPECT(bw_half_peak_bytes(points, 3, BW_PINNED_H2D) == 1 << 20);
    EXPECT(bw_half_peak_bytes(points, 3, BW_PAGEABLE_H2D) == 1 << 20);
    EXPECT(bw_half_peak_bytes(points, 1, BW_PINNED_D2H) == 4096);
    EXPECT(bw_half_peak_bytes(points, 0, BW_PINNED_D2H) == 0);
    return test_summary();
}
