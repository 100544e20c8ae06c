/* test_06_report.c - what imgbatch's limited by: line names
 * (batch/batch_report.c, report_limit), on the CPU, for one pass's
 * counts: each of its six verdicts at the times that call for it, and
 * its order where two would fit. The split's cases follow the shares
 * measured on an H100 with --hybrid-share (batch/NOTES.md): the main
 * thread 55% of the wall time inside nvjpegDecodeBatched with files
 * shared out is neither side alone, not nvJPEG's host work. */
#include "test.h"
#include "../06_image_preprocess/batch/batch_report.h"
#include "../06_image_preprocess/batch/split.h"

#include <stdio.h>
#include <string.h>

/* One case: a pass of wall 100 ms (the main thread's parts, nvJPEG's
 * host time and tail, the .npy's writing, files shared out by the
 * split), the readers' share, and the verdict wanted (with *most, or -1
 * where it does not matter). */
typedef struct {
    double wait_read, submit, wait_gpu, host, tail, write;
    size_t moved;
    int writing;
    double readers;
    limit_kind want;
    int most;
} limit_case;

static const limit_case CASES[] = {
    /* The engines alone, nvJPEG's host work 84% to 96% of the time. */
    {2, 90, 3, 88, 1, 0, 0, 0, 0.11, LIMIT_NVJPEG_HOST, -1},
    /* The same times with 500 files shared out: still the host work,
     * the main thread 80% or more inside the calls. */
    {2, 90, 3, 88, 1, 0, 500, 0, 0.45, LIMIT_NVJPEG_HOST, -1},
    /* Shared out, the main thread 55% inside the calls, the readers
     * about half busy: neither side alone; without the split the same
     * times are nvJPEG's host work. */
    {30, 60, 5, 55, 2, 0, 500, 0, 0.5, LIMIT_SPLIT_NEITHER, -1},
    {30, 60, 5, 55, 2, 0, 0, 0, 0.5, LIMIT_NVJPEG_HOST, -1},
    /* Shared out, both sides busy: the pair, before the readers alone. */
    {10, 60, 5, 55, 2, 0, 500, 0, 0.85, LIMIT_SPLIT_BOTH, -1},
    /* Shared out, the readers 82% busy, the main thread 30%: the
     * readers. */
    {50, 35, 5, 30, 2, 0, 1000, 0, 0.82, LIMIT_READERS, -1},
    /* No split: the readers, then the decoder, then the main thread's
     * largest part, with its index. */
    {70, 10, 5, 8, 1, 0, 0, 0, 0.9, LIMIT_READERS, -1},
    {5, 20, 60, 18, 30, 0, 0, 0, 0.2, LIMIT_DECODER, 2},
    {5, 44, 10, 30, 1, 0, 0, 0, 0.2, LIMIT_MAIN_PART, 1},
    /* Writing counts only when the tensor went to a .npy. */
    {5, 10, 5, 8, 1, 57, 0, 1, 0.2, LIMIT_MAIN_PART, 3},
    {5, 10, 5, 8, 1, 57, 0, 0, 0.2, LIMIT_MAIN_PART, 1},
};

int main(void)
{
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const limit_case *k = &CASES[i];
        pass_counts c;
        memset(&c, 0, sizeof c);
        c.wait_read_ms = k->wait_read;
        c.submit_ms = k->submit;
        c.wait_gpu_ms = k->wait_gpu;
        c.nj_host_ms = k->host;
        c.nj_tail_ms = k->tail;
        c.write_ms = k->write;
        c.nj_batches = 8;
        if (k->moved) {
            c.hybrid_why.why[0] = SPLIT_WHY;
            c.hybrid_why.count[0] = k->moved;
            c.hybrid_why.n = 1;
            c.hybrid = k->moved;
        }
        int most = -1;
        limit_kind got = report_limit(k->readers, &c, 100.0, k->writing,
                                      &most);
        if (got != k->want || (k->most >= 0 && most != k->most))
            fprintf(stderr, "case %zu: verdict %d (most %d), want %d "
                    "(most %d)\n", i, (int)got, most, (int)k->want,
                    k->most);
        EXPECT(got == k->want);
        EXPECT(k->most < 0 || most == k->most);
    }
    return test_summary();
}
