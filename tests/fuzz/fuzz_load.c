/* fuzz_load.c - libFuzzer target: the chapter's checked loader over
 * stb_image (06_image_preprocess/image_io.c) on any bytes, as the lab and
 * imgbatch's reader threads call it: io_decode, which probes (sniff,
 * structure check, stbi_info, pixel cap) and then has stb_image decode,
 * to gray and to R, G, B. The pixel cap is 2^22, not the programs'
 * default 2^28, so that a header of a large size decodes in the
 * fuzzer's time and memory limits; the code path is the same.
 *
 *   make fuzz                  builds $(BUILD)/fuzz/fuzz_load, runs it
 *   tests/test_06_fuzz.c       replays tests/fuzz/corpus/ and crashes/
 */
#include "../../06_image_preprocess/image_io.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_PIXELS ((size_t)1 << 22)

int fuzz_load(const uint8_t *data, size_t size)
{
    for (int channels = 1; channels <= 3; channels += 2) {
        io_image img;
        char err[512] = "";
        int rc = io_decode("fuzz", data, size, FUZZ_MAX_PIXELS, channels,
                           &img, err, sizeof err);
        /* Refused: one line naming the file. Accepted: every pixel is
         * there to read. */
        if (rc != 0 && (strncmp(err, "fuzz: ", 6) != 0 ||
                        strchr(err, '\n') || img.pixels))
            abort();
        if (rc == 0) {
            size_t n = img.width * img.height * (size_t)img.channels;
            volatile unsigned sum = 0;  /* ASan sees a short buffer */
            for (size_t i = 0; i < n; i++)
                sum += img.pixels[i];
            (void)sum;
            if (img.width == 0 || img.height == 0 || img.channels != channels)
                abort();
            io_image_free(&img);
        }
    }
    return 0;
}

#ifndef FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_load(data, size);
}
#endif
