/* corpus_jpeg_bits.h - the JPEG writer's tables and bit writer
 * (corpus_jpeg_bits.c), shared with the encoder (corpus_jpeg.c) only.
 *
 *   writer w = {&out, 0, 0, 0};
 *   cj_put_dht(&w, 0x00, &cj_dc_luma);       a table segment
 *   cj_encode_dc(&w, &codes, dc, &pred);     one block's coefficients
 *   cj_flush_bits(&w);                       the end of a scan
 */
#ifndef CORPUS_JPEG_BITS_H
#define CORPUS_JPEG_BITS_H

#include <stddef.h>
#include <stdint.h>

#include "corpus_jpeg.h"

/* Coefficient k of a block in zigzag order is cj_natural[k] in
 * row-major. */
extern const uint8_t cj_natural[64];
/* Annex K.1: the example quantization tables, row-major. */
extern const uint8_t cj_luma_q[64], cj_chroma_q[64];

/* Annex K.3: the example Huffman tables, as code counts per length 1..16
 * and symbols in code order. */
typedef struct {
    uint8_t bits[16];
    uint8_t vals[162];
    int nvals;
} huff_spec;
extern const huff_spec cj_dc_luma, cj_dc_chroma, cj_ac_luma, cj_ac_chroma;

/* A symbol's code and length (0: the table has no such symbol). */
typedef struct {
    uint16_t code[256];
    uint8_t len[256];
} huff_codes;

/* Each symbol's code (Annex C). */
void cj_make_codes(const huff_spec *spec, huff_codes *hc);

/* The bytes of a file being written into out; failed once memory ran
 * out (nothing more is written). */
typedef struct {
    cj_buffer *out;
    uint32_t acc;  /* the bits not yet written, the last `n` of acc */
    int n;
    int failed;
} writer;

void cj_put_bytes(writer *w, const void *bytes, size_t n);
void cj_put_byte(writer *w, unsigned byte);
void cj_put_u16(writer *w, unsigned v);
/* Entropy-coded bits, MSB first, with 0xff stuffed (F.1.2.3). */
void cj_put_bits(writer *w, unsigned bits, int len);
/* The end of a scan: the last byte filled with 1 bits. */
void cj_flush_bits(writer *w);
/* A DHT segment for table class_id (class << 4 | id). */
void cj_put_dht(writer *w, int class_id, const huff_spec *spec);

/* A block's DC coefficient, as the difference from *pred (updated). */
void cj_encode_dc(writer *w, const huff_codes *hc, int dc, int *pred);
/* A block's coefficients ss..se, b in zigzag order (F.1.2.2, G.1.2.2). */
void cj_encode_ac(writer *w, const huff_codes *hc, const int16_t *b,
                  int ss, int se);

#endif /* CORPUS_JPEG_BITS_H */
