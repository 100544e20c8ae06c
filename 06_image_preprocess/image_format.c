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
        /* A chunk whose type starts upper case is critical: stb_image
         * refuses one it does not know with a reason holding the type's
         * bytes as they are (a newline, say), written into one buffer
         * that all threads share. */
        static const char *const known[] = {"IHDR", "PLTE", "IDAT", "IEND",
                                             "CgBI"};
        int critical = !(d[pos + 4] & 0x20), is_known = 0;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            is_known |= memcmp(d + pos + 4, known[i], 4) == 0;
        if (critical && !is_known) {
            snprintf(why, why_len, "unsupported PNG: critical chunk %s at "
                     "byte %zu is not one stb_image knows", type, pos);
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

/* The Huffman tables of a DHT segment, of `bytes` bytes at p, found at
 * byte `at` of the file, noting each one's class (0 DC, 1 AC) and id in
 * defined[class] (bit id). Returns 0, or -1 with "corrupt JPEG: ..." in
 * why: a table of more than 256 codes, a DC table with a symbol over 15,
 * or tables that do not fill the segment exactly. */
static int check_dht(const unsigned char *p, size_t bytes, size_t at,
                     unsigned defined[2], char *why, size_t why_len)
{
    size_t pos = 0;
    while (pos < bytes) {
        if (bytes - pos < 17)
            break;
        size_t codes = 0;
        for (int i = 1; i <= 16; i++)
            codes += p[pos + (size_t)i];
        if (codes > 256) {
            snprintf(why, why_len, "corrupt JPEG: the Huffman table at "
                     "byte %zu has %zu codes, more than 256", at + pos,
                     codes);
            return -1;
        }
        if (codes > bytes - pos - 17)
            break;
        for (size_t i = 0; (p[pos] >> 4) == 0 && i < codes; i++)
            if (p[pos + 17 + i] > 15) {
                snprintf(why, why_len, "corrupt JPEG: the DC Huffman table "
                         "at byte %zu codes a difference of %u bits, more "
                         "than 15", at + pos, p[pos + 17 + i]);
                return -1;
            }
        if ((p[pos] >> 4) <= 1 && (p[pos] & 15) <= 3)  /* else refused */
            defined[p[pos] >> 4] |= 1u << (p[pos] & 15);
        pos += 17 + codes;
    }
    if (pos == bytes)
        return 0;
    snprintf(why, why_len, "corrupt JPEG: the Huffman tables at byte %zu "
             "do not fill their segment (%zu bytes) exactly", at, bytes);
    return -1;
}

/* A scan (SOS segment of `bytes` bytes at p, at byte `at`) decodes with
 * Huffman tables that an earlier DHT segment must have defined: stb_image
 * 2.27 keeps its tables in memory it never clears, and decodes with
 * whatever an undefined one holds, reading past its arrays. Each of the
 * scan's components names a DC table and an AC table; a sequential
 * frame uses both, a progressive one the DC table in a first DC scan and
 * the AC table in an AC scan. Returns 0, or -1 with why. */
static int check_scan(const unsigned char *p, size_t bytes, size_t at,
                      int progressive, const unsigned defined[2],
                      char *why, size_t why_len)
{
    size_t n = bytes > 2 ? p[2] : 0;
    if (bytes < 6 + 2 * n)
        return 0;  /* refused by stb_image */
    int first_dc = p[3 + 2 * n] == 0 && (p[5 + 2 * n] >> 4) == 0;
    int ac = p[3 + 2 * n] != 0;
    for (size_t i = 0; i < n; i++) {
        unsigned dc_id = p[4 + 2 * i] >> 4, ac_id = p[4 + 2 * i] & 15;
        int uses_dc = !progressive || first_dc, uses_ac = !progressive || ac;
        const char *kind = NULL;
        unsigned id = 0;
        if (uses_dc && dc_id <= 3 && !(defined[0] >> dc_id & 1))
            kind = "DC", id = dc_id;
        else if (uses_ac && ac_id <= 3 && !(defined[1] >> ac_id & 1))
            kind = "AC", id = ac_id;
        if (kind) {
            snprintf(why, why_len, "corrupt JPEG: the scan at byte %zu "
                     "uses %s Huffman table %u, which no segment before it "
                     "defines", at, kind, id);
            return -1;
        }
    }
    return 0;
}

/* A JPEG is a chain of marker segments; after each start-of-scan comes
 * entropy-coded data in which 0xFF is followed by 0x00 (a stuffed byte) or
 * a restart marker. A complete file reaches the end-of-image marker. */
int fmt_check_jpeg(const unsigned char *d, size_t len, io_info *info,
                   char *why, size_t why_len)
{
    /* stb_image skips 0xFF fill bytes before the start marker too. */
    size_t pos = 1;
    while (pos < len && d[pos] == 0xFF)
        pos++;
    pos++;  /* the start marker's 0xD8 (or past a file cut before it) */
    unsigned defined[2] = {0, 0};  /* Huffman tables: DC, AC, bit = id */
    int progressive = 0;
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
        /* A Huffman table segment (DHT) holds tables that each list how
         * many codes it has of each length, 1 to 16, then their symbols:
         * at most 256. stb_image up to 2.27 stores more past the end of
         * its table; it reads tables for as long as its segment has a
         * byte left, the last one's counts past the segment if it is not
         * filled exactly; and 2.26 looked up a DC difference of a
         * symbol's bits (at most 11 for 8 bits) in tables of 16 even for
         * a symbol over 15 (2.27 refuses one as it decodes). */
        if (marker == 0xC4 && check_dht(d + pos + 2, segment - 2, pos + 2,
                                        defined, why, why_len) != 0)
            return -1;
        if (marker == 0xC2)
            progressive = 1;
        if (marker == 0xDA && check_scan(d + pos, segment, pos - 2,
                                         progressive, defined, why,
                                         why_len) != 0)
            return -1;
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
 * does finds both before it runs. Other scanlines are flat, four bytes a
 * pixel, and stb_image makes a pixel that a cut file ends in of bytes it
 * never wrote: they must all be there. Anything else is left to
 * stb_image. */
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
    if (!nl) {  /* no byte of pixels: stb_image would make them up */
        snprintf(why, why_len, "truncated HDR: the file ends at byte %zu, "
                 "in its size line", len);
        return -1;
    }
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
    long y = 0;
    if (width < 8 || width >= 32768)  /* flat, not run-length coded */
        goto flat;
    for (; y < height; y++) {
        if (len - pos < 4)
            goto cut;
        if (d[pos] != 2 || d[pos + 1] != 2 || (d[pos + 2] & 0x80))
            goto flat;
        if ((d[pos + 2] << 8 | d[pos + 3]) != width)
            return 0;  /* refused by stb_image */
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
flat:
    /* Four bytes a pixel, from the start: a scanline that does not start
     * as a run-length coded one is read, from its first bytes on, as
     * the image's pixels from the first one (stb_image 2.27 starts over
     * there), and a pixel the file ends in is made of bytes it never
     * read. */
    if (width <= 0 || height <= 0 || width > 1 << 24 || height > 1 << 24 ||
        (len - pos) / 4 / (size_t)width >= (size_t)height)
        return 0;  /* refused by stb_image, or whole */
    y = (long)((len - pos) / 4 / (size_t)width);
cut:
    snprintf(why, why_len, "truncated HDR: the file ends at byte %zu, in "
             "scanline %ld of %ld", len, y + 1, height);
    return -1;
}

/* A binary PGM or PPM header is "P5" or "P6", then width, height and
 * maximum value in decimal, each after white space and # comment lines.
 * stb_image 2.27 reads each number into an int with no bound, so a long
 * one overflows it; it then refuses sides over 2^24 and maximum values
 * over 65535. Reading the numbers as it does (to the file's end, where
 * stbi_info stops one digit short), we refuse any above those first. */
int fmt_check_pnm(const unsigned char *d, size_t len, const char *format,
                  char *why, size_t why_len)
{
    static const char *const names[3] = {"width", "height",
                                         "maximum value"};
    static const size_t most[3] = {1 << 24, 1 << 24, 65535};
    size_t pos = 2;
    for (int k = 0; k < 3; k++) {
        for (;;) {  /* white space, then comment lines */
            while (pos < len && strchr(" \t\n\v\f\r", d[pos]) && d[pos])
                pos++;
            if (pos >= len || d[pos] != '#')
                break;
            while (pos < len && d[pos] != '\n' && d[pos] != '\r')
                pos++;
        }
        size_t start = pos, value = 0;
        for (; pos < len && d[pos] >= '0' && d[pos] <= '9'; pos++) {
            value = value * 10 + (size_t)(d[pos] - '0');
            if (value > most[k]) {
                snprintf(why, why_len, "%s header's %s at byte %zu is more "
                         "than %zu: too large to read", format, names[k],
                         start, most[k]);
                return -1;
            }
        }
    }
    /* stbi_info, reading from memory, drops the last digit of a number
     * that runs to the file's end, and the decode, reading through
     * callbacks, keeps it: they then disagree on the sample size (a
     * maximum of 88 or 882), and stb_image reads past its buffer. With
     * no byte after it, such a header has no pixels anyway. */
    if (pos >= len) {
        snprintf(why, why_len, "truncated %s: the file ends at byte %zu, "
                 "in its header", format, len);
        return -1;
    }
    return 0;
}

const char *fmt_sniff(const unsigned char *d, size_t len)
{
    static const struct { const char *magic; size_t bytes; const char *name; }
    known[] = {
        {"\x89PNG\r\n\x1a\n", 8, "PNG"}, {"GIF8", 4, "GIF"},
        {"BM", 2, "BMP"}, {"8BPS", 4, "PSD"}, {"P5", 2, "PGM"},
        {"P6", 2, "PPM"}, {"#?", 2, "HDR"}, {"\x53\x80\xf6\x34", 4, "PIC"},
    };
    size_t count = sizeof known / sizeof known[0];
    /* A JPEG starts 0xFF 0xD8, and stb_image takes 0xFF fill bytes
     * before that start marker, as before any marker: so do we, or a
     * JPEG would go unchecked. Only 0xFF bytes: one cut there. */
    size_t fill = 0;
    while (fill < len && d[fill] == 0xFF)
        fill++;
    if (fill > 0 && (fill == len || d[fill] == 0xD8))
        return "JPEG";
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

