/* format.c - NumPy's str() for 1-D and 2-D arrays, in plain C.
 *
 * This follows numpy/core/arrayprint.py with its defaults (precision 8,
 * floatmode 'maxprec', threshold 1000, edgeitems 3, linewidth 75): one
 * format is chosen for the whole array from the values that will be shown,
 * then rows are wrapped at 75 columns with a hanging indent.
 */
#include "array.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define LINE_WIDTH 75
#define EDGE_ITEMS 3
#define THRESHOLD 1000
#define PRECISION 8

size_t cm_dtype_size(cm_dtype dtype)
{
    switch (dtype) {
    case CM_UINT8: return 1;
    case CM_INT32: return 4;
    case CM_INT64: return 8;
    case CM_FLOAT32: return 4;
    case CM_FLOAT64: return 8;
    }
    return 0;
}

const char *cm_dtype_name(cm_dtype dtype)
{
    switch (dtype) {
    case CM_UINT8: return "uint8";
    case CM_INT32: return "int32";
    case CM_INT64: return "int64";
    case CM_FLOAT32: return "float32";
    case CM_FLOAT64: return "float64";
    }
    return "unknown";
}

size_t cm_shape_size(cm_dtype dtype, int ndim, const size_t *shape,
                     int *overflow)
{
    size_t n = 1;
    *overflow = 0;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] != 0 && n > SIZE_MAX / shape[d]) {
            *overflow = 1;
            return 0;
        }
        n *= shape[d];
    }
    if (n > SIZE_MAX / cm_dtype_size(dtype)) {
        *overflow = 1;
        return 0;
    }
    return n;
}

/* ---- a growing string ---------------------------------------------- */

typedef struct {
    char *s;
    size_t len, cap;
} strbuf;

static void sb_need(strbuf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        fprintf(stderr, "cm_format: out of host memory\n");
        exit(1);
    }
    b->s = s;
    b->cap = cap;
}

static void sb_addn(strbuf *b, const char *s, size_t n)
{
    sb_need(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_add(strbuf *b, const char *s) { sb_addn(b, s, strlen(s)); }

static void sb_pad(strbuf *b, char c, int n)
{
    for (int i = 0; i < n; i++)
        sb_addn(b, &c, 1);
}

/* ---- shortest round-trip digits ------------------------------------ */

/* Decimal digits of |x| (no dot) and the exponent of the first one, i.e.
 * |x| = d.ddd x 10^exp10, using the fewest digits that read back as the
 * same float32 or float64, or exactly max_digits correctly rounded digits
 * when that is shorter. Returns the digit count. */
static int shortest_digits(double x, int is_f32, int max_digits,
                           char *digits, int *exp10)
{
    char buf[64];
    double ax = fabs(x);
    int limit = is_f32 ? 9 : 17;
    int p;
    if (ax == 0) {
        strcpy(digits, "0");
        *exp10 = 0;
        return 1;
    }
    for (p = 1; p <= limit; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, ax);
        int same = is_f32 ? strtof(buf, NULL) == (float)ax
                          : strtod(buf, NULL) == ax;
        if (same || p == max_digits)
            break;
    }
    if (p > limit)
        p = limit;
    int n = 0;
    for (const char *c = buf; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9')
            digits[n++] = *c;
    digits[n] = '\0';
    *exp10 = atoi(strchr(buf, 'e') + 1);
    return n;
}

/* ---- element formats ------------------------------------------------ */

typedef struct {
    cm_dtype dtype;
    int width;          /* integers: right-aligned width */
    int exp_format;     /* floats: scientific notation */
    int pad_left, pad_right, precision, exp_size;
} elem_format;

static int is_integer(cm_dtype dtype)
{
    return dtype == CM_UINT8 || dtype == CM_INT32 || dtype == CM_INT64;
}

static long long int_at(const void *data, cm_dtype dtype, size_t i)
{
    switch (dtype) {
    case CM_UINT8: return ((const uint8_t *)data)[i];
    case CM_INT32: return ((const int32_t *)data)[i];
    case CM_INT64: return ((const int64_t *)data)[i];
    default: return 0;
    }
}

double cm_value_at(const void *data, cm_dtype dtype, size_t i)
{
    switch (dtype) {
    case CM_UINT8: return ((const uint8_t *)data)[i];
    case CM_INT32: return ((const int32_t *)data)[i];
    case CM_INT64: return (double)((const int64_t *)data)[i];
    case CM_FLOAT32: return ((const float *)data)[i];
    case CM_FLOAT64: return ((const double *)data)[i];
    }
    return 0;
}

/* Positional form of a finite x: the shortest unique digits, or 8
 * fractional digits rounded when that is shorter, trailing zeros trimmed
 * but the dot kept ("1.", "0.5", "-12.25"). int_part and frac receive the
 * two sides of the dot; int_part includes the sign. */
static void positional(double x, int is_f32, char *int_part, char *frac)
{
    char digits[40];
    int e;
    int n = shortest_digits(x, is_f32, 40, digits, &e);
    const char *sign = signbit(x) ? "-" : "";
    if (n - 1 - e > PRECISION) {
        char buf[400];
        snprintf(buf, sizeof buf, "%.*f", PRECISION, fabs(x));
        char *dot = strchr(buf, '.');
        *dot = '\0';
        size_t len = strlen(dot + 1);
        while (len > 0 && dot[len] == '0')
            dot[len--] = '\0';
        sprintf(int_part, "%s%s", sign, buf);
        strcpy(frac, dot + 1);
        return;
    }
    char *ip = int_part + sprintf(int_part, "%s", sign);
    if (e < 0) {
        strcpy(ip, "0");
        int zeros = -e - 1;
        memset(frac, '0', (size_t)zeros);
        strcpy(frac + zeros, digits);
    } else {
        for (int i = 0; i <= e; i++)
            *ip++ = i < n ? digits[i] : '0';
        *ip = '\0';
        strcpy(frac, n > e + 1 ? digits + e + 1 : "");
    }
}

/* Scientific form: mantissa digits (at most 1 + 8) and exponent. */
static int scientific_digits(double x, int is_f32, char *digits, int *e)
{
    return shortest_digits(x, is_f32, 1 + PRECISION, digits, e);
}

static void make_format(elem_format *f, const void *data, cm_dtype dtype,
                        const size_t *idx, size_t count)
{
    memset(f, 0, sizeof *f);
    f->dtype = dtype;
    if (is_integer(dtype)) {
        for (size_t k = 0; k < count; k++) {
            char buf[32];
            int w = snprintf(buf, sizeof buf, "%lld",
                             int_at(data, dtype, idx[k]));
            if (w > f->width)
                f->width = w;
        }
        return;
    }
    int is_f32 = dtype == CM_FLOAT32;
    double max_val = 0, min_val = INFINITY;
    size_t finite = 0, nonfinite = 0;
    int any_neg_inf = 0;
    for (size_t k = 0; k < count; k++) {
        double v = cm_value_at(data, dtype, idx[k]);
        if (!isfinite(v)) {
            nonfinite++;
            if (isinf(v) && v < 0)
                any_neg_inf = 1;
            continue;
        }
        finite++;
        if (v != 0) {
            max_val = fmax(max_val, fabs(v));
            min_val = fmin(min_val, fabs(v));
        }
    }
    if (max_val > 0 &&
        (max_val >= 1e8 || min_val < 1e-4 || max_val / min_val > 1e3))
        f->exp_format = 1;

    if (finite == 0) {
        f->pad_left = f->pad_right = 0;
    } else if (f->exp_format) {
        int max_frac = 0, max_exp_digits = 2, max_int = 1;
        for (size_t k = 0; k < count; k++) {
            double v = cm_value_at(data, dtype, idx[k]);
            if (!isfinite(v))
                continue;
            char digits[40];
            int e;
            int n = scientific_digits(v, is_f32, digits, &e);
            if (v == 0)
                e = 0;
            if (n - 1 > max_frac)
                max_frac = n - 1;
            int ed = snprintf(NULL, 0, "%d", abs(e));
            if (ed > max_exp_digits)
                max_exp_digits = ed;
            if (signbit(v))
                max_int = 2;
        }
        f->precision = max_frac;
        f->exp_size = max_exp_digits;
        f->pad_left = max_int;
        f->pad_right = f->exp_size + 2 + f->precision;
    } else {
        for (size_t k = 0; k < count; k++) {
            double v = cm_value_at(data, dtype, idx[k]);
            if (!isfinite(v))
                continue;
            char ip[400], fr[400];
            positional(v, is_f32, ip, fr);
            if ((int)strlen(ip) > f->pad_left)
                f->pad_left = (int)strlen(ip);
            if ((int)strlen(fr) > f->pad_right)
                f->pad_right = (int)strlen(fr);
        }
    }
    if (nonfinite) {
        /* nan and inf are right-aligned in the same width. */
        int offset = f->pad_right + 1;
        int inf_len = 3 + any_neg_inf;
        if (3 - offset > f->pad_left)
            f->pad_left = 3 - offset;
        if (inf_len - offset > f->pad_left)
            f->pad_left = inf_len - offset;
    }
}

static void format_elem(strbuf *b, const elem_format *f, const void *data,
                        size_t i)
{
    char buf[512];
    if (is_integer(f->dtype)) {
        snprintf(buf, sizeof buf, "%*lld", f->width, int_at(data, f->dtype, i));
        sb_add(b, buf);
        return;
    }
    double v = cm_value_at(data, f->dtype, i);
    if (!isfinite(v)) {
        const char *text = isnan(v) ? "nan" : v < 0 ? "-inf" : "inf";
        sb_pad(b, ' ', f->pad_left + f->pad_right + 1 - (int)strlen(text));
        sb_add(b, text);
        return;
    }
    int is_f32 = f->dtype == CM_FLOAT32;
    if (f->exp_format) {
        char digits[40];
        int e;
        int n = scientific_digits(v, is_f32, digits, &e);
        if (v == 0)
            e = 0;
        int int_len = signbit(v) ? 2 : 1;
        sb_pad(b, ' ', f->pad_left - int_len);
        if (signbit(v))
            sb_add(b, "-");
        sb_addn(b, digits, 1);
        sb_add(b, ".");
        for (int i = 1; i <= f->precision; i++)
            sb_addn(b, i < n ? &digits[i] : "0", 1);
        snprintf(buf, sizeof buf, "e%c%0*d", e < 0 ? '-' : '+', f->exp_size,
                 abs(e));
        sb_add(b, buf);
        return;
    }
    char ip[400], fr[400];
    positional(v, is_f32, ip, fr);
    sb_pad(b, ' ', f->pad_left - (int)strlen(ip));
    sb_add(b, ip);
    sb_add(b, ".");
    sb_add(b, fr);
    sb_pad(b, ' ', f->pad_right - (int)strlen(fr));
}

/* ---- layout, after numpy's _formatArray ----------------------------- */

typedef struct {
    const void *data;
    int ndim;
    const size_t *shape;
    int summarize;
    elem_format fmt;
} layout;

/* Appends word to the current line, wrapping first when it would pass
 * width, unless the line holds only its indent (wrapping would not help). */
static void extend_line(strbuf *s, strbuf *line, const char *word, int width,
                        const char *indent)
{
    size_t indent_len = strlen(indent);
    if (line->len + strlen(word) > (size_t)width && line->len > indent_len) {
        while (line->len > 0 && line->s[line->len - 1] == ' ')
            line->s[--line->len] = '\0';
        sb_add(s, line->s);
        sb_add(s, "\n");
        line->len = 0;
        sb_add(line, indent);
    }
    sb_add(line, word);
}

static void recurse(strbuf *out, const layout *L, int axis, size_t offset,
                    const char *indent, int width)
{
    char next_indent[16];
    snprintf(next_indent, sizeof next_indent, "%s ", indent);
    int next_width = width - 1;  /* room for the closing ']' */
    size_t len = L->shape[axis];
    int summary = L->summarize && len > 2 * EDGE_ITEMS;
    size_t leading = summary ? EDGE_ITEMS : 0;
    size_t trailing = summary ? EDGE_ITEMS : len;
    size_t stride = axis + 1 < L->ndim ? L->shape[axis + 1] : 1;
    strbuf s = {0};

    if (axis == L->ndim - 1) {
        int elem_width = width - 1;
        strbuf line = {0}, word = {0};
        sb_add(&line, indent);
        for (size_t j = 0; j < len; j++) {
            if (summary && j == leading) {
                extend_line(&s, &line, "...", elem_width, indent);
                sb_add(&line, " ");
                j = len - trailing;
            }
            word.len = 0;
            sb_add(&word, "");
            format_elem(&word, &L->fmt, L->data, offset + j);
            extend_line(&s, &line, word.s, elem_width, indent);
            if (j + 1 < len)
                sb_add(&line, " ");
        }
        sb_add(&s, line.s);
        free(line.s);
        free(word.s);
    } else {
        for (size_t i = 0; i < len; i++) {
            if (summary && i == leading) {
                sb_add(&s, indent);
                sb_add(&s, "...\n");
                i = len - trailing;
            }
            sb_add(&s, indent);
            recurse(&s, L, axis + 1, offset + i * stride, next_indent,
                    next_width);
            if (i + 1 < len)
                sb_add(&s, "\n");
        }
    }
    /* Drop the first line's indent and wrap the whole in brackets. */
    sb_add(out, "[");
    sb_add(out, s.s + strlen(indent));
    sb_add(out, "]");
    free(s.s);
}

/* Flat indices of the elements that will be printed. */
static size_t shown_indices(const size_t *shape, int ndim, int summarize,
                            size_t *idx)
{
    size_t rows = ndim == 2 ? shape[0] : 1;
    size_t cols = shape[ndim - 1];
    size_t count = 0;
    for (size_t r = 0; r < rows; r++) {
        if (summarize && rows > 2 * EDGE_ITEMS && r >= EDGE_ITEMS &&
            r < rows - EDGE_ITEMS)
            continue;
        for (size_t c = 0; c < cols; c++) {
            if (summarize && cols > 2 * EDGE_ITEMS && c >= EDGE_ITEMS &&
                c < cols - EDGE_ITEMS)
                continue;
            idx[count++] = r * cols + c;
        }
    }
    return count;
}

char *cm_format(const void *h_data, cm_dtype dtype, int ndim,
                const size_t *shape)
{
    strbuf out = {0};
    int overflow;
    size_t size = cm_shape_size(dtype, ndim, shape, &overflow);
    if (ndim < 1 || ndim > 2 || overflow) {
        sb_add(&out, "<unsupported array>");
        return out.s;
    }
    if (size == 0) {
        sb_add(&out, "[]");
        return out.s;
    }
    layout L;
    L.data = h_data;
    L.ndim = ndim;
    L.shape = shape;
    L.summarize = size > THRESHOLD;
    size_t rows = ndim == 2 ? shape[0] : 1, cols = shape[ndim - 1];
    if (L.summarize) {
        rows = rows > 2 * EDGE_ITEMS ? 2 * EDGE_ITEMS : rows;
        cols = cols > 2 * EDGE_ITEMS ? 2 * EDGE_ITEMS : cols;
    }
    size_t max_shown = rows * cols;
    size_t *idx = malloc(max_shown * sizeof *idx);
    if (!idx) {
        fprintf(stderr, "cm_format: out of host memory\n");
        exit(1);
    }
    size_t count = shown_indices(shape, ndim, L.summarize, idx);
    make_format(&L.fmt, h_data, dtype, idx, count);
    free(idx);
    recurse(&out, &L, 0, 0, " ", LINE_WIDTH);
    return out.s;
}
