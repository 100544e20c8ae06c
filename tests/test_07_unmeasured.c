/* test_07_unmeasured.c - a case of 07_bandwidth that could not run here
 * (cudaMemcpyBatchAsync built with a CUDA before 12.8, or on an older
 * driver) shows its reason in the summary table, the bar chart and the
 * CSV, with no made-up number, and does not change the other rows. */
#include <math.h>

#include "../07_bandwidth/chart.h"
#include "test.h"

/* The CSV of n rows, as text (NULL if the temporary file failed). */
static char *rows_csv(const bw_row *rows, size_t n)
{
    FILE *f = tmpfile();
    if (!f)
        return NULL;
    char *text = NULL;
    long len;
    if (bw_write_rows_csv(f, rows, n) == 0 && (len = ftell(f)) >= 0 &&
        (text = malloc((size_t)len + 1)) != NULL) {
        rewind(f);
        if (fread(text, 1, (size_t)len, f) == (size_t)len) {
            text[len] = '\0';
        } else {
            free(text);
            text = NULL;
        }
    }
    fclose(f);
    return text;
}

int main(void)
{
    bw_row rows[3] = {
        {"small, 1 by 1, pinned", "8192000 B H2D", 2.633, 3.11, 0},
        {"small, BatchAsync, pinned", "needs CUDA 12.8", NAN, NAN, 0},
        {"small, packed, 1 copy", "8192000 B H2D", 0.154, 53.10, 0},
    };
    EXPECT(bw_row_measured(&rows[0]));
    EXPECT(!bw_row_measured(&rows[1]));

    /* The reason stands where the bytes counted would, with no numbers;
     * the measured rows keep their columns. */
    EXPECT_STR(bw_format_table(rows, 3),
        "case                       bytes counted     median ms      GB/s\n"
        "-------------------------  ---------------  ----------  --------\n"
        "small, 1 by 1, pinned      8192000 B H2D         2.633      3.11\n"
        "small, BatchAsync, pinned  needs CUDA 12.8\n"
        "small, packed, 1 copy      8192000 B H2D         0.154     53.10\n");

    /* An empty bar and the reason in place of the rate; the largest
     * measured rate still fills the bar. */
    EXPECT_STR(bw_format_bars(rows, 3, 10),
        "small, 1 by 1, pinned     |#         |    3.11 GB/s\n"
        "small, BatchAsync, pinned |          | needs CUDA 12.8\n"
        "small, packed, 1 copy     |##########|   53.10 GB/s\n");
    /* Only rows not measured: no bars at all, no division by zero. */
    EXPECT_STR(bw_format_bars(rows + 1, 1, 4),
        "small, BatchAsync, pinned |    | needs CUDA 12.8\n");

    /* CSV: the reason as text, the numbers empty (not "nan", not 0). */
    EXPECT_STR(rows_csv(rows, 3),
        "case,bytes_counted,median_ms,gb_per_s\n"
        "\"small, 1 by 1, pinned\",\"8192000 B H2D\",2.633000,3.1100\n"
        "\"small, BatchAsync, pinned\",\"needs CUDA 12.8\",,\n"
        "\"small, packed, 1 copy\",\"8192000 B H2D\",0.154000,53.1000\n");
    return test_summary();
}
