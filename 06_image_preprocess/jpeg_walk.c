/* jpeg_walk.c - a JPEG's Huffman codes read as stb_image 2.27 reads them
 * (jpeg_walk.h): its segments, frame and scans, each step following the
 * stb_image function named beside it, in the same order and with the
 * same reads, so that the walk meets a marker where stb_image meets it;
 * the codes of each block are jpeg_walk_codes.c's.
 */
#include "jpeg_walk.h"
#include "jpeg_walk_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        int st = jw_sequential_block(w, c);
        if (st == 1)
            c->set[at] = 1;
        return st;
    }
    return w->spec_start == 0 || w->scan_n > 1 ? jw_dc_block(w, c, at)
                                               : jw_ac_block(w, c, at);
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
        jw_grow(w);
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
    unsigned x = jw_get8(w);
    if (x != 0xFF)
        return NO_MARKER;
    while (x == 0xFF)
        x = jw_get8(w);
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
        if (jw_get16(w) != 4)
            return 0;
        w->restart_interval = (int)jw_get16(w);
        return 1;
    case 0xDB:
        left = (long)jw_get16(w) - 2;
        while (left > 0) {
            unsigned q = jw_get8(w);
            if ((q >> 4) > 1 || (q & 15) > 3)
                return 0;
            jw_skip(w, q >> 4 ? 128 : 64);
            left -= q >> 4 ? 129 : 65;
        }
        return left == 0;
    case 0xC4:
        left = (long)jw_get16(w) - 2;
        while (left > 0) {
            int count[16], codes = 0;
            unsigned q = jw_get8(w), tc = q >> 4, th = q & 15;
            if (tc > 1 || th > 3)
                return 0;
            for (int i = 0; i < 16; ++i)
                codes += count[i] = (int)jw_get8(w);
            if (codes > 256)
                return 0;  /* refused before (image_format.c) */
            left -= 17;
            table *t = tc ? &w->ac[th] : &w->dc[th];
            t->defined = 0;
            for (int i = 0; i < codes; ++i)  /* read before it is built */
                t->values[i] = (uint8_t)jw_get8(w);
            if (!jw_build_table(t, count, tc != 0))
                return 0;
            left -= codes;
        }
        return left == 0;
    }
    if ((m >= 0xE0 && m <= 0xEF) || m == 0xFE) {
        long bytes = (long)jw_get16(w);
        if (bytes < 2)
            return 0;
        jw_skip(w, (size_t)(bytes - 2));
        return 1;
    }
    return 0;
}

/* stbi__process_scan_header: 1, or 0 where stb_image fails; -1 for a
 * table never defined (refused before, image_format.c). */
static int scan_header(walker *w)
{
    unsigned length = jw_get16(w);
    w->scan_n = (int)jw_get8(w);
    if (w->scan_n < 1 || w->scan_n > 4 || w->scan_n > w->n ||
        length != 6 + 2 * (unsigned)w->scan_n)
        return 0;
    for (int i = 0; i < w->scan_n; ++i) {
        int id = (int)jw_get8(w), q = (int)jw_get8(w), which;
        for (which = 0; which < w->n; ++which)
            if (w->c[which].id == id)
                break;
        if (which == w->n || (q >> 4) > 3 || (q & 15) > 3)
            return 0;
        w->c[which].hd = q >> 4;
        w->c[which].ha = q & 15;
        w->order[i] = which;
    }
    w->spec_start = (int)jw_get8(w);
    w->spec_end = (int)jw_get8(w);
    unsigned aa = jw_get8(w);
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
    unsigned length = jw_get16(w);
    if (length < 11 || jw_get8(w) != 8)
        return 0;
    size_t height = jw_get16(w), width = jw_get16(w);
    if (height == 0 || width == 0)
        return 0;
    if (width * height > w->max_pixels) {
        snprintf(w->why, w->why_len, "the JPEG frame of %zu x %zu pixels is "
                 "more than %zu", width, height, w->max_pixels);
        return -1;
    }
    w->height = height;
    w->n = (int)jw_get8(w);
    if ((w->n != 1 && w->n != 3 && w->n != 4) ||
        length != 8 + 3 * (unsigned)w->n)
        return 0;
    int h_max = 1, v_max = 1;
    for (int i = 0; i < w->n; ++i) {
        component *c = &w->c[i];
        c->id = (int)jw_get8(w);
        unsigned q = jw_get8(w);
        c->h = (int)(q >> 4);
        c->v = (int)(q & 15);
        c->tq = (int)jw_get8(w);
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
            if (jw_at_eof(w))
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
                while (!jw_at_eof(w))
                    if (jw_get8(w) == 0xFF) {
                        w->marker = (int)jw_get8(w);
                        break;
                    }
        } else if (m == 0xDC) {  /* DNL: the height the frame said */
            unsigned length = jw_get16(w), lines = jw_get16(w);
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
