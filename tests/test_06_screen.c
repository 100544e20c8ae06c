/* test_06_screen.c - which files 06's batch sends to the GPU decoder and
 * which to the CPU (batch/jpeg_screen.c), on real JPEGs made by the
 * corpus writer (baseline, progressive, gray) and on headers built here
 * (CMYK, RGB-coded, 4:1:1, 12-bit, one scan per component, arithmetic,
 * cut short, not a JPEG); which decoders a run chooses; and the survey
 * of a batch's files (sizes, how many are JPEGs) that decides it. No GPU.
 */
#include "test.h"
#include "../06_image_preprocess/batch/batch_inputs.h"
#include "../06_image_preprocess/batch/jpeg_screen.h"
#include "../06_image_preprocess/batch/corpus.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A JPEG header: SOI, [APP0 JFIF], [APP14 Adobe], SOF `sof` with
 * components of the given ids and sampling bytes (h << 4 | v), then SOS
 * over the first `scan` components and two bytes of data, EOI. */
static size_t make_header(uint8_t *p, int sof, int precision, int n,
                          const int *ids, const int *hv, int scan,
                          int jfif, int adobe)
{
    size_t at = 0;
    p[at++] = 0xFF; p[at++] = 0xD8;
    if (jfif) {
        const uint8_t app0[] = {0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0,
                                1, 1, 0, 0, 1, 0, 1, 0, 0};
        memcpy(p + at, app0, sizeof app0);
        at += sizeof app0;
    }
    if (adobe >= 0) {
        const uint8_t app14[] = {0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e',
                                 0, 100, 0, 0, 0, 0, (uint8_t)adobe};
        memcpy(p + at, app14, sizeof app14);
        at += sizeof app14;
    }
    size_t len = 8 + 3 * (size_t)n;
    p[at++] = 0xFF; p[at++] = (uint8_t)sof;
    p[at++] = 0; p[at++] = (uint8_t)len;
    p[at++] = (uint8_t)precision;
    p[at++] = 0; p[at++] = 37;   /* height 37 */
    p[at++] = 0; p[at++] = 53;   /* width 53 */
    p[at++] = (uint8_t)n;
    for (int c = 0; c < n; c++) {
        p[at++] = (uint8_t)ids[c];
        p[at++] = (uint8_t)hv[c];
        p[at++] = 0;
    }
    p[at++] = 0xFF; p[at++] = 0xDA;
    p[at++] = 0; p[at++] = (uint8_t)(6 + 2 * scan);
    p[at++] = (uint8_t)scan;
    for (int c = 0; c < scan; c++) {
        p[at++] = (uint8_t)ids[c];
        p[at++] = 0;
    }
    p[at++] = 0; p[at++] = 63; p[at++] = 0;
    p[at++] = 0x12; p[at++] = 0x34;
    p[at++] = 0xFF; p[at++] = 0xD9;
    return at;
}

static const int YCC[3] = {1, 2, 3}, RGB_IDS[3] = {'R', 'G', 'B'};
static const int S420[3] = {0x22, 0x11, 0x11};

static const char *screen_built(int sof, int precision, int n,
                                const int *ids, const int *hv, int scan,
                                int jfif, int adobe, js_header *h)
{
    static uint8_t buf[256];
    size_t len = make_header(buf, sof, precision, n, ids, hv, scan, jfif,
                             adobe);
    return js_screen(buf, len, h);
}

static void test_built_headers(void)
{
    js_header h;
    const int gray_id[1] = {1}, gray_hv[1] = {0x11};
    EXPECT(screen_built(0xC0, 8, 3, YCC, S420, 3, 1, -1, &h) == NULL);
    EXPECT(h.width == 53 && h.height == 37 && h.components == 3 &&
           h.h[0] == 2 && h.v[0] == 2 && h.jfif);
    EXPECT(screen_built(0xC1, 8, 3, YCC, S420, 3, 1, -1, NULL) == NULL);
    EXPECT(screen_built(0xC0, 8, 1, gray_id, gray_hv, 1, 1, -1, NULL) ==
           NULL);
    const int s444[3] = {0x11, 0x11, 0x11}, s422[3] = {0x21, 0x11, 0x11};
    const int s440[3] = {0x12, 0x11, 0x11}, s411[3] = {0x41, 0x11, 0x11};
    const int odd[3] = {0x11, 0x22, 0x22};
    EXPECT(screen_built(0xC0, 8, 3, YCC, s444, 3, 1, -1, NULL) == NULL);
    EXPECT(screen_built(0xC0, 8, 3, YCC, s422, 3, 1, -1, NULL) == NULL);
    EXPECT(screen_built(0xC0, 8, 3, YCC, s440, 3, 1, -1, NULL) == NULL);
    EXPECT(strstr(screen_built(0xC0, 8, 3, YCC, s411, 3, 1, -1, NULL),
                  "subsampling"));
    /* Y below the chroma's factors: stb_image would upsample Y. */
    EXPECT(strstr(screen_built(0xC0, 8, 3, YCC, odd, 3, 1, -1, NULL),
                  "subsampling"));
    EXPECT(strcmp(screen_built(0xC2, 8, 3, YCC, S420, 1, 1, -1, NULL),
                  "progressive JPEG") == 0);
    EXPECT(strcmp(screen_built(0xC3, 8, 3, YCC, S420, 3, 1, -1, NULL),
                  "lossless JPEG") == 0);
    EXPECT(strcmp(screen_built(0xC9, 8, 3, YCC, S420, 3, 1, -1, NULL),
                  "arithmetic-coded JPEG") == 0);
    EXPECT(strstr(screen_built(0xC1, 12, 3, YCC, S420, 3, 1, -1, NULL),
                  "12 or more bits"));
    /* CMYK as Photoshop writes it: 4 components, Adobe transform 0. */
    const int cmyk_ids[4] = {1, 2, 3, 4}, cmyk_hv[4] = {0x11, 0x11, 0x11,
                                                        0x11};
    EXPECT(strstr(screen_built(0xC0, 8, 4, cmyk_ids, cmyk_hv, 4, 0, 0,
                               NULL), "CMYK"));
    EXPECT(strcmp(screen_built(0xC0, 8, 3, RGB_IDS, s444, 3, 0, -1, NULL),
                  "RGB-coded JPEG") == 0);
    EXPECT(strcmp(screen_built(0xC0, 8, 3, YCC, s444, 3, 0, 0, &h),
                  "RGB-coded JPEG") == 0 && h.adobe_transform == 0);
    /* Adobe transform 1 is YCbCr; transform 0 with JFIF: stb_image
     * reads YCbCr too. */
    EXPECT(screen_built(0xC0, 8, 3, YCC, s444, 3, 0, 1, NULL) == NULL);
    EXPECT(screen_built(0xC0, 8, 3, YCC, s444, 3, 1, 0, NULL) == NULL);
    EXPECT(strstr(screen_built(0xC0, 8, 3, YCC, S420, 1, 1, -1, NULL),
                  "several scans"));
}

static int hybrid_built(int sof, int precision, int n, const int *ids,
                        const int *hv, int scan, int jfif, int adobe)
{
    uint8_t buf[256];
    size_t len = make_header(buf, sof, precision, n, ids, hv, scan, jfif,
                             adobe);
    return js_hybrid_ok(buf, len);
}

/* What nvJPEG's hybrid path may take of what the screen sends away:
 * 8-bit Huffman JPEGs whose Y plane is stb_image's gray. */
static void test_hybrid_choice(void)
{
    const int gray_id[1] = {1}, gray_hv[1] = {0x11};
    const int s444[3] = {0x11, 0x11, 0x11}, s411[3] = {0x41, 0x11, 0x11};
    const int odd[3] = {0x11, 0x22, 0x22};
    EXPECT(hybrid_built(0xC2, 8, 3, YCC, S420, 1, 1, -1));
    EXPECT(hybrid_built(0xC2, 8, 1, gray_id, gray_hv, 1, 1, -1));
    EXPECT(hybrid_built(0xC0, 8, 3, YCC, S420, 1, 1, -1));  /* 3 scans */
    EXPECT(hybrid_built(0xC0, 8, 3, YCC, S420, 3, 1, -1));
    EXPECT(!hybrid_built(0xC2, 12, 3, YCC, S420, 1, 1, -1));
    EXPECT(!hybrid_built(0xC6, 8, 3, YCC, S420, 1, 1, -1));
    EXPECT(!hybrid_built(0xCA, 8, 3, YCC, S420, 1, 1, -1));
    EXPECT(!hybrid_built(0xC3, 8, 3, YCC, S420, 3, 1, -1));
    EXPECT(!hybrid_built(0xC2, 8, 3, RGB_IDS, s444, 1, 0, -1));
    EXPECT(!hybrid_built(0xC2, 8, 3, YCC, s444, 1, 0, 0));
    EXPECT(!hybrid_built(0xC2, 8, 3, YCC, s411, 1, 1, -1));
    EXPECT(!hybrid_built(0xC2, 8, 3, YCC, odd, 1, 1, -1));
    const int cmyk_ids[4] = {1, 2, 3, 4}, cmyk_hv[4] = {0x11, 0x11, 0x11,
                                                        0x11};
    EXPECT(!hybrid_built(0xC2, 8, 4, cmyk_ids, cmyk_hv, 1, 0, 0));
    /* Not a JPEG, or cut short: never. */
    const uint8_t png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    EXPECT(!js_hybrid_ok(png, sizeof png));
    uint8_t buf[256];
    make_header(buf, 0xC2, 8, 3, YCC, S420, 1, 1, -1);
    int none = 1;
    for (size_t cut = 0; cut < 40; cut++)
        none &= !js_hybrid_ok(buf, cut);
    EXPECT(none);
}

static void test_bad_bytes(void)
{
    uint8_t buf[256];
    size_t len = make_header(buf, 0xC0, 8, 3, YCC, S420, 3, 1, -1);
    const uint8_t png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    EXPECT(strcmp(js_screen(png, sizeof png, NULL), "not a JPEG") == 0);
    EXPECT(strcmp(js_screen(buf, 1, NULL), "not a JPEG") == 0);
    /* 0xFF fill bytes before SOI: a JPEG for stb_image, not for the GPU,
       and said so, not "not a JPEG". */
    uint8_t filled[257] = {0xFF};
    memcpy(filled + 1, buf, len);
    EXPECT(strcmp(js_screen(filled, len + 1, NULL),
                  "fill bytes before the JPEG's start marker") == 0);
    /* Cut anywhere before the scan: refused, never read past the end. */
    int all_refused = 1;
    for (size_t cut = 4; cut < 40; cut++)
        all_refused &= js_screen(buf, cut, NULL) != NULL;
    EXPECT(all_refused);
    EXPECT(js_screen(buf, len, NULL) == NULL);
    /* Garbage where a marker should be. */
    buf[2] = 0x00;
    EXPECT(strstr(js_screen(buf, len, NULL), "markers"));
}

/* Real files from the corpus writer: baseline (stb_image_write),
 * progressive and gray (its own writer). */
static void test_corpus_files(void)
{
    enum { W = 67, H = 45 };
    uint8_t *rgb = malloc((size_t)W * H * 3);
    EXPECT(rgb && corpus_synth_rgb(rgb, W, H, 1, 0) == 0);
    if (!rgb)
        return;
    const struct {
        corpus_kind kind;
        int quality;
        const char *why;  /* NULL: the GPU takes it */
        int components;
    } cases[] = {{CORPUS_BASELINE, 90, NULL, 3},
                 {CORPUS_BASELINE, 95, NULL, 3},
                 {CORPUS_GRAY, 90, NULL, 1},
                 {CORPUS_PROGRESSIVE, 90, "progressive JPEG", 3},
                 {CORPUS_GRAY_PROGRESSIVE, 90, "progressive JPEG", 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cj_buffer out;
        memset(&out, 0, sizeof out);
        EXPECT(corpus_encode(cases[k].kind, rgb, W, H, cases[k].quality,
                             &out) == 0);
        js_header h;
        const char *why = js_screen(out.data, out.len, &h);
        EXPECT(cases[k].why ? why && strcmp(why, cases[k].why) == 0
                            : why == NULL);
        EXPECT(h.width == W && h.height == H &&
               h.components == cases[k].components);
        /* what the screen refuses here, the hybrid path takes */
        EXPECT(js_hybrid_ok(out.data, out.len));
        free(out.data);
    }
    free(rgb);
}

static void test_decoder_choice(void)
{
    decoder_plan p;
    /* auto: nvJPEG only where it is built, for JPEGs; else every file to
     * stb_image, the routed: line saying why. A resize changes nothing:
     * the GPU kernel resizes whatever decoded. */
    p = decoder_choose(DECODER_AUTO, 1, 1);
    EXPECT(p.try_nvjpeg && !p.fail && !p.note && !p.cpu_why);
    p = decoder_choose(DECODER_AUTO, 0, 1);
    EXPECT(!p.try_nvjpeg && !p.fail && p.note &&
           strstr(p.note, "GPU JPEG decode not built: nvjpeg.h was not "
                          "found at build time") &&
           strcmp(p.cpu_why, "GPU JPEG decode not built") == 0);
    p = decoder_choose(DECODER_AUTO, 1, 0);
    EXPECT(!p.try_nvjpeg && !p.note && p.cpu_why);
    /* gpu: fails without nvJPEG. */
    p = decoder_choose(DECODER_GPU, 0, 1);
    EXPECT(p.fail && strcmp(p.note, DECODER_NOT_BUILT) == 0);
    p = decoder_choose(DECODER_GPU, 1, 0);
    EXPECT(p.try_nvjpeg && !p.fail && !p.cpu_why);
    /* cpu: never nvJPEG. */
    p = decoder_choose(DECODER_CPU, 1, 1);
    EXPECT(!p.try_nvjpeg && !p.note && strcmp(p.cpu_why, "--decoder cpu") == 0);
}

int main(void)
{
    test_built_headers();
    test_hybrid_choice();
    test_bad_bytes();
    test_corpus_files();
    test_decoder_choice();
    return test_summary();
}
