/* test_06_npy.c - the .npy writer of 06_image_preprocess, checked byte for
 * byte against the NumPy format specification (numpy/lib/format.py).
 *
 * With "--write FILE" it writes a (2, 3, 5) float32 ramp, i % 256 / 255,
 * for check_npy.py to load with NumPy when NumPy is installed.
 */
#include "test.h"
#include "../06_image_preprocess/npy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What numpy.save writes for a float32 array of shape (2, 3): magic,
 * version 1.0, header length 118 (little-endian uint16), the dict, spaces
 * (21 - 1 digits of room for shape[0], then padding to 64), newline. */
static void expected_header(char *out, const char *shape_text,
                            size_t first_digits)
{
    char dict[256];
    int len = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order'"
                       ": False, 'shape': %s, }", shape_text);
    size_t text = (size_t)len + (21 - first_digits) + 1;
    size_t pad = 64 - (10 + text) % 64;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (char)((text + pad) & 0xff);
    out[9] = (char)((text + pad) >> 8);
    memcpy(out + 10, dict, (size_t)len);
    memset(out + 10 + len, ' ', 21 - first_digits + pad);
    out[10 + text + pad - 1] = '\n';
}

static int write_ramp(const char *path)
{
    float data[30];
    for (int i = 0; i < 30; i++)
        data[i] = (float)(i % 256) / 255.0f;
    size_t shape[3] = {2, 3, 5};
    char err[1300];
    if (npy_save_f32(path, data, shape, 3, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_ramp(argv[2]);

    /* Only little-endian hosts write '<f4', the case spelled out here. */
    const uint16_t probe = 1;
    EXPECT(*(const unsigned char *)&probe == 1);

    char got[NPY_HEADER_MAX], want[NPY_HEADER_MAX];
    size_t shape2[2] = {2, 3};
    size_t len = npy_header(got, sizeof got, shape2, 2);
    EXPECT(len == 128);
    expected_header(want, "(2, 3)", 1);
    EXPECT(memcmp(got, want, 128) == 0);
    EXPECT(memcmp(got, "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', "
                  "'fortran_order': False, 'shape': (2, 3), }", 69) == 0);
    EXPECT(got[127] == '\n' && got[126] == ' ');

    /* One dimension is "(7,)" in Python. */
    size_t shape1[1] = {7};
    EXPECT(npy_header(got, sizeof got, shape1, 1) == 128);
    expected_header(want, "(7,)", 1);
    EXPECT(memcmp(got, want, 128) == 0);

    /* Three dimensions, and the length does not depend on shape[0]:
     * a header can be rewritten in place once N is known. */
    size_t shape3[3] = {12345678901u, 2, 3};
    EXPECT(npy_header(got, sizeof got, shape3, 3) == 128);
    expected_header(want, "(12345678901, 2, 3)", 11);
    EXPECT(memcmp(got, want, 128) == 0);
    shape3[0] = 4;
    EXPECT(npy_header(got, sizeof got, shape3, 3) == 128);

    /* Every header: a multiple of 64, its length field consistent. */
    size_t big[8] = {1000000, 999999, 77777, 1, 2, 3, 4, 5};
    for (int ndim = 1; ndim <= NPY_MAX_NDIM; ndim++) {
        len = npy_header(got, sizeof got, big, ndim);
        EXPECT(len > 0 && len % 64 == 0);
        EXPECT((size_t)((unsigned char)got[8] |
                        (unsigned char)got[9] << 8) == len - 10);
        EXPECT(got[len - 1] == '\n');
    }
    EXPECT(npy_header(got, sizeof got, big, 0) == 0);
    EXPECT(npy_header(got, sizeof got, big, NPY_MAX_NDIM + 1) == 0);
    EXPECT(npy_header(got, 64, shape2, 2) == 0);  /* buffer too small */

    /* Other element types: float16 and uint8, as numpy.save names them;
     * the header's length is the same (the dict differs in no length). */
    EXPECT(strcmp(npy_descr(1, 2), "<f2") == 0 &&
           strcmp(npy_descr(0, 1), "|u1") == 0 && npy_descr(1, 8) == NULL &&
           npy_descr(0, 2) == NULL);
    size_t shape4[4] = {2, 3, 4, 5};
    EXPECT(npy_header_typed(got, sizeof got, "<f2", shape4, 4) == 128);
    EXPECT(memcmp(got + 10, "{'descr': '<f2', 'fortran_order': False, "
                  "'shape': (2, 3, 4, 5), }", 64) == 0);
    EXPECT(npy_header_typed(got, sizeof got, "|u1", shape4, 4) == 128);
    EXPECT(memcmp(got + 10, "{'descr': '|u1', ", 17) == 0);
    EXPECT(npy_header_typed(got, sizeof got, NULL, shape4, 4) == 0);

    /* A whole file: the header, then the floats in C order. */
    char dir[] = "/tmp/test_06_npy_XXXXXX";
    EXPECT(mkdtemp(dir) != NULL);
    char path[256], err[1300];
    snprintf(path, sizeof path, "%s/a.npy", dir);
    float data[6] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.0f / 255.0f};
    EXPECT(npy_save_f32(path, data, shape2, 2, err, sizeof err) == 0);
    FILE *f = fopen(path, "rb");
    unsigned char file[128 + sizeof data + 1];
    size_t got_bytes = f ? fread(file, 1, sizeof file, f) : 0;
    if (f)
        fclose(f);
    EXPECT(got_bytes == 128 + sizeof data);
    expected_header(want, "(2, 3)", 1);
    EXPECT(memcmp(file, want, 128) == 0);
    EXPECT(memcmp(file + 128, data, sizeof data) == 0);
    remove(path);

    /* Labels: int64, shape (3,), '<i8' as numpy.save writes it (the
     * header spelled out: 21 - 1 digits of room, padded to 64). */
    int64_t labels[3] = {0, 7, (int64_t)1 << 40};
    EXPECT(npy_save_i64(path, labels, 3, err, sizeof err) == 0);
    f = fopen(path, "rb");
    got_bytes = f ? fread(file, 1, sizeof file, f) : 0;
    if (f)
        fclose(f);
    EXPECT(got_bytes == 128 + sizeof labels);
    static const char dict[] = "{'descr': '<i8', 'fortran_order': False, "
                               "'shape': (3,), }";
    EXPECT(memcmp(file, "\x93NUMPY\x01\x00\x76\x00", 10) == 0 &&
           memcmp(file + 10, dict, sizeof dict - 1) == 0 &&
           file[10 + sizeof dict - 1] == ' ' && file[127] == '\n');
    EXPECT(memcmp(file + 128, labels, sizeof labels) == 0);
    remove(path);

    /* A folder that does not exist: an error naming the file, no file. */
    snprintf(path, sizeof path, "%s/no/such/b.npy", dir);
    EXPECT(npy_save_f32(path, data, shape2, 2, err, sizeof err) == -1);
    EXPECT(strstr(err, "cannot write") && strstr(err, "b.npy"));
    EXPECT(access(path, F_OK) != 0);
    EXPECT(npy_save_i64(path, labels, 3, err, sizeof err) == -1 &&
           strstr(err, "b.npy") && access(path, F_OK) != 0);
    EXPECT(rmdir(dir) == 0);
    return test_summary();
}
