/* corpus_jpeg_bits.c - what corpus_jpeg.c writes a JPEG with, after
 * ITU-T T.81: Annex K's example tables, Annex C's Huffman codes, and the
 * bit writer of the entropy-coded data (F.1.2), down to one block's DC
 * and AC coefficients. */
#include "corpus_jpeg_bits.h"

#include <stdlib.h>
#include <string.h>

/* Coefficient k of a block in zigzag order is cj_natural[k] in
 * row-major. */
const uint8_t cj_natural[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

/* Annex K.1: the example quantization tables, row-major. */
const uint8_t cj_luma_q[64] = {
    16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
    14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
    18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
const uint8_t cj_chroma_q[64] = {
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
    24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};

const huff_spec cj_dc_luma = {
    {0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 12};
const huff_spec cj_dc_chroma = {
    {0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 12};
const huff_spec cj_ac_luma = {
    {0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 125},
    {0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06,
     0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08,
     0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72,
     0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
     0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45,
     0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
     0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75,
     0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
     0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3,
     0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6,
     0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9,
     0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
     0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4,
     0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa}, 162};
const huff_spec cj_ac_chroma = {
    {0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 119},
    {0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41,
     0x51, 0x07, 0x61, 0x71, 0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91,
     0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1,
     0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
     0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44,
     0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
     0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74,
     0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
     0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a,
     0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4,
     0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
     0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
     0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4,
     0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa}, 162};


/* Annex C: codes of each length are consecutive, and a length's first
 * code is the previous length's next one, shifted left by one. */
void cj_make_codes(const huff_spec *spec, huff_codes *hc)
{
    memset(hc, 0, sizeof *hc);
    unsigned code = 0;
    int k = 0;
    for (int len = 1; len <= 16; len++) {
        for (int i = 0; i < spec->bits[len - 1]; i++, k++) {
            hc->code[spec->vals[k]] = (uint16_t)code++;
            hc->len[spec->vals[k]] = (uint8_t)len;
        }
        code <<= 1;
    }
}

/* ---- output ---- */

void cj_put_bytes(writer *w, const void *bytes, size_t n)
{
    cj_buffer *b = w->out;
    if (w->failed)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *data = (uint8_t *)realloc(b->data, cap);
        if (!data) {
            w->failed = 1;
            return;
        }
        b->data = data;
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
}

void cj_put_byte(writer *w, unsigned byte)
{
    uint8_t c = (uint8_t)byte;
    cj_put_bytes(w, &c, 1);
}

void cj_put_u16(writer *w, unsigned v)
{
    cj_put_byte(w, v >> 8);
    cj_put_byte(w, v & 0xff);
}

/* Entropy-coded data: bits MSB first; a 0xff byte is followed by 0x00 so
 * that it cannot be read as a marker (F.1.2.3). */
void cj_put_bits(writer *w, unsigned bits, int len)
{
    w->acc = (w->acc << len) | (bits & ((1u << len) - 1));
    w->n += len;
    while (w->n >= 8) {
        unsigned byte = (w->acc >> (w->n - 8)) & 0xff;
        cj_put_byte(w, byte);
        if (byte == 0xff)
            cj_put_byte(w, 0);
        w->n -= 8;
    }
    w->acc &= (1u << w->n) - 1;
}

/* The end of a scan: the last byte is filled with 1 bits (F.1.2.3). */
void cj_flush_bits(writer *w)
{
    if (w->n > 0)
        cj_put_bits(w, (1u << (8 - w->n)) - 1, 8 - w->n);
}

static void put_symbol(writer *w, const huff_codes *hc, int symbol)
{
    cj_put_bits(w, hc->code[symbol], hc->len[symbol]);
}

/* F.1.2.1: a value is sent as its size category (the number of bits of
 * its magnitude) and then that many bits: the value itself when
 * positive, value - 1 in two's complement when negative. */
static int category(int v)
{
    unsigned m = (unsigned)(v < 0 ? -v : v);
    int n = 0;
    while (m) {
        n++;
        m >>= 1;
    }
    return n;
}

static void put_value(writer *w, int v, int size)
{
    if (size)
        cj_put_bits(w, (unsigned)(v < 0 ? v - 1 : v), size);
}

void cj_put_dht(writer *w, int class_id, const huff_spec *spec)
{
    cj_put_byte(w, 0xff);
    cj_put_byte(w, 0xc4);
    cj_put_u16(w, (unsigned)(2 + 1 + 16 + spec->nvals));
    cj_put_byte(w, (unsigned)class_id);
    cj_put_bytes(w, spec->bits, 16);
    cj_put_bytes(w, spec->vals, (size_t)spec->nvals);
}

void cj_encode_dc(writer *w, const huff_codes *hc, int dc, int *pred)
{
    int diff = dc - *pred;
    *pred = dc;
    int size = category(diff);
    put_symbol(w, hc, size);
    put_value(w, diff, size);
}

/* Coefficients ss..se of one block (F.1.2.2 for baseline, G.1.2.2 for a
 * progressive first AC scan): runs of zeros before each non-zero value,
 * 0xf0 for sixteen zeros, and 0x00 (end of band; in a progressive scan an
 * end-of-band run of one block) when only zeros remain. */
void cj_encode_ac(writer *w, const huff_codes *hc, const int16_t *b,
                  int ss, int se)
{
    int run = 0;
    for (int k = ss; k <= se; k++) {
        if (b[k] == 0) {
            run++;
            continue;
        }
        while (run > 15) {
            put_symbol(w, hc, 0xf0);
            run -= 16;
        }
        int size = category(b[k]);
        put_symbol(w, hc, (run << 4) | size);
        put_value(w, b[k], size);
        run = 0;
    }
    if (run > 0)
        put_symbol(w, hc, 0x00);
}
