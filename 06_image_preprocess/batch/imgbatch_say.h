/* imgbatch_say.h - the lines an open loader prints on stdout about its
 * files, classes, transform and order, when its options ask for verbose
 * (the CLI does; the library prints nothing otherwise).
 *
 *   say_files(&list, &src, files, skipped, ms);   "batch: ..."
 *   say_classes(&list, folder);                   "classes: ..."
 *   say_transform(&spec);                         "transform: ..."
 *   say_order(&sampler);                          "order: ..."
 */
#ifndef IMGBATCH_SAY_H
#define IMGBATCH_SAY_H

#include <stddef.h>

#include "batch_inputs.h"
#include "sampler.h"
#include "transform_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The images of `files` files, skipped ones, their sizes and how many
 * EXIF turns upright; ms: how long their check took. */
void say_files(const path_list *list, const batch_source *src,
               size_t files, size_t skipped, double ms);

/* The class folders of root (the first few), or a list's labels. */
void say_classes(const path_list *list, const char *root);

/* The resize, colour, flip, type and normalization. */
void say_transform(const tf_spec *s);

/* Each pass's order, and this rank's shard. */
void say_order(const sampler *s);

#ifdef __cplusplus
}
#endif

#endif /* IMGBATCH_SAY_H */
