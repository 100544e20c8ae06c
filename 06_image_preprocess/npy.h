/* npy.h - write float32 arrays as .npy files that numpy.load reads.
 *
 *   size_t shape[2] = {height, width};
 *   if (npy_save_f32("image.npy", h_data, shape, 2, err, sizeof err) != 0)
 *       fprintf(stderr, "%s\n", err);
 *
 * Format version 1.0, dtype float32 in the host's byte order ('<f4' on
 * x86-64 and ARM), C order; npy_header_typed writes the header of other
 * element types (float16, uint8). The header is byte for byte what numpy.save
 * writes, including the spare room NumPy leaves to grow shape[0] in place.
 */
#ifndef NPY_H
#define NPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { NPY_MAX_NDIM = 8, NPY_HEADER_MAX = 512 };

/* Builds the header (magic, version, length, dict, padding) in buf.
 * Returns its length, a multiple of 64, or 0 if ndim is outside
 * 1..NPY_MAX_NDIM or buf is too small. The length does not depend on
 * shape[0] (up to 21 digits), so a header can be rewritten in place when
 * the first dimension turns out smaller than announced. */
size_t npy_header(char *buf, size_t buf_len, const size_t *shape, int ndim);

/* The same for another element type: descr is NumPy's name of it, as
 * npy_descr gives it ("<f4", "<f2", "|u1"). */
size_t npy_header_typed(char *buf, size_t buf_len, const char *descr,
                        const size_t *shape, int ndim);

/* NumPy's name of an element of `bytes` bytes in the host's byte order:
 * a float of 4 or 2 bytes ("<f4", "<f2" on x86-64 and ARM), or with
 * is_float 0 an unsigned integer of 1 byte ("|u1"). NULL otherwise. */
const char *npy_descr(int is_float, size_t bytes);

/* Writes a whole .npy file through a temporary file and a rename, so it
 * is complete or absent. Returns 0, or -1 with a reason in err. */
int npy_save_f32(const char *path, const float *data, const size_t *shape,
                 int ndim, char *err, size_t err_len);

/* The same for n int64 values, shape (n,) ('<i8' on x86-64 and ARM):
 * imgbatch's labels, as torch.from_numpy(np.load(path)) reads them. */
int npy_save_i64(const char *path, const int64_t *data, size_t n,
                 char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* NPY_H */
