/* jpeg_walk_internal.h - what the two halves of the walk of a JPEG's
 * codes share (jpeg_walk.h): the walker, stb_image 2.27's state as its
 * decoder keeps it; its byte reads; and the decode of one block, with
 * the bit reader and Huffman tables under it (jpeg_walk_codes.c). The
 * segments, frames and scans are jpeg_walk.c's.
 */
#ifndef JPEG_WALK_INTERNAL_H
#define JPEG_WALK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

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

/* stbi__get8 and stbi__at_eof: past the end, stb_image reads zeros. */
static inline unsigned jw_get8(walker *w)
{
    return w->pos < w->len ? w->d[w->pos++] : 0;
}

static inline unsigned jw_get16(walker *w)
{
    unsigned hi = jw_get8(w);
    return hi << 8 | jw_get8(w);
}

static inline void jw_skip(walker *w, size_t n)
{
    w->pos = n > w->len - w->pos ? w->len : w->pos + n;
}

static inline int jw_at_eof(const walker *w) { return w->pos >= w->len; }

/* stbi__grow_buffer_unsafe: see jpeg_walk_codes.c. */
void jw_grow(walker *w);

/* stbi__build_huffman, then stbi__build_fast_ac for an AC table. Returns
 * 1, or 0 where stb_image refuses the code lengths. */
int jw_build_table(table *t, const int count[16], int ac);

/* One block's codes: stbi__jpeg_decode_block (sequential), and the
 * progressive DC and AC ones, block `block` of component c. Each returns
 * 1, 0 where stb_image fails (the walk stops, saying nothing), or -1
 * with w->why (refused). */
int jw_sequential_block(walker *w, const component *c);
int jw_dc_block(walker *w, component *c, size_t block);
int jw_ac_block(walker *w, component *c, size_t block);

#endif /* JPEG_WALK_INTERNAL_H */
