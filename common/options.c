/* options.c - getopt_long-based parsing of shared and chapter options. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CM_MAX_OPTS 64

/* Indices of the shared options in the getopt table, after the chapter's. */
enum { SHARED_HELP, SHARED_DEVICE, SHARED_REPEAT, SHARED_WARMUP, SHARED_CSV,
       SHARED_QUICK, SHARED_COUNT };

static const struct {
    const char *name;
    int has_arg;
    const char *metavar;
    const char *help;
} shared_opts[SHARED_COUNT] = {
    {"help", no_argument, NULL, "show this help and exit"},
    {"device", required_argument, "N", "CUDA device index"},
    {"repeat", required_argument, "N",
     "timed repetitions; the median is reported"},
    {"warmup", required_argument, "N", "untimed runs before timing starts"},
    {"csv", required_argument, "FILE", "also write the results as CSV to FILE"},
    {"quick", no_argument, NULL, "small sizes and few repeats (used by tests)"},
};

cm_options cm_options_default(void)
{
    cm_options opt;
    memset(&opt, 0, sizeof opt);
    opt.device = 0;
    opt.repeat = 10;
    opt.warmup = 2;
    return opt;
}

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

static int parse_one(const cm_opt *o, const char *arg, char *err,
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

int cm_parse(const cm_cli *cli, cm_options *opt, int argc, char **argv,
             char *err, size_t err_len)
{
    struct option table[CM_MAX_OPTS + SHARED_COUNT + 1];
    size_t n = cli->n_opts;
    if (n > CM_MAX_OPTS)
        return fail(err, err_len, "too many options defined");
    for (size_t i = 0; i < n; i++) {
        table[i].name = cli->opts[i].name;
        table[i].has_arg = cli->opts[i].type == CM_OPT_FLAG
                               ? no_argument : required_argument;
        table[i].flag = NULL;
        table[i].val = 256 + (int)i;
    }
    for (int s = 0; s < SHARED_COUNT; s++) {
        table[n + s].name = shared_opts[s].name;
        table[n + s].has_arg = shared_opts[s].has_arg;
        table[n + s].flag = NULL;
        table[n + s].val = 1024 + s;
    }
    memset(&table[n + SHARED_COUNT], 0, sizeof table[0]);

    /* getopt keeps global state: optind = 0 restarts it from scratch, so the
     * parser can run more than once (the unit tests do). A leading ':'
     * reports a missing value as ':' instead of '?'; opterr = 0 keeps
     * getopt's own messages away, so errors stay one line. */
    optind = 0;
    opterr = 0;
    opt->given = 0;
    for (;;) {
        int last = optind ? optind : 1;
        int c = getopt_long(argc, argv, ":h", table, NULL);
        if (c == -1)
            break;
        const char *arg_text = last < argc ? argv[last] : "";
        if (c == 'h')
            return 1;
        if (c == '?') {
            if (optopt && optopt < 256)
                return fail(err, err_len, "unknown option '-%c'", optopt);
            return fail(err, err_len, "unknown option '%s'", arg_text);
        }
        if (c == ':')
            return fail(err, err_len, "option '%s' needs a value", arg_text);
        if (c >= 1024) {
            char why[160];
            switch (c - 1024) {
            case SHARED_HELP:
                return 1;
            case SHARED_DEVICE:
                if (cm_parse_int(optarg, 0, 1023, &opt->device, why,
                                 sizeof why) != 0)
                    return fail(err, err_len, "--device: %s", why);
                break;
            case SHARED_REPEAT:
                if (cm_parse_int(optarg, 1, 1000000, &opt->repeat, why,
                                 sizeof why) != 0)
                    return fail(err, err_len, "--repeat: %s", why);
                opt->repeat_given = 1;
                break;
            case SHARED_WARMUP:
                if (cm_parse_int(optarg, 0, 1000000, &opt->warmup, why,
                                 sizeof why) != 0)
                    return fail(err, err_len, "--warmup: %s", why);
                opt->warmup_given = 1;
                break;
            case SHARED_CSV:
                if (*optarg == '\0')
                    return fail(err, err_len, "--csv: empty file name");
                opt->csv = optarg;
                break;
            case SHARED_QUICK:
                opt->quick = 1;
                break;
            }
        } else if (parse_one(&cli->opts[c - 256], optarg, err, err_len)
                   != 0) {
            return -1;
        } else {
            opt->given |= 1ULL << (c - 256);
        }
    }
    opt->args = argv + optind;
    opt->n_args = argc - optind;
    if (opt->n_args > 0 && cli->positional == NULL)
        return fail(err, err_len, "unexpected argument '%s'", argv[optind]);
    return 0;
}

int cm_given(const cm_cli *cli, const cm_options *opt, const char *name)
{
    for (size_t i = 0; i < cli->n_opts; i++)
        if (strcmp(cli->opts[i].name, name) == 0)
            return (opt->given >> i) & 1;
    return 0;
}

void cm_refuse_given(const cm_cli *cli, const cm_options *opt,
                     const char *names, const char *when)
{
    for (size_t i = 0; i < cli->n_opts; i++) {
        const char *name = cli->opts[i].name, *p = names;
        size_t len = strlen(name);
        if (!((opt->given >> i) & 1))
            continue;
        while ((p = strstr(p, name)) != NULL) {
            int starts = p == names || p[-1] == '|';
            int ends = p[len] == '\0' || p[len] == '|';
            if (starts && ends) {
                fprintf(stderr, "%s: --%s does nothing %s (see --help)\n",
                        cli->program, name, when);
                exit(CM_EXIT_USAGE);
            }
            p += len;
        }
    }
}

/* A size default as a person types it: 1G rather than 1073741824. */
static void print_size(size_t v)
{
    static const char suffix[] = "KMGT";
    int k = -1;
    while (v >= 1024 && v % 1024 == 0 && k < 3) {
        v /= 1024;
        k++;
    }
    if (k < 0)
        printf("%zu", v);
    else
        printf("%zu%c", v, suffix[k]);
}

static void print_default(const cm_opt *o)
{
    switch (o->type) {
    case CM_OPT_FLAG:
        break;
    case CM_OPT_INT:
        printf(" (default %lld)", *(const long long *)o->value);
        break;
    case CM_OPT_SIZE:
        printf(" (default ");
        print_size(*(const size_t *)o->value);
        printf(")");
        break;
    case CM_OPT_DOUBLE:
        printf(" (default %g)", *(const double *)o->value);
        break;
    case CM_OPT_STRING:
    case CM_OPT_CHOICE: {
        const char *s = *(const char *const *)o->value;
        if (s)
            printf(" (default %s)", s);
        break;
    }
    }
}

static void print_line(const char *name, const char *metavar,
                       const char *help)
{
    char left[64];
    snprintf(left, sizeof left, "--%s%s%s", name, metavar ? " " : "",
             metavar ? metavar : "");
    printf("  %-20s %s", left, help);
}

void cm_print_usage(const cm_cli *cli, const cm_options *defaults)
{
    printf("usage: %s [options]%s%s\n%s\n", cli->program,
           cli->positional ? " " : "",
           cli->positional ? cli->positional : "", cli->summary);
    if (cli->n_opts)
        printf("\noptions:\n");
    for (size_t i = 0; i < cli->n_opts; i++) {
        const cm_opt *o = &cli->opts[i];
        print_line(o->name, o->metavar, o->help);
        if (o->type == CM_OPT_CHOICE)
            printf(": %s", o->choices);
        print_default(o);
        printf("\n");
    }
    printf("\ncommon options:\n");
    for (int s = 0; s < SHARED_COUNT; s++) {
        print_line(shared_opts[s].name, shared_opts[s].metavar,
                   shared_opts[s].help);
        if (s == SHARED_DEVICE)
            printf(" (default %lld)", defaults->device);
        if (s == SHARED_REPEAT)
            printf(" (default %lld)", defaults->repeat);
        if (s == SHARED_WARMUP)
            printf(" (default %lld)", defaults->warmup);
        printf("\n");
    }
    printf("\nSizes take a suffix: K, M, G, T (or KiB..TiB) count in 1024s;"
           " kB, MB, GB, TB\ncount in 1000s. Exit status: 0 PASS, 1 runtime"
           " failure or FAIL, 2 usage\nerror, 77 no usable CUDA device.\n");
}

static const char *program_name = "";

const char *cm_program_name(void)
{
    return program_name;
}

static void say(const char *fmt, va_list ap, const char *tail)
{
    if (*program_name)
        fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "%s\n", tail);
}

void cm_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap, " (see --help)");
    va_end(ap);
    exit(CM_EXIT_USAGE);
}

void cm_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap, "");
    va_end(ap);
    exit(CM_EXIT_FAIL);
}

void cm_parse_or_exit(const cm_cli *cli, cm_options *opt, int argc,
                      char **argv)
{
    char err[256];
    program_name = cli->program;
    cm_options defaults = *opt;
    /* Line-buffered output, also into a pipe or file: a program's lines and
     * its one-line error on stderr then appear in the order they happened,
     * and a progress line is not lost if the program dies. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = cm_parse(cli, opt, argc, argv, err, sizeof err);
    if (rc == 1) {
        cm_print_usage(cli, &defaults);
        exit(CM_EXIT_OK);
    }
    if (rc != 0) {
        fprintf(stderr, "%s: %s (see --help)\n", cli->program, err);
        exit(CM_EXIT_USAGE);
    }
}
