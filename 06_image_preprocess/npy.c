/* npy.c - the .npy writer (NumPy's format.py documents the layout). */
#include "npy.h"
#include "files.h"

#include <stdint.h>
#include <string.h>

/* The magic string, the format version and a little-endian uint16 header
 * length come first; NumPy aligns the data that follows to 64 bytes and
 * adds room for shape[0] to grow to 21 digits (GROWTH_AXIS_MAX_DIGITS). */
static const char NPY_MAGIC[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
static const size_t NPY_PREAMBLE_BYTES = 10;  /* magic, version, length */
static const size_t NPY_ALIGN_BYTES = 64;
static const size_t NPY_GROWTH_DIGITS = 21;

static int host_little_endian(void)
{
    const uint16_t probe = 1;
    return *(const unsigned char *)&probe == 1;
}

/* The data is written in the host's own byte order: '<f4' or '>f4'. */
const char *npy_descr(int is_float, size_t bytes)
{
    int little = host_little_endian();
    if (!is_float)
        return bytes == 1 ? "|u1" : NULL;
    if (bytes == 4)
        return little ? "<f4" : ">f4";
    if (bytes == 2)
        return little ? "<f2" : ">f2";
    return NULL;
}

size_t npy_header(char *buf, size_t buf_len, const size_t *shape, int ndim)
{
    return npy_header_typed(buf, buf_len, npy_descr(1, 4), shape, ndim);
}

size_t npy_header_typed(char *buf, size_t buf_len, const char *descr,
                        const size_t *shape, int ndim)
{
    if (ndim < 1 || ndim > NPY_MAX_NDIM || !descr || strlen(descr) > 8)
        return 0;
    /* The dictionary, as Python's repr() prints it: keys sorted, a tuple
     * "(7,)" for one dimension and "(2, 3)" for more. */
    char dict[NPY_HEADER_MAX];
    size_t used = (size_t)snprintf(dict, sizeof dict,
                                   "{'descr': '%s', 'fortran_order': False, "
                                   "'shape': (", descr);
    for (int d = 0; d < ndim; d++)
        used += (size_t)snprintf(dict + used, sizeof dict - used, "%s%zu",
                                 d ? ", " : "", shape[d]);
    used += (size_t)snprintf(dict + used, sizeof dict - used, "%s), }",
                             ndim == 1 ? "," : "");
    char first[32];
    size_t first_digits = (size_t)snprintf(first, sizeof first, "%zu",
                                           shape[0]);
    size_t growth = NPY_GROWTH_DIGITS - first_digits;
    /* Pad with spaces so that the data starts at a multiple of 64; the
     * newline ends the header. NumPy pads a full 64 when already aligned. */
    size_t text = used + growth + 1;
    size_t pad = NPY_ALIGN_BYTES -
                 (NPY_PREAMBLE_BYTES + text) % NPY_ALIGN_BYTES;
    size_t total = NPY_PREAMBLE_BYTES + text + pad;
    if (used >= sizeof dict || total > buf_len || text + pad > 65535)
        return 0;
    memcpy(buf, NPY_MAGIC, sizeof NPY_MAGIC);
    buf[6] = 1;  /* version 1.0 */
    buf[7] = 0;
    buf[8] = (char)((text + pad) & 0xff);
    buf[9] = (char)((text + pad) >> 8);
    memcpy(buf + NPY_PREAMBLE_BYTES, dict, used);
    memset(buf + NPY_PREAMBLE_BYTES + used, ' ', growth + pad);
    buf[total - 1] = '\n';
    return total;
}

/* A whole .npy of elements of elem_bytes, named by descr, through a
 * temporary file and a rename (cm_out_file): complete or absent. */
static int save(const char *path, const char *descr, const void *data,
                size_t elem_bytes, const size_t *shape, int ndim,
                char *err, size_t err_len)
{
    char header[NPY_HEADER_MAX];
    size_t header_len = npy_header_typed(header, sizeof header, descr,
                                         shape, ndim);
    size_t count = 1;
    for (int d = 0; d < ndim; d++)
        count *= shape[d];
    cm_out_file f;
    if (cm_out_open(&f, path) != 0) {
        snprintf(err, err_len, "%s", f.error);
        return -1;
    }
    if (header_len == 0 ||
        fwrite(header, 1, header_len, f.fp) != header_len ||
        (count && fwrite(data, elem_bytes, count, f.fp) != count)) {
        snprintf(err, err_len, "cannot write %s: write failed", path);
        cm_out_abort(&f);
        return -1;
    }
    if (cm_out_commit(&f) != 0) {
        snprintf(err, err_len, "%s", f.error);
        return -1;
    }
    return 0;
}

int npy_save_f32(const char *path, const float *data, const size_t *shape,
                 int ndim, char *err, size_t err_len)
{
    return save(path, npy_descr(1, sizeof(float)), data, sizeof(float),
                shape, ndim, err, err_len);
}

int npy_save_i64(const char *path, const int64_t *data, size_t n,
                 char *err, size_t err_len)
{
    size_t shape[1] = {n};
    return save(path, host_little_endian() ? "<i8" : ">i8", data,
                sizeof *data, shape, 1, err, err_len);
}
