/* nvjpeg_none.c - the GPU decoder of a build without nvJPEG
 * (CM_HAVE_NVJPEG undefined; see extra.mk): nj_built() is 0 and nj_open
 * fails with DECODER_NOT_BUILT, so the decoder (decoder.cu) never has an
 * engine and no other nj_ function is reached. They exist so that the
 * program links the same way with or without nvJPEG. In a build with it,
 * nvjpeg_decoder.cu defines them and this file is empty.
 */
#include "jpeg_screen.h"
#include "nvjpeg_decoder.h"

#ifndef CM_HAVE_NVJPEG

#include <stdio.h>

int nj_built(void) { return 0; }

int nj_engine_present(char *why, size_t why_len)
{
    snprintf(why, why_len, "%s", DECODER_NOT_BUILT);
    return 0;
}

nj_engine *nj_open(const nj_config *cfg, int *fatal, char *why,
                   size_t why_len)
{
    (void)cfg;
    *fatal = 0;
    snprintf(why, why_len, "%s", DECODER_NOT_BUILT);
    return NULL;
}

const char *nj_describe(const nj_engine *e) { (void)e; return "none"; }

int nj_batched(const nj_engine *e) { (void)e; return 0; }

int nj_hardware(const nj_engine *e) { (void)e; return 0; }

const char *nj_screen(nj_engine *e, int parser, const uint8_t *data,
                      size_t len)
{
    (void)e; (void)parser; (void)data; (void)len;
    return DECODER_NOT_BUILT;
}

int nj_decode(nj_engine *e, int state, int gray_files, cudaStream_t stream,
              const uint8_t *const *data, const size_t *lengths,
              const nj_dest *dests, int n, char *why, size_t why_len)
{
    (void)e; (void)state; (void)gray_files; (void)stream; (void)data;
    (void)lengths; (void)dests; (void)n;
    snprintf(why, why_len, "%s", DECODER_NOT_BUILT);
    return -1;
}

int nj_parsed_size(nj_engine *e, int parser, size_t *width, size_t *height)
{
    (void)e; (void)parser; (void)width; (void)height;
    return -1;
}

int nj_hybrid_decode(nj_engine *e, int parser, const uint8_t *data,
                     size_t len, const nj_dest *dest, int planes, char *why,
                     size_t why_len)
{
    (void)e; (void)parser; (void)data; (void)len; (void)dest; (void)planes;
    snprintf(why, why_len, "%s", DECODER_NOT_BUILT);
    return -1;
}

int nj_hybrid_ready(const nj_engine *e) { (void)e; return 0; }

void nj_allocations(const nj_engine *e, nj_memory *m)
{
    (void)e;
    m->device_allocs = m->device_bytes = 0;
    m->pinned_allocs = m->pinned_bytes = 0;
}

void nj_close(nj_engine *e) { (void)e; }

#else

typedef int nj_none_is_empty;  /* ISO C wants a declaration in a file */

#endif /* CM_HAVE_NVJPEG */
