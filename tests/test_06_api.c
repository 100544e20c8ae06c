/* test_06_api.c - the batch tool's library options (imgbatch.h,
 * batch/imgbatch_options.c), without a GPU: the defaults are the
 * tutorial's steps, each option lands in the tensor's spec, and options
 * that cannot go together are refused with a status and a reason. */
#include "test.h"

#include <math.h>
#include "../06_image_preprocess/batch/imgbatch.h"
#include "../06_image_preprocess/batch/pipeline.h"

#include <string.h>

/* The status of o (its reason: imgbatch_failure_reason()). */
static imgbatch_status check(const imgbatch_options *o, tf_spec *s)
{
    return ib_check_options(o, s);
}

int main(void)
{
    imgbatch_options o;
    tf_spec s;
    imgbatch_defaults(&o);
    EXPECT(o.color == IMGBATCH_GRAY && o.dtype == IMGBATCH_FLOAT32 &&
           o.flip == 0 && o.exif == 1 && o.std[2] == 1.0f && o.mean[0] == 0.0f &&
           !o.keep_whole && !o.copy_to_host);
    /* imgbatch.h's and --max-pixels' default: 16384 x 16384. */
    EXPECT(o.max_pixels == (size_t)16384 * 16384 && o.device == 0);
    /* No images: refused, with a reason. */
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "folder"));
    o.folder = "photos";
    EXPECT(check(&o, &s) == IMGBATCH_OK && s.mode == TF_SAME &&
           s.channels == 1 && s.dtype == TF_FLOAT32 && !s.flip);
    o.list = "files.txt";  /* two sources */
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS);
    o.list = NULL;

    /* Resize, or the short side and a crop: one or the other, whole. */
    o.resize_width = 224;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS);
    o.resize_height = 160;
    EXPECT(check(&o, &s) == IMGBATCH_OK && s.mode == TF_RESIZE &&
           s.out_w == 224 && s.out_h == 160);
    o.resize_short = 256;
    o.crop_width = o.crop_height = 224;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS);
    o.resize_width = o.resize_height = 0;
    EXPECT(check(&o, &s) == IMGBATCH_OK && s.mode == TF_SHORT_CROP &&
           s.short_side == 256 && s.out_w == 224);
    o.crop_width = 300;  /* larger than the short side */
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "larger than"));
    o.crop_width = 224;
    o.resize_short = 40000;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS);
    o.resize_short = 256;

    /* RGB float16 with a mean and std; not with uint8; std above 0. */
    o.color = IMGBATCH_RGB;
    o.dtype = IMGBATCH_FLOAT16;
    o.mean[1] = 0.456f;
    o.std[1] = 0.224f;
    EXPECT(check(&o, &s) == IMGBATCH_OK && s.channels == 3 &&
           s.dtype == TF_FLOAT16 && s.mean[1] == 0.456f &&
           s.std[1] == 0.224f);
    o.dtype = IMGBATCH_UINT8;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "uint8"));
    o.dtype = IMGBATCH_FLOAT32;
    o.std[2] = 0;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS);
    o.std[2] = 1;

    /* A backend with the CPU decoder, a batch too large, a bad color. */
    o.backend = IMGBATCH_BACKEND_HYBRID;
    o.decoder = IMGBATCH_DECODER_CPU;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS);
    o.decoder = IMGBATCH_DECODER_AUTO;
    EXPECT(check(&o, &s) == IMGBATCH_OK);
    o.batch_size = BATCH_MAX_SIZE + 1;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS);
    o.batch_size = 0;
    o.color = (imgbatch_color)2;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS);
    o.color = IMGBATCH_GRAY;
    EXPECT(check(&o, &s) == IMGBATCH_OK);

    /* A hybrid share: none by default; 0 to 1, or adapted below 0; not
     * with the CPU decoder or a backend without the hardware decoder. */
    o.backend = IMGBATCH_BACKEND_AUTO;
    imgbatch_options h;
    imgbatch_defaults(&h);
    EXPECT(h.hybrid_share == 0.0f);
    o.hybrid_share = 1.0f;
    EXPECT(check(&o, &s) == IMGBATCH_OK);
    o.hybrid_share = IMGBATCH_SHARE_AUTO;
    EXPECT(check(&o, &s) == IMGBATCH_OK);
    o.hybrid_share = 1.5f;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "hybrid_share"));
    o.hybrid_share = NAN;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS);
    o.hybrid_share = 0.5f;
    o.decoder = IMGBATCH_DECODER_CPU;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "--decoder cpu"));
    o.decoder = IMGBATCH_DECODER_AUTO;
    o.backend = IMGBATCH_BACKEND_GPU_HYBRID;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "gpu-hybrid"));
    o.backend = IMGBATCH_BACKEND_HARDWARE;
    EXPECT(check(&o, &s) == IMGBATCH_OK);
    o.backend = IMGBATCH_BACKEND_AUTO;
    o.hybrid_share = 0;

    /* The data set: one process, in turn, seed 0 by default; a rank in
     * 0 .. world_size - 1 (world_size 0: one process); class folders
     * only under a folder. */
    imgbatch_options d;
    imgbatch_defaults(&d);
    EXPECT(d.world_size == 1 && d.rank == 0 && !d.shuffle && d.seed == 0 &&
           !d.drop_last && !d.class_folders);
    o.rank = 1;
    o.world_size = 2;
    EXPECT(check(&o, &s) == IMGBATCH_OK);
    o.world_size = 1;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "rank 1"));
    o.world_size = 0;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS);
    o.rank = 0;
    EXPECT(check(&o, &s) == IMGBATCH_OK);
    o.rank = -1;
    o.world_size = 2;
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS);
    o.rank = 0;
    o.class_folders = 1;
    EXPECT(check(&o, &s) == IMGBATCH_OK);
    o.folder = NULL;
    o.list = "files.txt";
    EXPECT(check(&o, &s) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "class_folders takes folder"));
    return test_summary();
}
