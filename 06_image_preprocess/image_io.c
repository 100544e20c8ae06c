/* image_io.c - checked image loading (stb_image) and PNG writing. */
#include "image_io.h"
#include "image_format.h"
#include "files.h"
#include "stb_image.h"
#include "stb_image_write.h"

#include <errno.h>
#include <limits.h>
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
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    const char *why = NULL;
    if (fstat(fileno(f), &st) != 0)
        why = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        why = "is a directory, not an image file";
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
        snprintf(err, err_len, "%s: %s", path, why);
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
    snprintf(err, err_len, "%s: header says %zu x %zu = %zu pixels, more "
             "than --max-pixels %zu", path, info->width, info->height,
             info->width * info->height, max_pixels);
    return -1;
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
    if (!why[0] && over_cap(path, info, max_pixels, err, err_len) != 0)
        return -1;
    int w = 0, h = 0, comp = 0;
    if (!why[0] && !stbi_info_from_memory(data, (int)len, &w, &h, &comp))
        snprintf(why, sizeof why, "not an image stb_image can read "
                 "(PNG, JPEG, BMP, GIF, TGA, PSD, HDR, PIC, PGM/PPM): %s",
                 stbi_failure_reason());
    if (why[0]) {
        snprintf(err, err_len, "%s: %s", path, why);
        return -1;
    }
    info->width = (size_t)w;
    info->height = (size_t)h;
    info->channels = comp;
    info->bits = stbi_is_16_bit_from_memory(data, (int)len) ? 16 : 8;
    /* Before stb_image allocates anything for the pixels. */
    return over_cap(path, info, max_pixels, err, err_len);
}

int io_load_gray(const char *path, size_t max_pixels, io_image *img,
                 char *err, size_t err_len)
{
    memset(img, 0, sizeof *img);
    size_t len = 0;
    unsigned char *data = io_read_file(path, &len, err, err_len);
    if (!data)
        return -1;
    io_info info;
    if (io_probe(path, data, len, max_pixels, &info, err, err_len) != 0) {
        free(data);
        return -1;
    }
    /* Asking for 1 channel converts like IMREAD_GRAYSCALE: a (YCbCr)
     * JPEG gives its luma channel Y as it is, as OpenCV's does; other
     * colour images go to (77 r + 150 g + 29 b) >> 8, never above and
     * at most one level below OpenCV's rounded 0.299 r + 0.587 g +
     * 0.114 b; alpha is dropped, 16 bits become their top 8, palette
     * indices their colours first. */
    int w, h, channels_in_file;
    uint8_t *pixels = stbi_load_from_memory(data, (int)len, &w, &h,
                                            &channels_in_file, 1);
    free(data);
    if (!pixels) {
        /* stb_image tries JPEG first, and a later format that fails
         * without a reason of its own leaves that test's "no SOI". */
        const char *why = stbi_failure_reason();
        if (!why || (strcmp(why, "no SOI") == 0 &&
                     strcmp(info.format, "JPEG") != 0))
            why = "corrupt or unsupported data";
        snprintf(err, err_len, "%s: cannot decode the %s data: %s", path,
                 info.format, why);
        return -1;
    }
    if ((size_t)w != info.width || (size_t)h != info.height) {
        snprintf(err, err_len, "%s: decoded %d x %d, header said %zu x %zu",
                 path, w, h, info.width, info.height);
        stbi_image_free(pixels);
        return -1;
    }
    img->pixels = pixels;
    img->width = info.width;
    img->height = info.height;
    img->info = info;
    return 0;
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
        snprintf(err, err_len, "cannot write %s: it is a directory", path);
        return -1;
    }
    char folder[1024] = ".";
    const char *slash = strrchr(path, '/');
    if (slash) {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        if (n >= sizeof folder) {
            snprintf(err, err_len, "cannot write %.60s...: path too long",
                     path);
            return -1;
        }
        memcpy(folder, path, n);
        folder[n] = '\0';
    }
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "cannot write %s: folder %s does not exist",
                 path, folder);
        return -1;
    }
    if (access(folder, W_OK) != 0) {
        snprintf(err, err_len, "cannot write %s: folder %s is not writable",
                 path, folder);
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
        snprintf(err, err_len, "cannot write %s: %zu x %zu is more than "
                 "stb_image_write's 2 GiB", path, width, height);
        return -1;
    }
    cm_out_file f;
    if (cm_out_open(&f, path) != 0) {
        snprintf(err, err_len, "%s", f.error);
        return -1;
    }
    if (!stbi_write_png_to_func(write_to_file, f.fp, (int)width, (int)height,
                                1, pixels, (int)width)) {
        snprintf(err, err_len, "cannot write %s: PNG encoding failed", path);
        cm_out_abort(&f);
        return -1;
    }
    if (cm_out_commit(&f) != 0) {
        snprintf(err, err_len, "%s", f.error);
        return -1;
    }
    return 0;
}
