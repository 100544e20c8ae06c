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
        } else if (cm_parse_value(&cli->opts[c - 256], optarg, err,
                                  err_len) != 0) {
            return -1;
        } else {
            if (cli->opts[c - 256].text)
                *cli->opts[c - 256].text = optarg;
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
        const char *help = shared_opts[s].help;
        if (s == SHARED_WARMUP && cli->warmup_help)
            help = cli->warmup_help;
        if (s == SHARED_QUICK && cli->quick_help)
            help = cli->quick_help;
        print_line(shared_opts[s].name, shared_opts[s].metavar, help);
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
