/* fuzz_format.c - libFuzzer target: the format sniff and the structure
 * checks (06_image_preprocess/image_format.c) on any bytes, as io_probe
 * calls them: fmt_sniff, then the check of the format it names; then,
 * for a JPEG that passes, the walk of its codes (jpeg_walk.c), as the
 * loader runs it before stb_image decodes; and the EXIF orientation
 * reader (batch/exif.c) on every input.
 *
 *   make fuzz                  builds $(BUILD)/fuzz/fuzz_format, runs it
 *   tests/test_06_fuzz.c       replays tests/fuzz/corpus/ and crashes/
 */
#include "../../06_image_preprocess/image_format.h"
#include "../../06_image_preprocess/jpeg_walk.h"
#include "../../06_image_preprocess/batch/exif.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int fuzz_format(const uint8_t *data, size_t size)
{
    io_info info;
    char why[256] = "";
    memset(&info, 0, sizeof info);
    const char *format = fmt_sniff(data, size);
    int rc = 0;
    if (strcmp(format, "PNG") == 0)
        rc = fmt_check_png(data, size, &info, why, sizeof why);
    else if (strcmp(format, "JPEG") == 0)
        rc = fmt_check_jpeg(data, size, &info, why, sizeof why);
    else if (strcmp(format, "HDR") == 0)
        rc = fmt_check_hdr(data, size, why, sizeof why);
    else if (strcmp(format, "PGM") == 0 || strcmp(format, "PPM") == 0)
        rc = fmt_check_pnm(data, size, format, why, sizeof why);
    /* A refusal always says why, on one line. */
    if (rc != 0 && (why[0] == '\0' || strchr(why, '\n')))
        abort();
    /* Any bytes: an EXIF orientation of 1 to 8. */
    int orientation = exif_orientation(data, size);
    if (orientation < 1 || orientation > 8)
        abort();
    /* A JPEG that passes: its codes walked, as the loader walks them
     * (at most 2^22 pixels, as fuzz_load's cap). */
    if (rc == 0 && strcmp(format, "JPEG") == 0 &&
        jpeg_walk_codes(data, size, (size_t)1 << 22, why, sizeof why) != 0 &&
        (why[0] == '\0' || strchr(why, '\n')))
        abort();
    return 0;
}

#ifndef FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_format(data, size);
}
#endif
