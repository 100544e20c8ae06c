/* jpeg_walk.c - a JPEG's Huffman codes read as stb_image 2.27 reads them
 * (jpeg_walk.h). Each step below follows the stb_image function named
 * beside it, in the same order and with the same reads, so that the
 * walk meets a marker where stb_image meets it; it keeps, instead of
 * coefficients, what decides how many bits stb_image reads next: which
 * coefficients of a progressive block are not 0.
 */
#include "jpeg_walk.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FAST_BITS = 9, NO_MARKER = 0xFF };

/* A Huffman table as stbi__build_huffman and stbi__build_fast_ac make
 * it. An AC code short enough is decoded with its value at once. */
typedef struct {
    int defined;
    uint8_t fast[1 << FAST_BITS];    /* symbol index, 255: not fast */
    uint16_t code[256];
    uint8_t values[256];
    uint8_t size[257];
    uint32_t maxcode[18];
    int delta[17];
    uint8_t ac_bits[1 << FAST_BITS]; /* code + value bits, 0: not fast */
    uint8_t ac_run[1 << FAST_BITS];
    int8_t ac_value[1 << FAST_BITS];
} table;

typedef struct {
    int id, h, v, tq, hd, ha;
    size_t x, y;            /* its pixels */
    size_t bw, bh;          /* its blocks, whole MCUs (coeff_w, coeff_h) */
    uint8_t *set;           /* per block: a scan decoded it (progressive:
                               a first DC scan) */
    uint64_t *nonzero;      /* progressive: per block, bit n for the
                               coefficient at n in row-major order */
} component;

typedef struct {
    const unsigned char *d;
    size_t len, pos;
    uint32_t code_buffer;   /* stb_image's bit reader */
    int code_bits, nomore;
    int zeros;              /* of code_bits, the zeros put in after a
                               marker: not the file's */
    int marker;             /* NO_MARKER, or the one a read stopped at */
    size_t marker_at;       /* its byte */
    int progressive, n;
    size_t height, mcu_x, mcu_y;
    component c[4];
    table dc[4], ac[4];
    int restart_interval, todo, eob_run;
    int scan_n, order[4], spec_start, spec_end, succ_high, succ_low;
    size_t scan_at;         /* the scan's SOS marker */
    size_t max_pixels;
    char *why;
    size_t why_len;
} walker;

static const uint8_t dezigzag[64 + 15] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    /* a corrupt run may step past 63, which stb_image reads as 63 */
    63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

static const uint32_t bmask[17] = {0,    1,    3,     7,     15,   31,
                                   63,   127,  255,   511,   1023, 2047,
                                   4095, 8191, 16383, 32767, 65535};

/* stbi__get8 and stbi__at_eof: past the end, stb_image reads zeros. */
static unsigned get8(walker *w)
{
    return w->pos < w->len ? w->d[w->pos++] : 0;
}

static unsigned get16(walker *w)
{
    unsigned hi = get8(w);
    return hi << 8 | get8(w);
}

static void skip(walker *w, size_t n)
{
    w->pos = n > w->len - w->pos ? w->len : w->pos + n;
}

static int at_eof(const walker *w) { return w->pos >= w->len; }

/* stbi__grow_buffer_unsafe: bytes into the bit buffer until it holds
 * more than 24 bits, or a marker stops it (then zeros from there on).
 * The walk stops before a code takes one of those zeros, and so before
 * code_bits is negative: the shift is in range here, and in stb_image
 * it is not always. */
static void grow(walker *w)
{
    do {
        unsigned b = w->nomore ? 0 : get8(w);
        if (b == 0xFF) {
            unsigned c = get8(w);
            while (c == 0xFF)
                c = get8(w);
            if (c != 0) {
                w->marker = (int)c;
                w->marker_at = w->pos - 2;
                w->nomore = 1;
                return;
            }
        }
        w->code_buffer |= b << (24 - w->code_bits);
        w->code_bits += 8;
        w->zeros += w->nomore ? 8 : 0;
    } while (w->code_bits <= 24);
}

/* n bits used: refused if they were not all the file's. stb_image reads
 * zeros past the marker, made-up coefficients (libjpeg warns of a
 * "premature end of data segment"), and its count goes below zero when
 * a code needs more bits than the read that met the marker gave it. */
static int use(walker *w, int n)
{
    w->code_bits -= n;
    if (w->code_bits >= w->zeros)
        return 1;
    snprintf(w->why, w->why_len, "corrupt JPEG: the scan at byte %zu ends "
             "at a marker (byte %zu) before its last code", w->scan_at,
             w->marker_at);
    return -1;
}

/* stbi__jpeg_huff_decode: a symbol, -1 where stb_image fails, or -2
 * (refused). */
static int huff_decode(walker *w, const table *t)
{
    if (w->code_bits < 16)
        grow(w);
    unsigned c = (w->code_buffer >> (32 - FAST_BITS)) &
                 ((1u << FAST_BITS) - 1);
    int k = t->fast[c];
    if (k < 255) {
        int s = t->size[k];
        if (s > w->code_bits)
            return -1;
        w->code_buffer <<= s;
        return use(w, s) == 1 ? t->values[k] : -2;
    }
    uint32_t top = w->code_buffer >> 16;
    for (k = FAST_BITS + 1;; ++k)
        if (top < t->maxcode[k])
            break;
    if (k == 17 || k > w->code_bits)
        return -1;
    int index = (int)((w->code_buffer >> (32 - k)) & bmask[k]) +
                t->delta[k];
    if (index < 0 || index > 255)
        return -1;  /* cannot happen for a table built below */
    w->code_buffer <<= k;
    return use(w, k) == 1 ? t->values[index] : -2;
}

/* stbi__extend_receive (signed) and stbi__jpeg_get_bits (unsigned): n
 * bits, 1 to 15, into *value. Returns 1, or -1 (refused). */
static int receive(walker *w, int n, int extend, int *value)
{
    if (w->code_bits < n)
        grow(w);
    uint32_t rotated = w->code_buffer << n | w->code_buffer >> (32 - n);
    int negative = !(w->code_buffer >> 31);
    w->code_buffer = rotated & ~bmask[n];
    int k = (int)(rotated & bmask[n]);
    *value = extend && negative ? k - (int)bmask[n] : k;
    return use(w, n);
}

/* stbi__jpeg_get_bit: 1 or 0 into *bit. Returns 1, or -1 (refused). */
static int get_bit(walker *w, int *bit)
{
    if (w->code_bits < 1)
        grow(w);
    *bit = (int)(w->code_buffer >> 31);
    w->code_buffer <<= 1;
    return use(w, 1);
}

/* stbi__build_huffman, then stbi__build_fast_ac for an AC table. Returns
 * 1, or 0 where stb_image refuses the code lengths. */
static int build_table(table *t, const int count[16], int ac)
{
    int k = 0;
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < count[i]; ++j)
            t->size[k++] = (uint8_t)(i + 1);
    t->size[k] = 0;
    unsigned code = 0;
    k = 0;
    for (int j = 1; j <= 16; ++j) {
        t->delta[j] = k - (int)code;
        if (t->size[k] == j) {
            while (t->size[k] == j)
                t->code[k++] = (uint16_t)code++;
            if (code - 1 >= (1u << j))
                return 0;
        }
        t->maxcode[j] = code << (16 - j);
        code <<= 1;
    }
    t->maxcode[17] = 0xFFFFFFFF;
    memset(t->fast, 255, sizeof t->fast);
    for (int i = 0; i < k; ++i) {
        int s = t->size[i];
        if (s <= FAST_BITS) {
            int c = t->code[i] << (FAST_BITS - s);
            for (int j = 0; j < 1 << (FAST_BITS - s); ++j)
                t->fast[c + j] = (uint8_t)i;
        }
    }
    memset(t->ac_bits, 0, sizeof t->ac_bits);
    for (int i = 0; ac && i < 1 << FAST_BITS; ++i) {
        int fast = t->fast[i];
        if (fast == 255)
            continue;
        int rs = t->values[fast], magbits = rs & 15, len = t->size[fast];
        if (!magbits || len + magbits > FAST_BITS)
            continue;
        int v = ((i << len) & ((1 << FAST_BITS) - 1)) >> (FAST_BITS - magbits);
        if (v < 1 << (magbits - 1))
            v -= (1 << magbits) - 1;
        if (v >= -128 && v <= 127) {
            t->ac_bits[i] = (uint8_t)(len + magbits);
            t->ac_run[i] = (uint8_t)(rs >> 4);
            t->ac_value[i] = (int8_t)v;
        }
    }
    t->defined = 1;
    return 1;
}

/* stbi__jpeg_decode_block: a sequential block's codes. */
static int sequential_block(walker *w, const component *c)
{
    const table *dc = &w->dc[c->hd], *ac = &w->ac[c->ha];
    if (w->code_bits < 16)
        grow(w);
    int t = huff_decode(w, dc), value, st;
    if (t < 0 || t > 15)
        return t == -2 ? -1 : 0;
    if (t && (st = receive(w, t, 1, &value)) != 1)
        return st;
    int k = 1;
    do {
        if (w->code_bits < 16)
            grow(w);
        unsigned i = (w->code_buffer >> (32 - FAST_BITS)) &
                     ((1u << FAST_BITS) - 1);
        if (ac->ac_bits[i]) {
            k += ac->ac_run[i] + 1;
            w->code_buffer <<= ac->ac_bits[i];
            if ((st = use(w, ac->ac_bits[i])) != 1)
                return st;
            continue;
        }
        int rs = huff_decode(w, ac);
        if (rs < 0)
            return rs == -2 ? -1 : 0;
        int s = rs & 15, r = rs >> 4;
        if (s == 0) {
            if (rs != 0xF0)
                break;  /* end of block */
            k += 16;
        } else {
            k += r + 1;
            if ((st = receive(w, s, 1, &value)) != 1)
                return st;
        }
    } while (k < 64);
    return 1;
}

/* The coefficient a progressive scan writes: stb_image keeps value <<
 * shift in a short, which is 0 when the shift pushes every 1 bit out. */
static void put(uint64_t *nonzero, int at, int value, int shift)
{
    uint64_t bit = (uint64_t)1 << at;
    if (((unsigned)value << shift & 0xFFFFu) != 0)
        *nonzero |= bit;
    else
        *nonzero &= ~bit;
}

/* stbi__jpeg_decode_block_prog_dc */
static int dc_block(walker *w, component *c, size_t block)
{
    int value;
    if (w->spec_end != 0)
        return 0;
    if (w->code_bits < 16)
        grow(w);
    if (w->succ_high == 0) {
        c->set[block] = 1;
        c->nonzero[block] = 0;
        int t = huff_decode(w, &w->dc[c->hd]);
        if (t < 0 || t > 15)
            return t == -2 ? -1 : 0;
        return t ? receive(w, t, 1, &value) : 1;
    }
    return get_bit(w, &value);
}

/* stbi__jpeg_decode_block_prog_ac */
static int ac_block(walker *w, component *c, size_t block)
{
    const table *ac = &w->ac[c->ha];
    uint64_t *nz = &c->nonzero[block];
    int st, value, k;
    if (w->spec_start == 0)
        return 0;
    if (w->succ_high == 0) {
        if (w->eob_run) {
            --w->eob_run;
            return 1;
        }
        k = w->spec_start;
        do {
            if (w->code_bits < 16)
                grow(w);
            unsigned i = (w->code_buffer >> (32 - FAST_BITS)) &
                         ((1u << FAST_BITS) - 1);
            if (ac->ac_bits[i]) {
                k += ac->ac_run[i];
                w->code_buffer <<= ac->ac_bits[i];
                if ((st = use(w, ac->ac_bits[i])) != 1)
                    return st;
                put(nz, dezigzag[k++], ac->ac_value[i], w->succ_low);
                continue;
            }
            int rs = huff_decode(w, ac);
            if (rs < 0)
                return rs == -2 ? -1 : 0;
            int s = rs & 15, r = rs >> 4;
            if (s == 0) {
                if (r < 15) {
                    w->eob_run = 1 << r;
                    if (r) {
                        if ((st = receive(w, r, 0, &value)) != 1)
                            return st;
                        w->eob_run += value;
                    }
                    --w->eob_run;
                    break;
                }
                k += 16;
            } else {
                k += r;
                int at = dezigzag[k++];
                if ((st = receive(w, s, 1, &value)) != 1)
                    return st;
                put(nz, at, value, w->succ_low);
            }
        } while (k <= w->spec_end);
        return 1;
    }
    /* A refinement reads a bit for each coefficient already not 0: in a
     * block no first scan set, stb_image reads memory never written. */
    if (!c->set[block]) {
        snprintf(w->why, w->why_len, "corrupt JPEG: the scan at byte %zu "
                 "refines coefficients that no earlier scan set",
                 w->scan_at);
        return -1;
    }
    if (w->eob_run) {
        --w->eob_run;
        for (k = w->spec_start; k <= w->spec_end; ++k)
            if ((*nz >> dezigzag[k] & 1) && (st = get_bit(w, &value)) != 1)
                return st;
        return 1;
    }
    k = w->spec_start;
    do {
        int rs = huff_decode(w, ac);
        if (rs < 0)
            return rs == -2 ? -1 : 0;
        int s = rs & 15, r = rs >> 4;
        if (s == 0) {
            if (r < 15) {
                w->eob_run = (1 << r) - 1;
                if (r) {
                    if ((st = receive(w, r, 0, &value)) != 1)
                        return st;
                    w->eob_run += value;
                }
                r = 64;  /* to the end of the block */
            }
        } else {
            if (s != 1)
                return 0;
            if ((st = get_bit(w, &value)) != 1)  /* its sign */
                return st;
        }
        while (k <= w->spec_end) {
            int at = dezigzag[k++];
            if (*nz >> at & 1) {
                if ((st = get_bit(w, &value)) != 1)
                    return st;
            } else {
                if (r == 0) {
                    if (s != 0)
                        *nz |= (uint64_t)1 << at;
                    break;
                }
                --r;
            }
        }
    } while (k <= w->spec_end);
    return 1;
}

/* stbi__jpeg_reset */
static void reset(walker *w)
{
    w->code_bits = 0;
    w->zeros = 0;
    w->code_buffer = 0;
    w->nomore = 0;
    w->marker = NO_MARKER;
    w->todo = w->restart_interval ? w->restart_interval : 0x7FFFFFFF;
    w->eob_run = 0;
}

/* One block of component n at (bx, by) of its blocks; a progressive
 * scan of several components is a DC scan (or refused by stb_image). */
static int block(walker *w, int n, size_t bx, size_t by)
{
    component *c = &w->c[n];
    size_t at = bx + by * c->bw;
    if (!w->progressive) {
        int st = sequential_block(w, c);
        if (st == 1)
            c->set[at] = 1;
        return st;
    }
    return w->spec_start == 0 || w->scan_n > 1 ? dc_block(w, c, at)
                                               : ac_block(w, c, at);
}

/* After an MCU (last: the scan's last one): at the end of a restart
 * interval, stb_image wants a restart marker, and ends the scan where
 * there is none (it keeps the blocks it has: "corrupt data rather than
 * no data"), which is no fault after the last MCU. Returns 1 (go on),
 * 2 (the scan ended), or -1 (refused: it ended before its last MCU). */
static int restart(walker *w, int last)
{
    if (--w->todo > 0)
        return 1;
    if (w->code_bits < 24)
        grow(w);
    if (w->marker >= 0xD0 && w->marker <= 0xD7) {
        reset(w);
        return 1;
    }
    if (last)
        return 2;
    snprintf(w->why, w->why_len, "corrupt JPEG: the scan at byte %zu "
             "stops before its last block, with no restart marker where "
             "its restart interval ends (byte %zu)", w->scan_at,
             w->marker == NO_MARKER ? w->pos : w->marker_at);
    return -1;
}

/* stbi__parse_entropy_coded_data */
static int scan_data(walker *w)
{
    reset(w);
    int st = 1;
    if (w->scan_n == 1) {  /* every block an MCU, just the pixels' */
        int n = w->order[0];
        size_t bw = (w->c[n].x + 7) >> 3, bh = (w->c[n].y + 7) >> 3;
        for (size_t j = 0; j < bh; ++j)
            for (size_t i = 0; i < bw; ++i) {
                if ((st = block(w, n, i, j)) != 1)
                    return st;
                st = restart(w, j == bh - 1 && i == bw - 1);
                if (st != 1)
                    return st < 0 ? st : 1;
            }
        return 1;
    }
    for (size_t j = 0; j < w->mcu_y; ++j)
        for (size_t i = 0; i < w->mcu_x; ++i) {
            for (int k = 0; k < w->scan_n; ++k) {
                component *c = &w->c[w->order[k]];
                for (int y = 0; y < c->v; ++y)
                    for (int x = 0; x < c->h; ++x) {
                        st = block(w, w->order[k], i * (size_t)c->h + x,
                                   j * (size_t)c->v + y);
                        if (st != 1)
                            return st;
                    }
            }
            st = restart(w, j == w->mcu_y - 1 && i == w->mcu_x - 1);
            if (st != 1)
                return st < 0 ? st : 1;
        }
    return 1;
}

/* stbi__get_marker */
static int get_marker(walker *w)
{
    if (w->marker != NO_MARKER) {
        int m = w->marker;
        w->marker = NO_MARKER;
        return m;
    }
    unsigned x = get8(w);
    if (x != 0xFF)
        return NO_MARKER;
    while (x == 0xFF)
        x = get8(w);
    return (int)x;
}

/* stbi__process_marker: 1, or 0 where stb_image fails. */
static int process_marker(walker *w, int m)
{
    long left;
    switch (m) {
    case NO_MARKER:
        return 0;
    case 0xDD:
        if (get16(w) != 4)
            return 0;
        w->restart_interval = (int)get16(w);
        return 1;
    case 0xDB:
        left = (long)get16(w) - 2;
        while (left > 0) {
            unsigned q = get8(w);
            if ((q >> 4) > 1 || (q & 15) > 3)
                return 0;
            skip(w, q >> 4 ? 128 : 64);
            left -= q >> 4 ? 129 : 65;
        }
        return left == 0;
    case 0xC4:
        left = (long)get16(w) - 2;
        while (left > 0) {
            int count[16], codes = 0;
            unsigned q = get8(w), tc = q >> 4, th = q & 15;
            if (tc > 1 || th > 3)
                return 0;
            for (int i = 0; i < 16; ++i)
                codes += count[i] = (int)get8(w);
            if (codes > 256)
                return 0;  /* refused before (image_format.c) */
            left -= 17;
            table *t = tc ? &w->ac[th] : &w->dc[th];
            t->defined = 0;
            for (int i = 0; i < codes; ++i)  /* read before it is built */
                t->values[i] = (uint8_t)get8(w);
            if (!build_table(t, count, tc != 0))
                return 0;
            left -= codes;
        }
        return left == 0;
    }
    if ((m >= 0xE0 && m <= 0xEF) || m == 0xFE) {
        long bytes = (long)get16(w);
        if (bytes < 2)
            return 0;
        skip(w, (size_t)(bytes - 2));
        return 1;
    }
    return 0;
}

/* stbi__process_scan_header: 1, or 0 where stb_image fails; -1 for a
 * table never defined (refused before, image_format.c). */
static int scan_header(walker *w)
{
    unsigned length = get16(w);
    w->scan_n = (int)get8(w);
    if (w->scan_n < 1 || w->scan_n > 4 || w->scan_n > w->n ||
        length != 6 + 2 * (unsigned)w->scan_n)
        return 0;
    for (int i = 0; i < w->scan_n; ++i) {
        int id = (int)get8(w), q = (int)get8(w), which;
        for (which = 0; which < w->n; ++which)
            if (w->c[which].id == id)
                break;
        if (which == w->n || (q >> 4) > 3 || (q & 15) > 3)
            return 0;
        w->c[which].hd = q >> 4;
        w->c[which].ha = q & 15;
        w->order[i] = which;
    }
    w->spec_start = (int)get8(w);
    w->spec_end = (int)get8(w);
    unsigned aa = get8(w);
    w->succ_high = (int)(aa >> 4);
    w->succ_low = (int)(aa & 15);
    if (w->progressive) {
        if (w->spec_start > 63 || w->spec_end > 63 ||
            w->spec_start > w->spec_end || w->succ_high > 13 ||
            w->succ_low > 13)
            return 0;
    } else {
        if (w->spec_start != 0 || w->succ_high != 0 || w->succ_low != 0)
            return 0;
        w->spec_end = 63;
    }
    for (int i = 0; i < w->scan_n; ++i) {
        const component *c = &w->c[w->order[i]];
        int dc = !w->progressive ||
                 (w->spec_start == 0 && w->succ_high == 0);
        int ac = !w->progressive || w->spec_start != 0;
        if ((dc && !w->dc[c->hd].defined) || (ac && !w->ac[c->ha].defined)) {
            snprintf(w->why, w->why_len, "corrupt JPEG: the scan at byte %zu "
                     "uses a Huffman table no segment before it defines",
                     w->scan_at);
            return -1;
        }
    }
    return 1;
}

/* stbi__process_frame_header, with the sizes stbi__decode_jpeg_image
 * works with: 1, 0 where stb_image fails, -1 without memory. */
static int frame_header(walker *w)
{
    unsigned length = get16(w);
    if (length < 11 || get8(w) != 8)
        return 0;
    size_t height = get16(w), width = get16(w);
    if (height == 0 || width == 0)
        return 0;
    if (width * height > w->max_pixels) {
        snprintf(w->why, w->why_len, "the JPEG frame of %zu x %zu pixels is "
                 "more than %zu", width, height, w->max_pixels);
        return -1;
    }
    w->height = height;
    w->n = (int)get8(w);
    if ((w->n != 1 && w->n != 3 && w->n != 4) ||
        length != 8 + 3 * (unsigned)w->n)
        return 0;
    int h_max = 1, v_max = 1;
    for (int i = 0; i < w->n; ++i) {
        component *c = &w->c[i];
        c->id = (int)get8(w);
        unsigned q = get8(w);
        c->h = (int)(q >> 4);
        c->v = (int)(q & 15);
        c->tq = (int)get8(w);
        if (!c->h || c->h > 4 || !c->v || c->v > 4 || c->tq > 3)
            return 0;
        h_max = c->h > h_max ? c->h : h_max;
        v_max = c->v > v_max ? c->v : v_max;
    }
    w->mcu_x = (width + (size_t)h_max * 8 - 1) / ((size_t)h_max * 8);
    w->mcu_y = (height + (size_t)v_max * 8 - 1) / ((size_t)v_max * 8);
    for (int i = 0; i < w->n; ++i) {
        component *c = &w->c[i];
        if (h_max % c->h || v_max % c->v)
            return 0;
        c->x = (width * (size_t)c->h + (size_t)h_max - 1) / (size_t)h_max;
        c->y = (height * (size_t)c->v + (size_t)v_max - 1) / (size_t)v_max;
        c->bw = w->mcu_x * (size_t)c->h;
        c->bh = w->mcu_y * (size_t)c->v;
        c->set = calloc(c->bw * c->bh, 1);
        if (w->progressive)
            c->nonzero = calloc(c->bw * c->bh, sizeof *c->nonzero);
        if (!c->set || (w->progressive && !c->nonzero)) {
            snprintf(w->why, w->why_len, "not enough memory to walk the "
                     "JPEG's scans");
            return -1;
        }
    }
    return 1;
}

/* Every block of the image's pixels decoded, as stb_image makes pixels
 * of all of them. */
static int all_set(walker *w)
{
    for (int n = 0; n < w->n; ++n) {
        const component *c = &w->c[n];
        for (size_t j = 0; j < (c->y + 7) >> 3; ++j)
            for (size_t i = 0; i < (c->x + 7) >> 3; ++i)
                if (!c->set[i + j * c->bw]) {
                    snprintf(w->why, w->why_len, "corrupt JPEG: no scan "
                             "decodes block (%zu, %zu) of component %d", i,
                             j, n + 1);
                    return -1;
                }
    }
    return 0;
}

/* stbi__decode_jpeg_header and stbi__decode_jpeg_image */
static int walk(walker *w)
{
    int m = get_marker(w), st;
    if (m != 0xD8)
        return 0;
    m = get_marker(w);
    while (m != 0xC0 && m != 0xC1 && m != 0xC2) {
        if (!process_marker(w, m))
            return 0;
        m = get_marker(w);
        while (m == NO_MARKER) {
            if (at_eof(w))
                return 0;
            m = get_marker(w);
        }
    }
    w->progressive = m == 0xC2;
    if ((st = frame_header(w)) != 1)
        return st;
    for (m = get_marker(w); m != 0xD9; m = get_marker(w)) {
        if (m == 0xDA) {
            w->scan_at = w->pos - 2;
            if ((st = scan_header(w)) != 1 || (st = scan_data(w)) != 1)
                return st;
            if (w->marker == NO_MARKER)  /* zeros after the data */
                while (!at_eof(w))
                    if (get8(w) == 0xFF) {
                        w->marker = (int)get8(w);
                        break;
                    }
        } else if (m == 0xDC) {  /* DNL: the height the frame said */
            unsigned length = get16(w), lines = get16(w);
            if (length != 4 || lines != w->height)
                return 0;
        } else if (!process_marker(w, m)) {
            return 0;
        }
    }
    return all_set(w);
}

int jpeg_walk_codes(const unsigned char *data, size_t len,
                    size_t max_pixels, char *why, size_t why_len)
{
    walker *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(why, why_len, "not enough memory to walk the JPEG's "
                 "scans");
        return -1;
    }
    w->d = data;
    w->len = len;
    w->max_pixels = max_pixels;
    w->marker = NO_MARKER;
    w->why = why;
    w->why_len = why_len;
    int st = walk(w);
    for (int i = 0; i < 4; i++) {
        free(w->c[i].set);
        free(w->c[i].nonzero);
    }
    free(w);
    return st < 0 ? -1 : 0;
}
