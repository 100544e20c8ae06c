/* test_06_report.c - what imgbatch's limited by: line names
 * (batch/batch_report.c, report_limit), on the CPU, for one pass's
 * counts: each of its six verdicts at the times that call for it, and
 * its order where two would fit. The split's cases are times measured
 * on an H100 with --hybrid-share (batch/NOTES.md): the main thread 55%
 * of the wall time inside nvjpegDecodeBatched with files shared out is
 * neither side alone, not nvJPEG's host work. */
#include "test.h"
#include "../06_image_preprocess/batch/batch_report.h"
#include "../06_image_preprocess/batch/split.h"

#include <string.h>

/* A pass of wall 100 ms: the main thread's parts, nvJPEG's host time
 * and tail, and `moved` files shared out by the split. */
static pass_counts pass(double wait_read, double submit, double wait_gpu,
                        double host, double tail, size_t moved)
{
    pass_counts c;
    memset(&c, 0, sizeof c);
    c.wait_read_ms = wait_read;
    c.submit_ms = submit;
    c.wait_gpu_ms = wait_gpu;
    c.nj_host_ms = host;
    c.nj_tail_ms = tail;
    c.nj_batches = 8;
    if (moved) {
        c.hybrid_why.why[0] = SPLIT_WHY;
        c.hybrid_why.count[0] = moved;
        c.hybrid_why.n = 1;
        c.hybrid = moved;
    }
    return c;
}

static limit_kind verdict(double readers, const pass_counts *c, int *most)
{
    return report_limit(readers, c, 100.0, 0, most);
}

int main(void)
{
    int most = -1;
    /* The engines alone, nvJPEG's host work 84% to 96% of the time. */
    pass_counts c = pass(2, 90, 3, 88, 1, 0);
    EXPECT(verdict(0.11, &c, &most) == LIMIT_NVJPEG_HOST);
    /* The same times with 500 files shared out: still the host work,
     * the main thread 80% or more inside the calls. */
    c = pass(2, 90, 3, 88, 1, 500);
    EXPECT(verdict(0.45, &c, &most) == LIMIT_NVJPEG_HOST);
    /* Shared out, the main thread 55% inside the calls, the readers
     * about half busy: neither side alone. */
    c = pass(30, 60, 5, 55, 2, 500);
    EXPECT(verdict(0.5, &c, &most) == LIMIT_SPLIT_NEITHER);
    /* Without the split the same times are nvJPEG's host work. */
    c = pass(30, 60, 5, 55, 2, 0);
    EXPECT(verdict(0.5, &c, &most) == LIMIT_NVJPEG_HOST);
    /* Shared out, both sides busy: the pair, before the readers alone. */
    c = pass(10, 60, 5, 55, 2, 500);
    EXPECT(verdict(0.85, &c, &most) == LIMIT_SPLIT_BOTH);
    /* Shared out, the readers 82% busy, the main thread 30%: the
     * readers. */
    c = pass(50, 35, 5, 30, 2, 1000);
    EXPECT(verdict(0.82, &c, &most) == LIMIT_READERS);
    /* No split: the readers, then the decoder, then the main thread's
     * largest part, with its index. */
    c = pass(70, 10, 5, 8, 1, 0);
    EXPECT(verdict(0.9, &c, &most) == LIMIT_READERS);
    c = pass(5, 20, 60, 18, 30, 0);
    EXPECT(verdict(0.2, &c, &most) == LIMIT_DECODER);
    EXPECT(most == 2);
    c = pass(5, 44, 10, 30, 1, 0);
    EXPECT(verdict(0.2, &c, &most) == LIMIT_MAIN_PART);
    EXPECT(most == 1);
    /* Writing counts only when the tensor went to a .npy. */
    c = pass(5, 10, 5, 8, 1, 0);
    c.write_ms = 57;
    EXPECT(report_limit(0.2, &c, 100.0, 1, &most) == LIMIT_MAIN_PART);
    EXPECT(most == 3);
    EXPECT(report_limit(0.2, &c, 100.0, 0, &most) == LIMIT_MAIN_PART);
    EXPECT(most == 1);
    return test_summary();
}
