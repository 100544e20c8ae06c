/* chart.c - summary table, terminal bar chart and CSV of a bandwidth run. */
#include "chart.h"
#include "units.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *const bw_sweep_names[BW_SWEEP_CASES] = {
    "pageable H2D", "pageable D2H", "pinned H2D", "pinned D2H"};
static const char *const csv_names[BW_SWEEP_CASES] = {
    "pageable_h2d", "pageable_d2h", "pinned_h2d", "pinned_d2h"};

/* A growing string: appends never fail silently; after an allocation
 * failure the text is dropped and the result is NULL. */
typedef struct {
    char *text;
    size_t len, cap;
    int failed;
} strbuf;

static void sb_printf(strbuf *sb, const char *fmt, ...)
{
    if (sb->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0 || sb->len + (size_t)need + 1 > sb->cap) {
        size_t cap = 2 * (sb->len + (size_t)(need > 0 ? need : 0)) + 64;
        char *grown = need < 0 ? NULL : realloc(sb->text, cap);
        if (!grown) {
            free(sb->text);
            sb->text = NULL;
            sb->failed = 1;
            return;
        }
        sb->text = grown;
        sb->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(sb->text + sb->len, sb->cap - sb->len, fmt, ap);
    va_end(ap);
    sb->len += (size_t)need;
}

static char *sb_finish(strbuf *sb)
{
    if (!sb->failed && !sb->text)
        sb_printf(sb, "%s", "");
    return sb->text;
}

int bw_row_measured(const bw_row *row)
{
    return !isnan(row->ms);
}

static int max_len(const bw_row *rows, size_t n, size_t offset, int least)
{
    int width = least;
    for (size_t i = 0; i < n; i++) {
        int len = (int)strlen((const char *)&rows[i] + offset);
        width = len > width ? len : width;
    }
    return width;
}

char *bw_format_table(const bw_row *rows, size_t n)
{
    int lw = max_len(rows, n, offsetof(bw_row, label), 4);
    int cw = max_len(rows, n, offsetof(bw_row, counted), 13);
    strbuf sb = {0};
    sb_printf(&sb, "%-*s  %-*s  %10s  %8s\n", lw, "case", cw,
              "bytes counted", "median ms", "GB/s");
    sb_printf(&sb, "%.*s  %.*s  ----------  --------\n", lw,
              "----------------------------------------", cw,
              "----------------------------------------");
    for (size_t i = 0; i < n; i++) {
        if (!bw_row_measured(&rows[i]))
            sb_printf(&sb, "%-*s  %s\n", lw, rows[i].label, rows[i].counted);
        else
            sb_printf(&sb, "%-*s  %-*s  %10.3f  %8.2f\n", lw, rows[i].label,
                      cw, rows[i].counted, rows[i].ms, rows[i].gbps);
    }
    return sb_finish(&sb);
}

char *bw_format_bars(const bw_row *rows, size_t n, int width)
{
    int lw = max_len(rows, n, offsetof(bw_row, label), 0);
    width = width < 1 ? 1 : width > 100 ? 100 : width;  /* the '#'s below */
    double best = 0;
    for (size_t i = 0; i < n; i++)
        if (bw_row_measured(&rows[i]) && rows[i].gbps > best)
            best = rows[i].gbps;
    strbuf sb = {0};
    for (size_t i = 0; i < n; i++) {
        if (!bw_row_measured(&rows[i])) {
            sb_printf(&sb, "%-*s |%*s| %s\n", lw, rows[i].label, width, "",
                      rows[i].counted);
            continue;
        }
        int bar = 0;
        if (best > 0 && rows[i].gbps > 0) {
            bar = (int)lround(rows[i].gbps / best * width);
            bar = bar < 1 ? 1 : bar > width ? width : bar;
        }
        sb_printf(&sb, "%-*s |%.*s%*s| %7.2f GB/s\n", lw, rows[i].label, bar,
                  "##################################################"
                  "##################################################",
                  width - bar, "", rows[i].gbps);
    }
    return sb_finish(&sb);
}

char *bw_format_summary(const bw_row *rows, size_t n, int width)
{
    bw_row *one = malloc((n ? n : 1) * sizeof *one);
    bw_row *both = malloc((n ? n : 1) * sizeof *both);
    size_t n_one = 0, n_both = 0;
    for (size_t i = 0; one && both && i < n; i++) {
        if (rows[i].at_once)
            both[n_both++] = rows[i];
        else
            one[n_one++] = rows[i];
    }
    char *table = one ? bw_format_table(one, n_one) : NULL;
    char *bars = one ? bw_format_bars(one, n_one, width) : NULL;
    char *table2 = both && n_both ? bw_format_table(both, n_both) : NULL;
    strbuf sb = {0};
    if (!one || !both || !table || !bars || (n_both && !table2))
        sb.failed = 1;
    sb_printf(&sb, "one direction at a time: GB/s = the bytes copied / the "
              "time\n%s\n%s", table, bars);
    if (n_both)
        sb_printf(&sb, "\nat once: GB/s = (the bytes in + the bytes out) / "
                  "the time: two directions\nadded, not one link's rate, "
                  "not comparable with the rates above\n%s", table2);
    free(one);
    free(both);
    free(table);
    free(bars);
    free(table2);
    return sb_finish(&sb);
}

/* A CSV text field: quoted, with inner quotes doubled. */
static void csv_text(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

int bw_write_rows_csv(FILE *fp, const bw_row *rows, size_t n)
{
    fprintf(fp, "case,bytes_counted,median_ms,gb_per_s\n");
    for (size_t i = 0; i < n; i++) {
        csv_text(fp, rows[i].label);
        fputc(',', fp);
        csv_text(fp, rows[i].counted);
        if (bw_row_measured(&rows[i]))
            fprintf(fp, ",%.6f,%.4f\n", rows[i].ms, rows[i].gbps);
        else
            fprintf(fp, ",,\n");
    }
    return ferror(fp) ? -1 : 0;
}

double bw_sweep_spread(const bw_sweep_point *point, int which)
{
    if (!(point->min_ms[which] > 0))
        return NAN;
    return point->max_ms[which] / point->min_ms[which];
}

static int has_spread(int which)
{
    return which == BW_PAGEABLE_H2D || which == BW_PAGEABLE_D2H;
}

char *bw_format_sweep(const bw_sweep_point *points, size_t n)
{
    strbuf sb = {0};
    sb_printf(&sb, "%10s", "size");
    for (int c = 0; c < BW_SWEEP_CASES; c++) {
        sb_printf(&sb, "  %12s", bw_sweep_names[c]);
        if (has_spread(c))
            sb_printf(&sb, "  %6s", "spread");
    }
    sb_printf(&sb, "   (GB/s)\n");
    for (size_t i = 0; i < n; i++) {
        char size[32];
        sb_printf(&sb, "%10s",
                  cm_fmt_bytes_short(points[i].bytes, size, sizeof size));
        for (int c = 0; c < BW_SWEEP_CASES; c++) {
            sb_printf(&sb, "  %12.2f",
                      cm_gbps((double)points[i].bytes, points[i].ms[c]));
            if (!has_spread(c))
                continue;
            double spread = bw_sweep_spread(&points[i], c);
            if (isnan(spread))
                sb_printf(&sb, "  %6s", "-");
            else
                sb_printf(&sb, "  %5.2fx", spread);
        }
        sb_printf(&sb, "\n");
    }
    return sb_finish(&sb);
}

int bw_write_sweep_csv(FILE *fp, const bw_sweep_point *points, size_t n)
{
    fprintf(fp, "bytes");
    for (int c = 0; c < BW_SWEEP_CASES; c++)
        fprintf(fp, ",%s_gbps", csv_names[c]);
    for (int c = 0; c < BW_SWEEP_CASES; c++)
        fprintf(fp, ",%s_ms", csv_names[c]);
    for (int c = 0; c < BW_SWEEP_CASES; c++)
        fprintf(fp, ",%s_min_ms", csv_names[c]);
    for (int c = 0; c < BW_SWEEP_CASES; c++)
        fprintf(fp, ",%s_max_ms", csv_names[c]);
    fprintf(fp, "\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(fp, "%zu", points[i].bytes);
        for (int c = 0; c < BW_SWEEP_CASES; c++)
            fprintf(fp, ",%.4f",
                    cm_gbps((double)points[i].bytes, points[i].ms[c]));
        for (int c = 0; c < BW_SWEEP_CASES; c++)
            fprintf(fp, ",%.6f", points[i].ms[c]);
        for (int c = 0; c < BW_SWEEP_CASES; c++)
            fprintf(fp, ",%.6f", points[i].min_ms[c]);
        for (int c = 0; c < BW_SWEEP_CASES; c++)
            fprintf(fp, ",%.6f", points[i].max_ms[c]);
        fprintf(fp, "\n");
    }
    return ferror(fp) ? -1 : 0;
}

size_t bw_half_peak_bytes(const bw_sweep_point *points, size_t n, int which)
{
    double best = 0;
    for (size_t i = 0; i < n; i++) {
        double g = cm_gbps((double)points[i].bytes, points[i].ms[which]);
        best = g > best ? g : best;
    }
    for (size_t i = 0; i < n; i++)
        if (cm_gbps((double)points[i].bytes, points[i].ms[which]) >=
            best / 2)
            return points[i].bytes;
    return 0;
}
