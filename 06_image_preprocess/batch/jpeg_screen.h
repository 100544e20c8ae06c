/* jpeg_screen.h - which files of a batch the GPU's JPEG decoder may take,
 * decided from their headers on the CPU, and which decoder a run uses.
 *
 *   js_header h;
 *   const char *why = js_screen(data, len, &h);
 *   if (why) ... the file goes to the CPU decode threads, because `why` ...
 *   decoder_plan p = decoder_choose(DECODER_AUTO, nj_built(), 1);
 *
 * Pure functions of bytes and flags: no GPU, no nvJPEG, so the CPU tests
 * check every decision. nvJPEG's own nvjpegDecodeBatchedSupported is asked
 * too (nvjpeg_decoder.cu), for what a header walk cannot know.
 */
#ifndef JPEG_SCREEN_H
#define JPEG_SCREEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the walk up to the first scan (SOS) found. */
typedef struct {
    int sof;            /* frame marker 0xC0..0xCF, 0 if none was found */
    int precision;      /* bits per sample */
    size_t width, height;
    int components;
    int component_id[4], h[4], v[4];  /* sampling factors */
    int scan_components;              /* in the first scan */
    int jfif;           /* an APP0 JFIF segment was seen */
    int adobe_transform;  /* APP14 Adobe colour transform, -1 if absent */
} js_header;

/* Walks a JPEG's header. Returns NULL if nvJPEG's hardware decoder may
 * take the file in a batch (8-bit baseline or extended Huffman, one
 * interleaved scan, gray or YCbCr 4:4:4, 4:2:2, 4:2:0 or 4:4:0), else a
 * short reason for sending it to the CPU ("progressive JPEG", "not a
 * JPEG", ...), a string constant. h may be NULL. */
const char *js_screen(const uint8_t *data, size_t len, js_header *h);

/* 1 if nvJPEG's hybrid path (nvjpeg_decoder.cu) may take a file that
 * js_screen sent away: an 8-bit Huffman-coded JPEG, sequential or
 * progressive (one scan or several), gray or YCbCr with the Y component
 * at full size (4:4:4, 4:2:2, 4:2:0, 4:4:0), so that its Y plane is
 * what stb_image returns as gray. Else 0: stb_image decodes it. */
int js_hybrid_ok(const uint8_t *data, size_t len);

typedef enum { DECODER_AUTO, DECODER_GPU, DECODER_CPU } decoder_request;

/* The decoders a run uses, decided before the GPU is touched. */
typedef struct {
    int try_nvjpeg;    /* 1: open nvJPEG and screen every file for it */
    int fail;          /* 1: the request cannot be met; note says why */
    /* a line for the report when the request could not be met as asked
     * (NULL if none), a string constant */
    const char *note;
    /* without nvJPEG: why every file goes to stb_image, for the routed:
     * line (a string constant); NULL when try_nvjpeg */
    const char *cpu_why;
} decoder_plan;

/* The plan for a batch: request is --decoder; nvjpeg_built says whether
 * this program was built with nvJPEG; any_jpeg whether a file of the
 * batch is a JPEG. (Resizing is the GPU kernel's, whatever decodes.) */
decoder_plan decoder_choose(decoder_request request, int nvjpeg_built,
                            int any_jpeg);

/* The message of a build without nvJPEG; --decoder gpu then fails with
 * it (exit 1), --decoder auto says it and decodes on the CPU. */
extern const char DECODER_NOT_BUILT[];

#ifdef __cplusplus
}
#endif

#endif /* JPEG_SCREEN_H */
