/* jpeg_screen.c - the header walk that sends a file to the GPU decoder or
 * to the CPU, and the choice of decoders for a run. */
#include "jpeg_screen.h"

#include <string.h>

const char DECODER_NOT_BUILT[] =
    "GPU JPEG decode not built: nvjpeg.h was not found at build time "
    "(make nvjpeg fetches it, then make rebuilds with it)";

static size_t be16(const uint8_t *p)
{
    return ((size_t)p[0] << 8) | p[1];
}

/* Reads a frame header (SOFn) segment of seg_len bytes at p. */
static const char *read_frame(const uint8_t *p, size_t seg_len,
                              js_header *h)
{
    if (seg_len < 8)
        return "JPEG frame header too short";
    h->precision = p[2];
    h->height = be16(p + 3);
    h->width = be16(p + 5);
    h->components = p[7];
    if (seg_len < 8 + 3 * (size_t)h->components)
        return "JPEG frame header too short";
    for (int c = 0; c < h->components && c < 4; c++) {
        h->component_id[c] = p[8 + 3 * c];
        h->h[c] = p[9 + 3 * c] >> 4;
        h->v[c] = p[9 + 3 * c] & 15;
    }
    return NULL;
}

/* The walk: SOI, then segments up to the first SOS. Fills h; returns a
 * reason if the header itself is unusable. */
static const char *walk(const uint8_t *data, size_t len, js_header *h)
{
    /* stb_image skips 0xFF fill bytes before SOI (image_format.c walks
       such a file); the GPU path wants SOI first, so it goes to the CPU,
       and the reason says why. */
    if (len >= 4 && data[0] == 0xFF && data[1] == 0xFF)
        return "fill bytes before the JPEG's start marker";
    if (len < 4 || data[0] != 0xFF || data[1] != 0xD8)
        return "not a JPEG";
    size_t at = 2;
    for (;;) {
        /* A marker is 0xFF, any fill bytes 0xFF, then its code. */
        if (at >= len || data[at] != 0xFF)
            return "JPEG header is not a sequence of markers";
        while (at < len && data[at] == 0xFF)
            at++;
        if (at >= len)
            return "JPEG cut short in its header";
        int marker = data[at++];
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7))
            continue;  /* standalone markers: no length */
        if (marker == 0xD9)
            return "JPEG ends before its first scan";
        if (at + 2 > len)
            return "JPEG cut short in its header";
        size_t seg_len = be16(data + at);
        if (seg_len < 2 || at + seg_len > len)
            return "JPEG cut short in its header";
        const uint8_t *p = data + at;
        if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 &&
            marker != 0xC8 && marker != 0xCC) {
            if (h->sof)
                return "JPEG with two frame headers";
            h->sof = marker;
            const char *why = read_frame(p, seg_len, h);
            if (why)
                return why;
        } else if (marker == 0xE0 && seg_len >= 7 &&
                   memcmp(p + 2, "JFIF", 5) == 0) {
            h->jfif = 1;
        } else if (marker == 0xEE && seg_len >= 14 &&
                   memcmp(p + 2, "Adobe", 5) == 0) {
            h->adobe_transform = p[13];
        } else if (marker == 0xDA) {
            h->scan_components = seg_len >= 3 ? p[2] : 0;
            return h->sof ? NULL : "JPEG scan before its frame header";
        }
        at += seg_len;
    }
}

/* The chroma subsamplings the hardware decodes: Cb and Cr at 1 x 1, Y at
 * 1 x 1 (4:4:4), 2 x 1 (4:2:2), 2 x 2 (4:2:0) or 1 x 2 (4:4:0). With Y
 * at the largest factors, stb_image's gray is that Y plane as decoded, so
 * the two decoders can be compared pixel for pixel. */
static int hardware_subsampling(const js_header *h)
{
    if (h->h[1] != 1 || h->v[1] != 1 || h->h[2] != 1 || h->v[2] != 1)
        return 0;
    return (h->h[0] == 1 || h->h[0] == 2) && (h->v[0] == 1 || h->v[0] == 2);
}

static int rgb_coded(const js_header *h)
{
    return (h->component_id[0] == 'R' && h->component_id[1] == 'G' &&
            h->component_id[2] == 'B') ||
           (h->adobe_transform == 0 && !h->jfif);
}

int js_hybrid_ok(const uint8_t *data, size_t len)
{
    js_header h;
    memset(&h, 0, sizeof h);
    h.adobe_transform = -1;
    if (walk(data, len, &h) != NULL)
        return 0;
    /* Huffman-coded, sequential or progressive, 8 bits */
    if ((h.sof != 0xC0 && h.sof != 0xC1 && h.sof != 0xC2) ||
        h.precision != 8 || h.width == 0 || h.height == 0)
        return 0;
    if (h.components == 1)
        return 1;
    /* Y, Cb, Cr with Y at full size: its plane is stb_image's gray */
    return h.components == 3 && !rgb_coded(&h) && hardware_subsampling(&h);
}

const char *js_screen(const uint8_t *data, size_t len, js_header *out)
{
    js_header h;
    memset(&h, 0, sizeof h);
    h.adobe_transform = -1;
    const char *why = walk(data, len, &h);
    if (out)
        *out = h;
    if (why)
        return why;
    switch (h.sof) {
    case 0xC0: case 0xC1:
        break;  /* baseline, extended sequential: Huffman, one pass */
    case 0xC2: case 0xC6:
        return "progressive JPEG";
    case 0xC3: case 0xC7:
        return "lossless JPEG";
    case 0xCA: case 0xCE:
        return "progressive JPEG";  /* and arithmetic-coded */
    default:
        return "arithmetic-coded JPEG";
    }
    if (h.precision != 8)
        return "JPEG of 12 or more bits per sample";
    if (h.components == 4)
        return "4-component JPEG (CMYK or YCCK)";
    if (h.components != 1 && h.components != 3)
        return "JPEG with neither 1 nor 3 components";
    if (h.width == 0 || h.height == 0)
        return "JPEG frame header gives no size";
    if (h.components == 1)
        return NULL;
    /* stb_image's test: such a file holds R, G, B, not Y, Cb, Cr, and its
     * gray is computed from the three, so it is decoded where that is
     * done. */
    if (rgb_coded(&h))
        return "RGB-coded JPEG";
    if (!hardware_subsampling(&h))
        return "JPEG chroma subsampling other than 4:4:4, 4:2:2, 4:2:0 "
               "and 4:4:0";
    if (h.scan_components != h.components)
        return "JPEG in several scans (one per component)";
    return NULL;
}

decoder_plan decoder_choose(decoder_request request, int nvjpeg_built,
                            int any_jpeg)
{
    decoder_plan p = {0, 0, NULL, NULL};
    if (request == DECODER_CPU) {
        p.cpu_why = "--decoder cpu";
        return p;
    }
    if (request == DECODER_GPU) {
        p.try_nvjpeg = nvjpeg_built;
        p.fail = !nvjpeg_built;
        p.note = p.cpu_why = nvjpeg_built ? NULL : DECODER_NOT_BUILT;
        return p;
    }
    /* auto: the GPU where it can decode these files as they are. */
    if (!any_jpeg) {
        p.cpu_why = "no JPEG in the batch";
    } else if (!nvjpeg_built) {
        p.note = "GPU JPEG decode not built: nvjpeg.h was not found at "
                 "build time (make nvjpeg fetches it); decoding on the CPU";
        p.cpu_why = "GPU JPEG decode not built";
    } else {
        p.try_nvjpeg = 1;
    }
    return p;
}
