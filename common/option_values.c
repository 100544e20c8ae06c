/* option_values.c - an option's value from its text (options.h): whole
 * numbers, sizes with suffixes, choices. Apart from options.c, which
 * exits on a bad command line, so that a library that never exits (06's
 * imgbatch) parses its options with the very same code. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return -1;
}

int cm_parse_int(const char *text, long long min, long long max,
                 long long *out, char *err, size_t err_len)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0')
        return fail(err, err_len, "empty value");
    if (*p != '-' && *p != '+' && !isdigit((unsigned char)*p))
        return fail(err, err_len, "'%s' is not a whole number", text);
    errno = 0;
    char *end;
    long long v = strtoll(p, &end, 10);
    if (*end != '\0')
        return fail(err, err_len, "'%s' is not a whole number", text);
    if (errno == ERANGE)
        return fail(err, err_len, "'%s' is too large", text);
    if (v < min)
        return fail(err, err_len, "'%s' must be at least %lld", text, min);
    if (v > max)
        return fail(err, err_len, "'%s' must be at most %lld", text, max);
    *out = v;
    return 0;
}

int cm_parse_size(const char *text, size_t *out, char *err, size_t err_len)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0')
        return fail(err, err_len, "empty size");
    if (*p == '-')
        return fail(err, err_len, "size '%s' is negative", text);
    if (!isdigit((unsigned char)*p))
        return fail(err, err_len, "size '%s' is not a number", text);

    /* Digits first, accumulated with an explicit overflow check. */
    uint64_t value = 0;
    while (isdigit((unsigned char)*p)) {
        unsigned digit = (unsigned)(*p - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return fail(err, err_len, "size '%s' is too large", text);
        value = value * 10 + digit;
        p++;
    }

    /* Then an optional suffix: K/M/G/T alone or with "iB" count in 1024s;
     * with a plain "B" they count in 1000s, as MB and GB do elsewhere in
     * the output. */
    uint64_t scale = 1;
    if (*p != '\0') {
        int power;
        switch (toupper((unsigned char)*p)) {
        case 'K': power = 1; break;
        case 'M': power = 2; break;
        case 'G': power = 3; break;
        case 'T': power = 4; break;
        default:
            return fail(err, err_len,
                        "size '%s' has an unknown suffix (use K, M, G, T)",
                        text);
        }
        p++;
        uint64_t base = 1024;
        if (strcmp(p, "B") == 0) {
            base = 1000;
        } else if (*p != '\0' && strcmp(p, "iB") != 0) {
            return fail(err, err_len,
                        "size '%s' has an unknown suffix (use K, M, G, T)",
                        text);
        }
        for (int i = 0; i < power; i++)
            scale *= base;
    }
    if (value > UINT64_MAX / scale || value * scale > SIZE_MAX)
        return fail(err, err_len, "size '%s' is too large", text);
    *out = (size_t)(value * scale);
    return 0;
}

int cm_parse_value(const cm_opt *o, const char *arg, char *err,
                   size_t err_len)
{
    char why[160];
    switch (o->type) {
    case CM_OPT_FLAG:
        *(int *)o->value = 1;
        return 0;
    case CM_OPT_INT: {
        long long max = o->max ? o->max : LLONG_MAX;
        if (cm_parse_int(arg, o->min, max, (long long *)o->value, why,
                         sizeof why) != 0)
            return fail(err, err_len, "--%s: %s", o->name, why);
        return 0;
    }
    case CM_OPT_SIZE: {
        size_t v;
        if (cm_parse_size(arg, &v, why, sizeof why) != 0)
            return fail(err, err_len, "--%s: %s", o->name, why);
        if (v < (size_t)o->min)
            return fail(err, err_len, "--%s: '%s' must be at least %lld",
                        o->name, arg, o->min);
        if (o->max && v > (size_t)o->max)
            return fail(err, err_len, "--%s: '%s' must be at most %lld",
                        o->name, arg, o->max);
        *(size_t *)o->value = v;
        return 0;
    }
    case CM_OPT_DOUBLE: {
        char *end;
        errno = 0;
        double v = strtod(arg, &end);
        if (end == arg || *end != '\0' || errno == ERANGE || !isfinite(v) ||
            v <= 0)
            return fail(err, err_len, "--%s: '%s' is not a positive number",
                        o->name, arg);
        *(double *)o->value = v;
        return 0;
    }
    case CM_OPT_STRING:
        if (*arg == '\0')
            return fail(err, err_len, "--%s: empty value", o->name);
        *(const char **)o->value = arg;
        return 0;
    case CM_OPT_CHOICE: {
        size_t len = strlen(arg);
        const char *c = o->choices;
        while (len > 0 && c && *c) {
            const char *bar = strchr(c, '|');
            size_t clen = bar ? (size_t)(bar - c) : strlen(c);
            if (clen == len && strncmp(c, arg, len) == 0) {
                *(const char **)o->value = arg;
                return 0;
            }
            c = bar ? bar + 1 : NULL;
        }
        return fail(err, err_len, "--%s: '%s' is not one of %s", o->name,
                    arg, o->choices);
    }
    }
    return fail(err, err_len, "--%s: unknown option type", o->name);
}
