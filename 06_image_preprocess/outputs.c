/* outputs.c - PNG, .npy and CSV files of a single-image run. */
#include "outputs.h"
#include "alloc.h"
#include "cli.h"
#include "files.h"
#include "image_io.h"
#include "npy.h"
#include "reference.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>

void save_outputs(const char *png_path, const char *npy_path,
                  const float *h_out, const uint8_t *h_gray, size_t width,
                  size_t height, cm_verdict *v)
{
    char err[1280];
    size_t n = width * height;
    if (!png_path && !npy_path) {
        printf("outputs: none written (use --out-png FILE, --out-npy "
               "FILE)\n");
        return;
    }
    if (v->failures > 0) {
        printf("outputs: not written, the result failed its checks\n");
        return;
    }
    if (png_path) {
        uint8_t *h_png = cm_host_alloc(n, "the PNG pixels");
        uint8_t *h_flipped = cm_host_alloc(n, "the flipped input");
        ref_to_u8(h_png, h_out, n);
        ref_flip_u8(h_flipped, h_gray, width, height);
        if (cm_check_equal(v, "PNG pixels vs flipped input", h_png,
                           h_flipped, CM_UINT8, n) &&
            io_write_png_gray(png_path, h_png, width, height, err,
                              sizeof err) != 0)
            cm_fail("%s", err);
        if (v->failures == 0)
            printf("wrote %s (8-bit gray PNG, %zu x %zu)\n", png_path,
                   width, height);
        free(h_png);
        free(h_flipped);
    }
    size_t shape[2] = {height, width};
    if (npy_path && v->failures == 0) {
        if (npy_save_f32(npy_path, h_out, shape, 2, err, sizeof err) != 0)
            cm_fail("%s", err);
        printf("wrote %s (float32, shape (%zu, %zu))\n", npy_path, height,
               width);
    }
}

void save_csv(const char *path, const timing_row *rows, int n_rows,
              const cm_verdict *v)
{
    cm_out_file f;
    FILE *csv = cm_csv_open(&f, path, "step,bytes,ms_median,ms_min,ms_max,"
                            "gb_per_s");
    if (!csv)
        return;
    for (int i = 0; i < n_rows; i++) {
        const cm_stats *s = &rows[i].stats;
        fprintf(csv, "%s,%.0f,%.6f,%.6f,%.6f,%.3f\n", rows[i].step,
                rows[i].bytes, s->median_ms, s->min_ms, s->max_ms,
                cm_gbps(rows[i].bytes, s->median_ms));
    }
    cm_csv_finish(&f, v);
}
