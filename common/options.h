/* options.h - command-line options shared by every chapter, plus its own.
 *
 *   size_t n = 1000;
 *   cm_opt mine[] = {{.name = "n", .type = CM_OPT_SIZE, .value = &n,
 *                     .metavar = "N", .help = "matrix size", .min = 1}};
 *   cm_cli cli = {.program = "03_matmul", .summary = "what it does",
 *                 .opts = mine, .n_opts = 1};
 *   cm_options opt = cm_options_default();
 *   cm_parse_or_exit(&cli, &opt, argc, argv);
 *
 * --help prints usage and exits 0; a bad option prints one line to stderr and
 * exits 2 (CM_EXIT_USAGE). Sizes take K/M/G/T (x1024) or kB/MB/GB/TB (x1000).
 */
#ifndef CM_OPTIONS_H
#define CM_OPTIONS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes every program in the project uses. */
enum {
    CM_EXIT_OK = 0,
    CM_EXIT_FAIL = 1,       /* runtime failure or a FAIL verdict */
    CM_EXIT_USAGE = 2,      /* bad command line */
    CM_EXIT_NO_DEVICE = 77  /* no usable CUDA device (CTest: skipped) */
};

typedef enum {
    CM_OPT_FLAG,    /* int*, set to 1 when given */
    CM_OPT_INT,     /* long long*, range [min, max] */
    CM_OPT_SIZE,    /* size_t*, suffixes allowed, range [min, max] */
    CM_OPT_DOUBLE,  /* double*, must be finite and > 0 */
    CM_OPT_STRING,  /* const char** */
    CM_OPT_CHOICE   /* const char**, one of the '|'-separated choices */
} cm_opt_type;

/* One chapter-specific option. min/max bound INT and SIZE values; max 0
 * means no upper bound beyond the type's. */
typedef struct {
    const char *name;     /* long name without "--" */
    cm_opt_type type;
    void *value;          /* where the parsed value goes; holds the default */
    const char *metavar;  /* "N", "FILE", "SIZE", ... (NULL for flags) */
    const char *help;     /* one line, no trailing period */
    const char *choices;  /* CM_OPT_CHOICE: "fp64|fp32|all" */
    long long min, max;
    const char **text;    /* optional: also the value's text as given
                             (NULL for a flag) */
} cm_opt;

/* A program's command line: its name, a one-line summary, its own options
 * and, if it takes any, the name of its positional arguments. */
typedef struct {
    const char *program;
    const char *summary;
    const cm_opt *opts;
    size_t n_opts;
    const char *positional;  /* e.g. "[IMAGE...]"; NULL: none accepted */
    const char *warmup_help; /* --help's line for --warmup and --quick */
    const char *quick_help;  /* where they mean more; NULL: the shared one */
} cm_cli;

/* The options every chapter understands. */
typedef struct {
    long long device;  /* --device N */
    long long repeat;  /* --repeat N: timed repetitions, median reported */
    long long warmup;  /* --warmup N: untimed runs before timing */
    const char *csv;   /* --csv FILE: also write results as CSV */
    int quick;         /* --quick: small sizes, few repeats (for tests) */
    int repeat_given;  /* 1 when --repeat came from the user */
    int warmup_given;  /* 1 when --warmup did */
    char **args;       /* positional arguments, if the cli accepts them */
    int n_args;
    unsigned long long given;  /* bit i: the cli's option i was given */
} cm_options;

/* Defaults: device 0, 10 repeats, 2 warm-ups, no CSV, not quick. */
cm_options cm_options_default(void);

/* Parses argv. Returns 0 on success, 1 if --help was given (nothing else
 * is done), -1 on a usage error with a one-line reason in err. */
int cm_parse(const cm_cli *cli, cm_options *opt, int argc, char **argv,
             char *err, size_t err_len);

/* cm_parse, then: help -> usage on stdout, exit 0; error -> one line
 * "program: reason (see --help)" on stderr, exit 2. It also records
 * cli->program for cm_program_name. */
void cm_parse_or_exit(const cm_cli *cli, cm_options *opt, int argc,
                      char **argv);

/* The program name the last cm_parse_or_exit was given ("03_matmul"), for
 * the prefix of a program's one-line errors; "" before any. */
const char *cm_program_name(void);

/* After cm_parse_or_exit: one line "program: <printf text> (see --help)"
 * on stderr and exit 2 (a command line that cannot work), or one line
 * "program: <printf text>" and exit 1 (a runtime failure). */
void cm_usage_error(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
void cm_fail(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));

/* Whether the chapter option `name` (without "--") was on the command
 * line that cm_parse read into opt. */
int cm_given(const cm_cli *cli, const cm_options *opt, const char *name);

/* For options that do nothing in a mode: if any option of the
 * '|'-separated `names` was given, one line "program: --NAME does nothing
 * WHEN (see --help)" on stderr and exit 2. */
void cm_refuse_given(const cm_cli *cli, const cm_options *opt,
                     const char *names, const char *when);

/* Prints the usage text (chapter options, then common ones). */
void cm_print_usage(const cm_cli *cli, const cm_options *defaults);

/* "4096", "4K" (4096), "256M", "1G", "8kB" (8000), "2GiB". Returns 0 and
 * sets *out, or -1 with a reason in err for empty, negative, non-numeric,
 * unknown-suffix or overflowing text. Zero is accepted here; callers bound
 * it with their minimum. */
int cm_parse_size(const char *text, size_t *out, char *err, size_t err_len);

/* Decimal integer within [min, max]. Returns 0, or -1 with a reason. */
int cm_parse_int(const char *text, long long min, long long max,
                 long long *out, char *err, size_t err_len);

/* One option's value, as cm_parse reads it: arg (NULL for a flag) into
 * *o->value. Returns 0, or -1 with "--NAME: reason" in err. Never exits
 * (option_values.c, apart from this file's exits). */
int cm_parse_value(const cm_opt *o, const char *arg, char *err,
                   size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* CM_OPTIONS_H */
