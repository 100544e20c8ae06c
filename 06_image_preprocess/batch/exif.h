/* exif.h - the EXIF orientation of a JPEG, from its bytes.
 *
 *   int o = exif_orientation(data, len);     1 to 8 (transform_ref.h's
 *                                            tf_orient says what each is)
 *
 * Cameras store a photograph as the sensor saw it and note in an Exif
 * APP1 segment how to turn it upright (TIFF tag 274, Orientation, in its
 * first directory). Pure C; any bytes are safe.
 */
#ifndef EXIF_H
#define EXIF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The orientation of the first Exif APP1 segment before the first scan:
 * 1 to 8; 1 when there is none, or its tag is missing, of another type
 * or count, or out of range. */
int exif_orientation(const unsigned char *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* EXIF_H */
