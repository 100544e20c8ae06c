/* stb_write_impl.c - the one place where stb_image_write is compiled
 * (a header only in Debian's libstb-dev), apart from stb_image
 * (stb_impl.c): its JPEG writer shifts an int's bits past its sign bit,
 * which the sanitizer builds let pass in this file only (extra.mk), so
 * that they check every shift of the decoder.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wtype-limits"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include "stb_image_write.h"

#pragma GCC diagnostic pop
