/* fuzz_head.c - libFuzzer target: what imgbatch_open takes from a file's
 * first bytes (06_image_preprocess/batch/batch_head.c, head_parse) on
 * any bytes. What it takes must be a size stb_image can have, an EXIF
 * orientation of 1 to 8, and, where the whole-file check (io_probe)
 * passes the same bytes, the size that check reads: the open's header
 * and the pipeline's whole-file check never disagree on a good file.
 *
 *   make fuzz                  builds $(BUILD)/fuzz/fuzz_head, runs it
 *   tests/test_06_fuzz.c       replays tests/fuzz/corpus/ and crashes/
 */
#include "../../06_image_preprocess/batch/batch_head.h"
#include "../../06_image_preprocess/image_io.h"

#include <stdint.h>
#include <stdlib.h>

int fuzz_head(const uint8_t *data, size_t size)
{
    head_result h;
    io_info info;
    char err[1300];
    if (!head_parse(data, size, IO_DEFAULT_MAX_PIXELS, 1, &h))
        return 0;
    if (h.width == 0 || h.height == 0 || h.width > ((size_t)1 << 24) ||
        h.height > ((size_t)1 << 24) || h.orientation < 1 ||
        h.orientation > 8)
        abort();
    if (io_probe("fuzz", data, size, IO_DEFAULT_MAX_PIXELS, &info, err,
                 sizeof err) == 0 &&
        (info.width != h.width || info.height != h.height))
        abort();
    return 0;
}

#ifndef FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_head(data, size);
}
#endif
