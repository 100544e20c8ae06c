/* jpeg_walk_codes.c - the codes of one block, read as stb_image 2.27
 * reads them (jpeg_walk_internal.h): its bit buffer, which a marker
 * stops and zeros fill from there; its Huffman tables, with the fast
 * ones; and its block decoders, sequential and progressive, which keep,
 * instead of coefficients, what decides how many bits it reads next:
 * which coefficients of a progressive block are not 0. Each function
 * follows the stb_image function named beside it, in the same order and
 * with the same reads.
 */
#include "jpeg_walk_internal.h"

#include <stdio.h>
#include <string.h>

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

/* stbi__grow_buffer_unsafe: bytes into the bit buffer until it holds
 * more than 24 bits, or a marker stops it (then zeros from there on).
 * The walk stops before a code takes one of those zeros, and so before
 * code_bits is negative: the shift is in range here, and in stb_image
 * it is not always. */
void jw_grow(walker *w)
{
    do {
        unsigned b = w->nomore ? 0 : jw_get8(w);
        if (b == 0xFF) {
            unsigned c = jw_get8(w);
            while (c == 0xFF)
                c = jw_get8(w);
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
        jw_grow(w);
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
        jw_grow(w);
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
        jw_grow(w);
    *bit = (int)(w->code_buffer >> 31);
    w->code_buffer <<= 1;
    return use(w, 1);
}

/* What a failed huff_decode (or a DC symbol over 15) means here: -1
 * refused, or 0 where stb_image fails. */
static int failed(int symbol) { return symbol == -2 ? -1 : 0; }

/* A run of end-of-band blocks, 2^r plus r bits more, this block among
 * them: the rest to skip in w->eob_run. Returns 1, or -1 (refused). */
static int eob_run(walker *w, int r)
{
    int value = 0, st = r ? receive(w, r, 0, &value) : 1;
    w->eob_run = (1 << r) + value - 1;
    return st;
}

/* stb_image's fast_ac: the table index of a short AC code decoded with
 * its value at once, from the buffer's top bits (grown first), or -1
 * when the code there is not one. */
static int fast_ac(walker *w, const table *ac)
{
    if (w->code_bits < 16)
        jw_grow(w);
    unsigned i = (w->code_buffer >> (32 - FAST_BITS)) &
                 ((1u << FAST_BITS) - 1);
    return ac->ac_bits[i] ? (int)i : -1;
}

int jw_build_table(table *t, const int count[16], int ac)
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
int jw_sequential_block(walker *w, const component *c)
{
    const table *dc = &w->dc[c->hd], *ac = &w->ac[c->ha];
    if (w->code_bits < 16)
        jw_grow(w);
    int t = huff_decode(w, dc), value, st;
    if (t < 0 || t > 15)
        return failed(t);
    if (t && (st = receive(w, t, 1, &value)) != 1)
        return st;
    int k = 1;
    do {
        int i = fast_ac(w, ac);
        if (i >= 0) {
            k += ac->ac_run[i] + 1;
            w->code_buffer <<= ac->ac_bits[i];
            if ((st = use(w, ac->ac_bits[i])) != 1)
                return st;
            continue;
        }
        int rs = huff_decode(w, ac);
        if (rs < 0)
            return failed(rs);
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
int jw_dc_block(walker *w, component *c, size_t block)
{
    int value;
    if (w->spec_end != 0)
        return 0;
    if (w->code_bits < 16)
        jw_grow(w);
    if (w->succ_high == 0) {
        c->set[block] = 1;
        c->nonzero[block] = 0;
        int t = huff_decode(w, &w->dc[c->hd]);
        if (t < 0 || t > 15)
            return failed(t);
        return t ? receive(w, t, 1, &value) : 1;
    }
    return get_bit(w, &value);
}

/* stbi__jpeg_decode_block_prog_ac */
int jw_ac_block(walker *w, component *c, size_t block)
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
            int i = fast_ac(w, ac);
            if (i >= 0) {
                k += ac->ac_run[i];
                w->code_buffer <<= ac->ac_bits[i];
                if ((st = use(w, ac->ac_bits[i])) != 1)
                    return st;
                put(nz, dezigzag[k++], ac->ac_value[i], w->succ_low);
                continue;
            }
            int rs = huff_decode(w, ac);
            if (rs < 0)
                return failed(rs);
            int s = rs & 15, r = rs >> 4;
            if (s == 0) {
                if (r < 15)
                    return eob_run(w, r);
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
            return failed(rs);
        int s = rs & 15, r = rs >> 4;
        if (s == 0) {
            if (r < 15) {
                if ((st = eob_run(w, r)) != 1)
                    return st;
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
