/* batch_head.c - a file's header from its first bytes, or the whole file
 * where they do not hold it (batch_head.h). */
#include "batch_head.h"
#include "exif.h"
#include "files.h"
#include "../image_io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest side stb_image 2.27 takes (STBI_MAX_DIMENSIONS). */
static const size_t STB_MAX_SIDE = (size_t)1 << 24;

static size_t be16(const uint8_t *p)
{
    return (size_t)p[0] << 8 | p[1];
}

static size_t be32(const uint8_t *p)
{
    return (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 |
           p[3];
}

/* A JPEG's frame size, if every segment up to its first scan lies in
 * d[0 .. n) and is one stb_image reads before the frame (APPn, COM, DQT,
 * DHT, DRI) and the frame is one it decodes (SOF0, 1 or 2: 8 bits, 1, 3
 * or 4 components, sampling factors 1 to 4). Returns 1 with *w, *h;
 * 0: the whole file decides. */
static int jpeg_head(const uint8_t *d, size_t n, size_t *w, size_t *h)
{
    size_t pos = 0;
    int frame = 0;
    while (pos < n && d[pos] == 0xFF)  /* fill bytes, then SOI */
        pos++;
    if (pos == 0 || pos >= n || d[pos++] != 0xD8)
        return 0;
    for (;;) {
        if (pos >= n || d[pos] != 0xFF)
            return 0;
        while (pos < n && d[pos] == 0xFF)
            pos++;
        if (pos + 3 > n)
            return 0;
        int m = d[pos++];
        if (m == 0xDA)  /* the first scan: every segment before it seen */
            return frame;
        int known = (m >= 0xE0 && m <= 0xEF) || m == 0xFE || m == 0xDB ||
                    m == 0xC4 || m == 0xDD;
        int sof = m == 0xC0 || m == 0xC1 || m == 0xC2;
        size_t len = be16(d + pos);
        if ((!known && !sof) || len < 2 || len > n - pos)
            return 0;
        if (sof) {
            const uint8_t *f = d + pos + 2;
            int comps = len >= 8 ? f[5] : 0;
            if (frame || len < 11 || f[0] != 8 ||
                (comps != 1 && comps != 3 && comps != 4) ||
                len != 8 + 3 * (size_t)comps)
                return 0;
            for (int c = 0; c < comps; c++) {
                int hv = f[7 + 3 * c], tq = f[8 + 3 * c];
                if (hv >> 4 < 1 || hv >> 4 > 4 || (hv & 15) < 1 ||
                    (hv & 15) > 4 || tq > 3)
                    return 0;
            }
            *h = be16(f + 1);
            *w = be16(f + 3);
            frame = *w > 0 && *h > 0;
            if (!frame)
                return 0;
        }
        pos += len;
    }
}

/* A PNG's size from its signature and IHDR chunk (the first), if they
 * make a header stb_image reads. Returns 1 with *w, *h; 0: the whole file decides. */
static int png_head(const uint8_t *d, size_t n, size_t *w, size_t *h)
{
    if (n < 33 || memcmp(d, "\x89PNG\r\n\x1a\n", 8) != 0 ||
        be32(d + 8) != 13 || memcmp(d + 12, "IHDR", 4) != 0)
        return 0;
    int depth = d[24], color = d[25];
    int depth_ok = depth == 1 || depth == 2 || depth == 4 || depth == 8 ||
                   depth == 16;
    int color_ok = color == 0 || color == 2 || color == 3 || color == 4 ||
                   color == 6;
    if (!depth_ok || !color_ok || (color == 3 && depth == 16) || d[26] ||
        d[27] || d[28] > 1)
        return 0;
    *w = be32(d + 16);
    *h = be32(d + 20);
    return *w > 0 && *h > 0;
}

/* Reads the first HEAD_BYTES of path into buf. Returns the file's size
 * if it is a regular file longer than that and they were read; else 0
 * (the whole-file read says what is wrong, if anything). */
static size_t read_head(const char *path, uint8_t *buf)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    size_t size = 0, got = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_size > HEAD_BYTES && st.st_size <= INT_MAX)
        size = (size_t)st.st_size;
    while (size && got < HEAD_BYTES) {
        ssize_t k = pread(fd, buf + got, HEAD_BYTES - got, (off_t)got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            size = 0;  /* shrank, or cannot be read: read whole */
        else
            got += (size_t)k;
    }
    close(fd);
    return size;
}

int head_parse(const uint8_t *d, size_t n, size_t max_pixels, int exif,
               head_result *h)
{
    size_t w = 0, ht = 0;
    memset(h, 0, sizeof *h);
    int jpeg = n >= 2 && d[0] == 0xFF && d[1] == 0xD8;
    int taken = jpeg ? jpeg_head(d, n, &w, &ht) : png_head(d, n, &w, &ht);
    if (!taken || w > STB_MAX_SIDE || ht > STB_MAX_SIDE ||
        w * ht > max_pixels)
        return 0;
    h->width = w;
    h->height = ht;
    h->jpeg = jpeg;
    h->orientation = exif && jpeg ? exif_orientation(d, n) : 1;
    return 1;
}

int head_probe(const char *path, size_t max_pixels, int exif,
               head_result *h, char *err, size_t err_len)
{
    uint8_t buf[HEAD_BYTES];
    size_t size = read_head(path, buf);
    if (size && head_parse(buf, HEAD_BYTES, max_pixels, exif, h)) {
        h->bytes = size;
        return 0;
    }
    memset(h, 0, sizeof *h);
    /* The whole file, checked as a file is without this survey. */
    size_t len = 0;
    io_info info;
    unsigned char *data = io_read_file(path, &len, err, err_len);
    int bad = !data || io_probe(path, data, len, max_pixels, &info, err,
                                err_len) != 0;
    if (!bad) {
        h->width = info.width;
        h->height = info.height;
        h->bytes = info.file_bytes;
        h->jpeg = len >= 2 && data[0] == 0xFF && data[1] == 0xD8;
        h->orientation = exif && strcmp(info.format, "JPEG") == 0
                             ? exif_orientation(data, len)
                             : 1;
        h->whole = 1;
    }
    free(data);
    return bad ? -1 : 0;
}

int head_recheck(const char *path, const uint8_t *bits, size_t len,
                 size_t max_pixels, size_t width, size_t height, char *err,
                 size_t err_len)
{
    io_info info;
    if (io_probe(path, bits, len, max_pixels, &info, err, err_len) != 0)
        return -1;
    if (info.width == width && info.height == height)
        return 0;
    snprintf(err, err_len, CM_PATH_FMT ": %zu x %zu, but %zu x %zu when "
             "it was checked: changed since", CM_PATH_ARGS(path),
             info.width, info.height, width, height);
    return -1;
}
