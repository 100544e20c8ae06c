/* tf_spec.h - the transform tests' spec: an output of w x h, channels
 * and dtype, mean 0 and std 1 (the levels unchanged but for the dtype),
 * no flip, antialias as asked.
 *   #include "tf_spec.h"
 *   tf_spec s = tf_test_spec(TF_RESIZE, 224, 224, 3, TF_UINT8, 1);
 */
#ifndef TF_SPEC_H
#define TF_SPEC_H

#include <string.h>

#include "../06_image_preprocess/batch/transform_ref.h"

static inline tf_spec tf_test_spec(tf_mode mode, size_t w, size_t h,
                                   int channels, tf_dtype dtype,
                                   int antialias)
{
    tf_spec s;
    memset(&s, 0, sizeof s);
    s.mode = mode;
    s.out_w = w;
    s.out_h = h;
    s.channels = channels;
    s.dtype = dtype;
    s.antialias = antialias;
    for (int c = 0; c < 3; c++)
        s.std[c] = 1.0f;
    return s;
}

#endif
