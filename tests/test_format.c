/* test_format.c - cm_format must print exactly what NumPy's str() prints.
 * The expected strings in format_cases.h were printed by NumPy itself. */
#include <math.h>
#include <stdint.h>

#include "array.h"
#include "test.h"

enum { GEN_INDEX, GEN_RAMP };

struct short_case {
    cm_dtype dtype;
    int ndim;
    size_t shape[2];
    size_t n;
    double values[40];
    const char *expected;
};

struct long_case {
    cm_dtype dtype;
    int ndim;
    size_t shape[2];
    int generator;
    const char *expected;
};

#include "format_cases.h"

/* Stores v into element i of a buffer of the given dtype. */
static void put(void *data, cm_dtype dtype, size_t i, double v)
{
    switch (dtype) {
    case CM_UINT8: ((uint8_t *)data)[i] = (uint8_t)v; break;
    case CM_INT32: ((int32_t *)data)[i] = (int32_t)v; break;
    case CM_INT64: ((int64_t *)data)[i] = (int64_t)v; break;
    case CM_FLOAT32: ((float *)data)[i] = (float)v; break;
    case CM_FLOAT64: ((double *)data)[i] = v; break;
    }
}

int main(void)
{
    for (size_t c = 0; c < sizeof short_cases / sizeof short_cases[0]; c++) {
        const struct short_case *t = &short_cases[c];
        unsigned char buf[40 * 8];
        for (size_t i = 0; i < t->n; i++)
            put(buf, t->dtype, i, t->values[i]);
        EXPECT_STR(cm_format(buf, t->dtype, t->ndim, t->shape), t->expected);
    }
    for (size_t c = 0; c < sizeof long_cases / sizeof long_cases[0]; c++) {
        const struct long_case *t = &long_cases[c];
        size_t n = t->shape[0] * (t->ndim == 2 ? t->shape[1] : 1);
        void *buf = malloc(n * cm_dtype_size(t->dtype));
        /* The same formulas as gen_format_cases.py. */
        for (size_t i = 0; i < n; i++)
            put(buf, t->dtype, i, t->generator == GEN_INDEX
                    ? (double)i : (double)((i * 31) % 1013) / 1013.0);
        EXPECT_STR(cm_format(buf, t->dtype, t->ndim, t->shape), t->expected);
        free(buf);
    }

    /* An empty array prints as NumPy prints one. */
    size_t empty[1] = {0};
    EXPECT_STR(cm_format(NULL, CM_FLOAT64, 1, empty), "[]");

    /* Sizes and names used by the array printouts. */
    EXPECT(cm_dtype_size(CM_FLOAT64) == 8 && cm_dtype_size(CM_UINT8) == 1);
    EXPECT(strcmp(cm_dtype_name(CM_FLOAT32), "float32") == 0);
    int overflow;
    size_t huge[2] = {SIZE_MAX / 2, 3};
    EXPECT(cm_shape_size(CM_UINT8, 2, huge, &overflow) == 0 && overflow);
    size_t big[2] = {10000, 10000};
    EXPECT(cm_shape_size(CM_FLOAT64, 2, big, &overflow) == 100000000 &&
           !overflow);
    return test_summary();
}
