/* test_06_reference.c - the CPU reference and image helpers of
 * 06_image_preprocess: exact x / 255.0f, the flip, the way back to 8 bits,
 * the built-in image and "WxH" parsing (the batch tool's resize has its
 * own reference, batch/transform_ref.c, and test, test_06_transform.c).
 */
#include "test.h"
#include "../06_image_preprocess/reference.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

int main(void)
{
    /* A 3 x 2 image: each row reversed, each value divided by 255. */
    const uint8_t in[6] = {0, 51, 255, 1, 2, 3};
    float out[6];
    ref_normalize_flip(out, in, 3, 2);
    EXPECT(out[0] == 1.0f && out[1] == 0.2f && out[2] == 0.0f);
    EXPECT(out[3] == 3 / 255.0f && out[4] == 2 / 255.0f &&
           out[5] == 1 / 255.0f);

    /* Every 8-bit value: x / 255.0f is the float nearest the exact
     * quotient (correct rounding), so a GPU dividing the IEEE way must
     * give the same bits. Multiplying by 1 / 255.0f is not the same. */
    int multiply_differs = 0;
    for (int v = 0; v < 256; v++) {
        uint8_t pixel = (uint8_t)v;
        float f;
        ref_normalize_flip(&f, &pixel, 1, 1);
        double exact = v / 255.0;
        double err = fabs((double)f - exact);
        EXPECT(err <= fabs((double)nextafterf(f, 2.0f) - exact));
        EXPECT(err <= fabs((double)nextafterf(f, -1.0f) - exact));
        volatile float reciprocal = 1.0f / 255.0f;
        if ((float)v * reciprocal != f)
            multiply_differs++;
        uint8_t back;
        ref_to_u8(&back, &f, 1);  /* the PNG path gives v back */
        EXPECT(back == pixel);
    }
    EXPECT(multiply_differs == 126);

    /* ref_to_u8 clamps what cannot come from an 8-bit image. */
    const float odd[4] = {-0.5f, 2.0f, 0.5f, NAN};
    uint8_t clamped[4];
    ref_to_u8(clamped, odd, 3);
    EXPECT(clamped[0] == 0 && clamped[1] == 255 && clamped[2] == 128);

    uint8_t flipped[6];
    ref_flip_u8(flipped, in, 3, 2);
    EXPECT(memcmp(flipped, (const uint8_t[]){255, 51, 0, 3, 2, 1}, 6) == 0);

    /* The built-in image: deterministic, every gray level in a row of 641,
     * and not symmetric, so a missing flip shows. */
    static uint8_t a[641 * 3], b[641 * 3];
    ref_synthetic(a, 641, 3);
    ref_synthetic(b, 641, 3);
    EXPECT(memcmp(a, b, sizeof a) == 0);
    int seen[256] = {0}, levels = 0;
    for (int x = 0; x < 641; x++)
        seen[a[x]] = 1;
    for (int v = 0; v < 256; v++)
        levels += seen[v];
    EXPECT(levels == 256);
    EXPECT(a[0] != a[640]);
    uint8_t one;
    ref_synthetic(&one, 1, 1);
    EXPECT(one == 0);

    /* "WxH". */
    size_t w = 0, h = 0;
    EXPECT(ref_parse_dims("640x480", &w, &h) == 0 && w == 640 && h == 480);
    EXPECT(ref_parse_dims("1X7", &w, &h) == 0 && w == 1 && h == 7);
    EXPECT(ref_parse_dims("16777216x1", &w, &h) == 0);
    const char *bad[] = {"", "640", "640x", "x480", "0x5", "5x0", "-1x3",
                         " 5x5", "5x5x", "5x5 ", "16777217x1", "axb",
                         "99999999999999999999x1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        EXPECT(ref_parse_dims(bad[i], &w, &h) == -1);
    return test_summary();
}
