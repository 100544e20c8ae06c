/* stb_impl.h - a limit on each allocation stb_image makes in this thread,
 * so that a header it has not yet checked cannot make it take gigabytes.
 *
 *   stb_limit_allocation(64 << 20);   ...stbi_load...
 *   stb_limit_allocation(0);          no limit
 *
 * A request over the limit fails as a full memory would: stb_image then
 * returns NULL, and its reason is "outofmem".
 */
#ifndef STB_IMPL_H
#define STB_IMPL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void stb_limit_allocation(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* STB_IMPL_H */
