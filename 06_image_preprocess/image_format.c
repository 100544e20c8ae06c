/* image_format.c - format sniffing and completeness checks. */
#include "image_format.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | p[3];
}

/* A PNG is a signature and a chain of chunks (length, type, data, CRC)
 * ending with IEND. Walking the lengths finds a cut-off file for sure,
 * without inflating anything. */
int fmt_check_png(const unsigned char *d, size_t len, io_info *info,
                  char *why, size_t why_len)
{
    size_t pos = 8;
    for (;;) {
        if (len < pos || len - pos < 12) {
            snprintf(why, why_len, "truncated PNG: the file ends at byte "
                     "%zu with no IEND chunk", len);
            return -1;
        }
        uint32_t data_bytes = be32(d + pos);
        char type[5];
        for (int i = 0; i < 4; i++) {
            unsigned char c = d[pos + 4 + i];
            type[i] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
                          ? (char)c : '?';
        }
        type[4] = '\0';
        if (data_bytes > len - pos - 12) {
            snprintf(why, why_len, "truncated PNG: chunk %s at byte %zu "
                     "needs %zu bytes, the file ends %zu bytes later", type,
                     pos, (size_t)data_bytes + 12, len - pos);
            return -1;
        }
        if (strcmp(type, "IHDR") == 0 && data_bytes >= 13) {
            info->width = be32(d + pos + 8);
            info->height = be32(d + pos + 12);
            info->palette = d[pos + 8 + 9] == 3;  /* colour type 3 */
            if (info->width == 0 || info->height == 0) {
                snprintf(why, why_len, "PNG header says %zu x %zu pixels: "
                         "width and height must be at least 1",
                         info->width, info->height);
                return -1;
            }
        }
        if (strcmp(type, "IEND") == 0)
            return 0;
        pos += 12 + (size_t)data_bytes;
    }
}

/* A JPEG is a chain of marker segments; after each start-of-scan comes
 * entropy-coded data in which 0xFF is followed by 0x00 (a stuffed byte) or
 * a restart marker. A complete file reaches the end-of-image marker. */
int fmt_check_jpeg(const unsigned char *d, size_t len, io_info *info,
                   char *why, size_t why_len)
{
    size_t pos = 2;
    for (;;) {
        if (pos < len && d[pos] != 0xFF) {
            snprintf(why, why_len, "corrupt JPEG: expected a marker at "
                     "byte %zu, found 0x%02X", pos, d[pos]);
            return -1;
        }
        while (pos < len && d[pos] == 0xFF)  /* fill bytes */
            pos++;
        if (pos >= len)
            break;
        unsigned marker = d[pos++];
        if (marker == 0xD9)  /* end of image */
            return 0;
        if ((marker >= 0xD0 && marker <= 0xD7) || marker == 0x01)
            continue;  /* markers without a length */
        if (len - pos < 2)
            break;
        size_t segment = (size_t)(d[pos] << 8 | d[pos + 1]);
        if (segment < 2) {
            snprintf(why, why_len, "corrupt JPEG: segment length %zu at "
                     "byte %zu", segment, pos);
            return -1;
        }
        if (segment > len - pos)
            break;
        /* A Huffman table (DHT) lists how many codes it has of each length,
         * 1 to 16, then their symbols: at most 256. stb_image up to 2.27
         * stores more past the end of its table. */
        size_t at = pos + 2, end = pos + segment;
        while (marker == 0xC4 && at <= end && end - at >= 17) {
            size_t codes = 0;
            for (int i = 1; i <= 16; i++)
                codes += d[at + (size_t)i];
            if (codes > 256) {
                snprintf(why, why_len, "corrupt JPEG: the Huffman table at "
                         "byte %zu has %zu codes, more than 256", at, codes);
                return -1;
            }
            at += 17 + codes;
        }
        /* A start of frame (0xC0..0xCF but C4, C8, CC) holds the size. */
        if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 &&
            marker != 0xC8 && marker != 0xCC && segment >= 7) {
            info->height = (size_t)(d[pos + 3] << 8 | d[pos + 4]);
            info->width = (size_t)(d[pos + 5] << 8 | d[pos + 6]);
        }
        pos += segment;
        if (marker != 0xDA)
            continue;
        for (;;) {  /* skip the scan's compressed data */
            const unsigned char *ff = memchr(d + pos, 0xFF, len - pos);
            if (!ff || (size_t)(ff - d) + 1 >= len) {
                pos = len;
                break;
            }
            pos = (size_t)(ff - d);
            unsigned next = d[pos + 1];
            if (next == 0x00 || (next >= 0xD0 && next <= 0xD7))
                pos += 2;
            else if (next == 0xFF)
                pos++;
            else
                break;
        }
        if (pos >= len)
            break;
    }
    snprintf(why, why_len, "truncated JPEG: the file ends at byte %zu "
             "before the end-of-image marker", len);
    return -1;
}

/* A Radiance HDR is text header lines up to an empty one, a line
 * "-Y height +X width", then scanlines. Between 8 and 32767 pixels wide
 * each scanline is usually run-length coded: 2, 2, the width in 2 bytes,
 * then for each of its 4 channels runs (a count over 128 and one byte) and
 * literals (a count up to 128 and that many bytes). stb_image up to 2.27
 * reads a count of 0, or the zeros it reads past the end of a cut file, as
 * an empty literal forever (CVE-2021-42715); walking the scanlines as it
 * does finds both before it runs. Anything else is left to stb_image. */
int fmt_check_hdr(const unsigned char *d, size_t len, char *why,
                  size_t why_len)
{
    /* Header lines up to an empty one, which for stb_image is one that
     * starts with '\n' or '\0'; then the size line, of which it keeps at
     * most 1023 bytes. */
    size_t pos = 0, start;
    const unsigned char *nl;
    do {
        start = pos;
        nl = memchr(d + pos, '\n', len - pos);
        if (!nl)
            return 0;  /* cut in the header: no scanline to loop on */
        pos = (size_t)(nl - d) + 1;
    } while (d[start] != '\n' && d[start] != '\0');
    nl = memchr(d + pos, '\n', len - pos);
    if (!nl)
        return 0;
    char size_line[1024];
    size_t size_len = (size_t)(nl - (d + pos));
    if (size_len > sizeof size_line - 1)
        size_len = sizeof size_line - 1;
    memcpy(size_line, d + pos, size_len);
    size_line[size_len] = '\0';
    pos = (size_t)(nl - d) + 1;
    char *end;
    if (strncmp(size_line, "-Y ", 3) != 0)
        return 0;
    long height = strtol(size_line + 3, &end, 10);
    while (*end == ' ')
        end++;
    if (strncmp(end, "+X ", 3) != 0)
        return 0;
    long width = strtol(end + 3, NULL, 10);
    if (width < 8 || width >= 32768)
        return 0;  /* flat, not run-length coded */
    long y = 0;
    for (; y < height; y++) {
        if (len - pos < 4)
            goto cut;
        if (d[pos] != 2 || d[pos + 1] != 2 || (d[pos + 2] & 0x80) ||
            (d[pos + 2] << 8 | d[pos + 3]) != width)
            return 0;  /* flat from here on, or refused by stb_image */
        pos += 4;
        for (int channel = 0; channel < 4; channel++)
            for (long x = 0; x < width;) {
                if (pos >= len)
                    goto cut;
                size_t count = d[pos++], bytes = count;
                if (count > 128) {  /* a run: one byte, count - 128 times */
                    count -= 128;
                    bytes = 1;
                } else if (count == 0) {
                    snprintf(why, why_len, "corrupt HDR: a run of length 0 "
                             "at byte %zu, in scanline %ld", pos - 1, y + 1);
                    return -1;
                }
                if ((long)count > width - x)
                    return 0;  /* refused by stb_image */
                if (bytes > len - pos)
                    goto cut;
                pos += bytes;
                x += (long)count;
            }
    }
    return 0;
cut:
    snprintf(why, why_len, "truncated HDR: the file ends at byte %zu, in "
             "scanline %ld of %ld", len, y + 1, height);
    return -1;
}

const char *fmt_sniff(const unsigned char *d, size_t len)
{
    static const struct { const char *magic; size_t bytes; const char *name; }
    known[] = {
        {"\x89PNG\r\n\x1a\n", 8, "PNG"}, {"\xff\xd8", 2, "JPEG"},
        {"GIF8", 4, "GIF"}, {"BM", 2, "BMP"}, {"8BPS", 4, "PSD"},
        {"P5", 2, "PGM"}, {"P6", 2, "PPM"}, {"#?", 2, "HDR"},
        {"\x53\x80\xf6\x34", 4, "PIC"},
    };
    size_t count = sizeof known / sizeof known[0];
    for (size_t i = 0; i < count; i++)
        if (len >= known[i].bytes &&
            memcmp(d, known[i].magic, known[i].bytes) == 0)
            return known[i].name;
    /* A file that ends inside a magic number was cut there. */
    for (size_t i = 0; i < count; i++)
        if (len > 0 && len < known[i].bytes &&
            memcmp(d, known[i].magic, len) == 0)
            return known[i].name;
    return "TGA";  /* the one format stb_image reads that has no magic */
}

