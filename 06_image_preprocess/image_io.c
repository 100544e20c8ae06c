/* image_io.c - the chapter's loader: checked image loading (through
 * stb_impl.c's calls of stb_image) and PNG writing. */
#include "image_io.h"
#include "image_format.h"
#include "jpeg_walk.h"
#include "files.h"
#include "stb_image.h"
#include "stb_image_write.h"
#include "stb_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned char *io_read_file(const char *path, size_t *len, char *err,
                            size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, CM_PATH_FMT ": cannot open: %s",
                 CM_PATH_ARGS(path), strerror(errno));
        return NULL;
    }
    struct stat st;
    const char *why = NULL;
    if (fstat(fileno(f), &st) != 0)
        why = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        why = "is a folder, not an image file";
    else if (!S_ISREG(st.st_mode))
        why = "is not a regular file";
    else if (st.st_size == 0)
        why = "file is empty (0 bytes)";
    else if (st.st_size > INT_MAX)  /* stb_image counts bytes in an int */
        why = "file is larger than the 2 GiB stb_image can read";
    unsigned char *data = NULL;
    if (!why) {
        *len = (size_t)st.st_size;
        data = malloc(*len);
        if (!data)
            why = "not enough host memory to read it";
        else if (fread(data, 1, *len, f) != *len)
            why = ferror(f) ? "read error" : "file shrank while reading";
    }
    fclose(f);
    if (why) {
        snprintf(err, err_len, CM_PATH_FMT ": %s", CM_PATH_ARGS(path), why);
        free(data);
        return NULL;
    }
    return data;
}

/* The pixel cap, checked as soon as the header gives a size. */
static int over_cap(const char *path, const io_info *info, size_t max_pixels,
                    char *err, size_t err_len)
{
    if (info->width * info->height <= max_pixels)  /* each side < 2^32 */
        return 0;
    snprintf(err, err_len, CM_PATH_FMT ": header says %zu x %zu = %zu "
             "pixels, more than --max-pixels %zu", CM_PATH_ARGS(path),
             info->width, info->height,
             info->width * info->height, max_pixels);
    return -1;
}

/* The most stb_image may take in one allocation to decode a width x
 * height image from len bytes: twice its largest buffer, which holds 8
 * bytes a pixel (16-bit RGBA) with each side padded by 16 (JPEG pads to
 * 32, but at 2 bytes a pixel), or twice the file (a PNG's compressed data,
 * grown by doubling); and 1 MiB for the rest. No size (0 x 0): no pixel
 * buffer at all. */
static size_t decode_budget(size_t width, size_t height, size_t len)
{
    size_t padded = (width + 16) * (height + 16);  /* each side < 2^32 */
    if (padded > SIZE_MAX / 64 || len > SIZE_MAX / 64)
        return 0;  /* no limit: stb_image's own (2 GiB) applies */
    return 2 * (8 * (width && height ? padded : 0) + 2 * len) + (1 << 20);
}

/* At least past_end bytes, and exactly as many where a decoder asked for
 * them in one read (a row of pixels, all of them) or skipped them. */
static void say_truncated(const char *format, size_t len, size_t past_end,
                          char *why, size_t why_len)
{
    if (past_end > 1)
        snprintf(why, why_len, "truncated %s: the file ends at byte %zu, "
                 "the image at byte %zu or later", format, len,
                 len + past_end);
    else
        snprintf(why, why_len, "truncated %s: the file ends at byte %zu, "
                 "before the image does", format, len);
}

/* Why a header that stbi_info refused (sized 0) or read as 0 pixels is
 * no image: cut short, or the reason of its format's reader. stbi_info
 * tries every format and leaves the last one's "unknown image type";
 * loading runs only the reader whose test matched, which stops at the
 * same header check, and is given no memory for pixels, whatever size
 * the header claims. A file of under 4 bytes with no magic number that
 * runs out is too short to name a format. */
static void explain_header(const char *format, const unsigned char *data,
                           size_t len, int sized, int w, int h, char *why,
                           size_t why_len)
{
    int lw, lh, lc;
    size_t past_end;
    stbi_image_free(stb_load_gray_tracked(format, 8, data, len,
                                          decode_budget(0, 0, len), &lw,
                                          &lh, &lc, &past_end));
    const char *reason = stb_own_reason(format);
    if (reason && strcmp(reason, "outofmem") == 0)  /* got to the pixels */
        reason = strcmp(format, "TGA") != 0 ? "corrupt or unsupported"
                                            : NULL;
    if (past_end > 0 && (strcmp(format, "TGA") != 0 || len >= 4))
        say_truncated(format, len, past_end, why, why_len);
    else if (sized)
        snprintf(why, why_len, "%s header says %d x %d pixels: width and "
                 "height must be at least 1", format, w, h);
    else if (reason)
        snprintf(why, why_len, "cannot read the %s header: %s", format,
                 reason);
    else
        snprintf(why, why_len, "not an image stb_image can read (PNG, "
                 "JPEG, BMP, GIF, TGA, PSD, HDR, PIC, PGM/PPM): unknown "
                 "image type");
}

int io_probe(const char *path, const unsigned char *data, size_t len,
             size_t max_pixels, io_info *info, char *err, size_t err_len)
{
    memset(info, 0, sizeof *info);
    info->file_bytes = len;
    info->format = fmt_sniff(data, len);
    char why[256] = "";
    if (len == 0)
        snprintf(why, sizeof why, "file is empty (0 bytes)");
    else if (strcmp(info->format, "PNG") == 0)
        fmt_check_png(data, len, info, why, sizeof why);
    else if (strcmp(info->format, "JPEG") == 0)
        fmt_check_jpeg(data, len, info, why, sizeof why);
    else if (strcmp(info->format, "HDR") == 0)
        fmt_check_hdr(data, len, why, sizeof why);
    else if (strcmp(info->format, "PGM") == 0 ||
             strcmp(info->format, "PPM") == 0)
        fmt_check_pnm(data, len, info->format, why, sizeof why);
    if (!why[0] && over_cap(path, info, max_pixels, err, err_len) != 0)
        return -1;
    int w = 0, h = 0, comp = 0;
    int sized = !why[0] && stbi_info_from_memory(data, (int)len, &w, &h,
                                                 &comp);
    /* A BMP stored top row first says so with a negative height, which
     * stbi_info passes on; stb_image 2.27 decodes it upright, after
     * taking abs() of the height, which overflows for the lowest int. */
    if (sized && h < 0 && strcmp(info->format, "BMP") == 0) {
        if (h == INT_MIN)
            snprintf(why, sizeof why, "BMP header says a height of %d "
                     "pixels: too large to read", h);
        h = h == INT_MIN ? 0 : -h;
    }
    if (!why[0] && (!sized || w <= 0 || h <= 0))
        explain_header(info->format, data, len, sized, w, h, why,
                       sizeof why);
    if (why[0]) {
        snprintf(err, err_len, CM_PATH_FMT ": %s", CM_PATH_ARGS(path), why);
        return -1;
    }
    info->width = (size_t)w;
    info->height = (size_t)h;
    info->channels = comp;
    info->bits = stbi_is_16_bit_from_memory(data, (int)len) ? 16 : 8;
    /* Before stb_image allocates anything for the pixels. */
    return over_cap(path, info, max_pixels, err, err_len);
}

int io_decode_gray(const char *path, const unsigned char *data, size_t len,
                   size_t max_pixels, io_image *img, char *err,
                   size_t err_len)
{
    return io_decode(path, data, len, max_pixels, 1, img, err, err_len);
}

int io_decode(const char *path, const unsigned char *data, size_t len,
              size_t max_pixels, int channels, io_image *img, char *err,
              size_t err_len)
{
    memset(img, 0, sizeof *img);
    io_info info;
    if (io_probe(path, data, len, max_pixels, &info, err, err_len) != 0)
        return -1;
    /* Asking for 1 channel converts like IMREAD_GRAYSCALE: a (YCbCr)
     * JPEG gives its luma channel Y as it is, as OpenCV's does; other
     * colour images go to (77 r + 150 g + 29 b) >> 8, never above and
     * at most one level below OpenCV's rounded 0.299 r + 0.587 g +
     * 0.114 b; alpha is dropped, 16 bits become their top 8, palette
     * indices their colours first. */
    /* A JPEG's codes, walked as stb_image reads them, before it does:
     * only this finds what it would shift past its bit buffer or make
     * pixels of without decoding (jpeg_walk.h). */
    char why[256];
    if (strcmp(info.format, "JPEG") == 0 &&
        jpeg_walk_codes(data, len, max_pixels, why, sizeof why) != 0) {
        snprintf(err, err_len, CM_PATH_FMT ": %s", CM_PATH_ARGS(path), why);
        return -1;
    }
    int w, h, channels_in_file;
    size_t past_end;
    uint8_t *pixels = stb_load_tracked(
        info.format, info.bits, channels == 3 ? 3 : 1, data, len,
        decode_budget(info.width, info.height, len), &w, &h,
        &channels_in_file, &past_end);
    if (past_end > 0) {  /* whatever it decoded, part of it was made up */
        say_truncated(info.format, len, past_end, why, sizeof why);
        snprintf(err, err_len, CM_PATH_FMT ": %s", CM_PATH_ARGS(path), why);
        stbi_image_free(pixels);
        return -1;
    }
    if (!pixels) {
        const char *why = stb_own_reason(info.format);
        snprintf(err, err_len, CM_PATH_FMT ": cannot decode the %s data: %s",
                 CM_PATH_ARGS(path), info.format,
                 why ? why : "corrupt or unsupported data");
        return -1;
    }
    if ((size_t)w != info.width || (size_t)h != info.height) {
        snprintf(err, err_len, CM_PATH_FMT ": decoded %d x %d, header said "
                 "%zu x %zu", CM_PATH_ARGS(path), w, h, info.width,
                 info.height);
        stbi_image_free(pixels);
        return -1;
    }
    img->pixels = pixels;
    img->width = info.width;
    img->height = info.height;
    img->channels = channels == 3 ? 3 : 1;
    img->info = info;
    return 0;
}

int io_load_gray(const char *path, size_t max_pixels, io_image *img,
                 char *err, size_t err_len)
{
    memset(img, 0, sizeof *img);
    size_t len = 0;
    unsigned char *data = io_read_file(path, &len, err, err_len);
    if (!data)
        return -1;
    int rc = io_decode_gray(path, data, len, max_pixels, img, err, err_len);
    free(data);
    return rc;
}

void io_image_free(io_image *img)
{
    stbi_image_free(img->pixels);
    memset(img, 0, sizeof *img);
}

void io_describe(const io_info *info, char *buf, size_t len)
{
    static const char *const layout[5] = {"?", "gray", "gray+alpha", "RGB",
                                          "RGBA"};
    int c = info->channels >= 1 && info->channels <= 4 ? info->channels : 0;
    snprintf(buf, len, "%s, %d-bit %s", info->format, info->bits,
             info->palette ? "palette" : layout[c]);
}

int io_check_writable(const char *path, char *err, size_t err_len)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "cannot write " CM_PATH_FMT ": it is a "
                 "folder, not a file", CM_PATH_ARGS(path));
        return -1;
    }
    char folder[1024] = ".";
    const char *slash = strrchr(path, '/');
    if (slash) {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        if (n >= sizeof folder) {
            snprintf(err, err_len, "cannot write " CM_PATH_FMT ": path too "
                     "long", CM_PATH_ARGS(path));
            return -1;
        }
        memcpy(folder, path, n);
        folder[n] = '\0';
    }
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "cannot write " CM_PATH_FMT ": folder "
                 CM_PATH_FMT " does not exist", CM_PATH_ARGS(path),
                 CM_PATH_ARGS(folder));
        return -1;
    }
    if (access(folder, W_OK) != 0) {
        snprintf(err, err_len, "cannot write " CM_PATH_FMT ": folder "
                 CM_PATH_FMT " is not writable", CM_PATH_ARGS(path),
                 CM_PATH_ARGS(folder));
        return -1;
    }
    return 0;
}

static void write_to_file(void *fp, void *data, int size)
{
    fwrite(data, 1, (size_t)size, (FILE *)fp);  /* errors: at commit */
}

int io_write_png_gray(const char *path, const uint8_t *pixels, size_t width,
                      size_t height, char *err, size_t err_len)
{
    /* stb_image_write keeps the filtered image in one int-sized buffer. */
    if (width > INT_MAX || height > INT_MAX ||
        (width + 1) * height > INT_MAX) {
        snprintf(err, err_len, "cannot write " CM_PATH_FMT ": %zu x %zu is "
                 "more than stb_image_write's 2 GiB", CM_PATH_ARGS(path),
                 width, height);
        return -1;
    }
    cm_out_file f;
    if (cm_out_open(&f, path) != 0) {
        snprintf(err, err_len, "%s", f.error);
        return -1;
    }
    if (!stbi_write_png_to_func(write_to_file, f.fp, (int)width, (int)height,
                                1, pixels, (int)width)) {
        snprintf(err, err_len, "cannot write " CM_PATH_FMT ": PNG encoding "
                 "failed", CM_PATH_ARGS(path));
        cm_out_abort(&f);
        return -1;
    }
    if (cm_out_commit(&f) != 0) {
        snprintf(err, err_len, "%s", f.error);
        return -1;
    }
    return 0;
}
