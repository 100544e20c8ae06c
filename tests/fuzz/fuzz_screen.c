/* fuzz_screen.c - libFuzzer target: imgbatch's JPEG screen
 * (06_image_preprocess/batch/jpeg_screen.c) on any bytes: js_screen, then
 * js_hybrid_ok for a file it sends away, as decoder.cu calls them. The
 * programs screen only files io_probe passed; the screen is a pure walk
 * of bytes, so it is given every input.
 *
 *   make fuzz                  builds $(BUILD)/fuzz/fuzz_screen, runs it
 *   tests/test_06_fuzz.c       replays tests/fuzz/corpus/ and crashes/
 */
#include "../../06_image_preprocess/batch/jpeg_screen.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int fuzz_screen(const uint8_t *data, size_t size)
{
    js_header h;
    const char *why = js_screen(data, size, &h);
    /* Taken by the hardware decoder: a header it can decode. */
    if (!why && (h.precision != 8 || h.width == 0 || h.height == 0 ||
                 (h.components != 1 && h.components != 3)))
        abort();
    if (why && why[0] == '\0')
        abort();
    if (why)
        (void)js_hybrid_ok(data, size);
    return 0;
}

#ifndef FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_screen(data, size);
}
#endif
