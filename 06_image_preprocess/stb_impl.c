/* stb_impl.c - the one place where stb_image and stb_image_write are
 * compiled (Debian's libstb-dev ships them as headers only), and where
 * stb_image's allocations are bounded (stb_impl.h).
 *
 * stb is not our code, so the warnings it has drawn from some compilers and
 * stb versions are silenced here, around its includes only; the rest of
 * the chapter keeps -Wall -Wextra -Werror. The failure reason stb_image
 * keeps is thread-local (C11), so the decode threads of the batch
 * pipeline do not overwrite each other's; so is the allocation limit.
 */
#include "stb_impl.h"

#include <stdlib.h>

static _Thread_local size_t allocation_limit;  /* bytes; 0: none */

void stb_limit_allocation(size_t bytes)
{
    allocation_limit = bytes;
}

static void *limited_malloc(size_t bytes)
{
    return allocation_limit && bytes > allocation_limit ? NULL
                                                        : malloc(bytes);
}

static void *limited_realloc(void *p, size_t bytes)
{
    return allocation_limit && bytes > allocation_limit ? NULL
                                                        : realloc(p, bytes);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wtype-limits"

#define STBI_MALLOC(bytes) limited_malloc(bytes)
#define STBI_REALLOC(p, bytes) limited_realloc(p, bytes)
#define STBI_FREE(p) free(p)
#define STB_IMAGE_IMPLEMENTATION
#include "stb_image.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include "stb_image_write.h"

#pragma GCC diagnostic pop
