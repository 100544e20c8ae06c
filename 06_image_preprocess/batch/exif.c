/* exif.c - the EXIF orientation of a JPEG (exif.h). */
#include "exif.h"

#include <string.h>

/* A TIFF number of `bytes` (2 or 4) at p, in its byte order. */
static unsigned long tiff_number(const unsigned char *p, int bytes,
                                 int big_endian)
{
    unsigned long v = 0;
    for (int i = 0; i < bytes; i++)
        v = big_endian ? v << 8 | p[i]
                       : v | (unsigned long)p[i] << (8 * i);
    return v;
}

/* Tag 274 of the first directory of the TIFF structure at t (n bytes):
 * "II" or "MM", 42, the directory's offset; the directory a count of
 * 12-byte entries (tag, type, count, value). */
static int tiff_orientation(const unsigned char *t, size_t n)
{
    if (n < 8 || (memcmp(t, "II", 2) != 0 && memcmp(t, "MM", 2) != 0))
        return 1;
    int big = t[0] == 'M';
    if (tiff_number(t + 2, 2, big) != 42)
        return 1;
    unsigned long ifd = tiff_number(t + 4, 4, big);
    if (ifd > n - 2)
        return 1;
    unsigned long entries = tiff_number(t + ifd, 2, big);
    for (unsigned long k = 0; k < entries; k++) {
        size_t at = (size_t)ifd + 2 + 12 * (size_t)k;
        if (at > n || n - at < 12)
            return 1;
        if (tiff_number(t + at, 2, big) != 274)
            continue;
        /* SHORT (type 3), one of them, in the entry's first 2 bytes */
        if (tiff_number(t + at + 2, 2, big) != 3 ||
            tiff_number(t + at + 4, 4, big) != 1)
            return 1;
        unsigned long o = tiff_number(t + at + 8, 2, big);
        return o >= 1 && o <= 8 ? (int)o : 1;
    }
    return 1;
}

int exif_orientation(const unsigned char *d, size_t len)
{
    size_t pos = 0;
    while (pos < len && d[pos] == 0xFF)  /* fill bytes, then SOI */
        pos++;
    if (pos == 0 || pos >= len || d[pos] != 0xD8)
        return 1;
    pos++;
    for (;;) {
        if (pos >= len || d[pos] != 0xFF)
            return 1;
        while (pos < len && d[pos] == 0xFF)
            pos++;
        if (pos >= len)
            return 1;
        unsigned marker = d[pos++];
        if ((marker >= 0xD0 && marker <= 0xD7) || marker == 0x01)
            continue;
        if (marker == 0xDA || marker == 0xD9 || len - pos < 2)
            return 1;  /* the scan, or the end, before any Exif */
        size_t segment = (size_t)(d[pos] << 8 | d[pos + 1]);
        if (segment < 2 || segment > len - pos)
            return 1;
        if (marker == 0xE1 && segment >= 2 + 6 &&
            memcmp(d + pos + 2, "Exif\0\0", 6) == 0)
            return tiff_orientation(d + pos + 8, segment - 8);
        pos += segment;
    }
}
