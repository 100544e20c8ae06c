/* stb_impl.h - how the loader (image_io.c) calls stb_image: a limit on
 * each allocation it makes in this thread, so that a header it has not
 * yet checked cannot make it take gigabytes; a decode to gray that notes
 * every read past the file's end; stb_image's own reason for a failure.
 *
 *   stb_limit_allocation(64 << 20);   ...stbi_load...
 *   stb_limit_allocation(0);          no limit
 *   pixels = stb_load_gray_tracked("PNG", 8, data, len, budget, &w, &h,
 *                                  &channels, &past_end);
 *   rgb = stb_load_tracked("JPEG", 8, 3, data, len, budget, ...);
 *
 * A request over the limit fails as a full memory would: stb_image then
 * returns NULL, and its reason is "outofmem".
 */
#ifndef STB_IMPL_H
#define STB_IMPL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void stb_limit_allocation(size_t bytes);

/* Decodes data (len bytes of a file of `format`, as fmt_sniff names it,
 * with `bits` per sample) to 8-bit gray, w x h, through read callbacks,
 * with each allocation limited to budget bytes. Returns the pixels
 * (stbi_image_free them) or NULL; *past_end says how many bytes a
 * decoder asked for after the file's last one: more than 0, it is cut. */
uint8_t *stb_load_gray_tracked(const char *format, int bits,
                               const unsigned char *data, size_t len,
                               size_t budget, int *w, int *h, int *channels,
                               size_t *past_end);

/* The same to `want` 8-bit channels: 1 (gray, as above) or 3 (R, G, B
 * interleaved, as stb_image makes them: a gray file's level three times,
 * alpha dropped, 16 bits cut to their top 8). */
uint8_t *stb_load_tracked(const char *format, int bits, int want,
                          const unsigned char *data, size_t len,
                          size_t budget, int *w, int *h, int *channels,
                          size_t *past_end);

/* stb_image's reason for the last failure, if it is the reader of
 * `format`'s own, else NULL. */
const char *stb_own_reason(const char *format);

#ifdef __cplusplus
}
#endif

#endif /* STB_IMPL_H */
