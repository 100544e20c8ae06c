/* test_options.c - option parsing: good values, every kind of bad value. */
#include <limits.h>
#include <stdint.h>

#include "options.h"
#include "test.h"

static size_t n = 1000;
static long long tasks = 8;
static double scale = 1.5;
static int verbose;
static const char *precision = "fp64";
static const char *out_path;
static const char *tasks_text;

static const cm_opt opts[] = {
    {"n", CM_OPT_SIZE, &n, "N", "matrix size", NULL, 1, 0, NULL},
    {"tasks", CM_OPT_INT, &tasks, "N", "tasks", NULL, 1, 64, &tasks_text},
    {"scale", CM_OPT_DOUBLE, &scale, "X", "scale", NULL, 0, 0, NULL},
    {"verbose", CM_OPT_FLAG, &verbose, NULL, "talk more", NULL, 0, 0, NULL},
    {"precision", CM_OPT_CHOICE, &precision, "P", "precision",
     "fp64|fp32|all", 0, 0, NULL},
    {"out", CM_OPT_STRING, &out_path, "FILE", "output", NULL, 0, 0, NULL},
};
static const cm_cli cli = {"prog", "a test program", opts, 6, NULL, NULL,
                           NULL};
static const cm_cli cli_files = {"prog", "takes files", opts, 6, "[FILE...]",
                                 NULL, NULL};

static char err[256];
static cm_options opt;

/* Parses a NULL-terminated argument list; returns cm_parse's result. */
static int parse_with(const cm_cli *c, const char **args)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "prog";
    while (*args)
        argv[argc++] = (char *)*args++;
    argv[argc] = NULL;
    opt = cm_options_default();
    err[0] = '\0';
    return cm_parse(c, &opt, argc, argv, err, sizeof err);
}
#define PARSE(...) parse_with(&cli, (const char *[]){__VA_ARGS__, NULL})
#define ERROR_IS(text) EXPECT(strcmp(err, text) == 0)

static void expect_size(const char *text, size_t want)
{
    size_t got = 0;
    char why[160];
    EXPECT(cm_parse_size(text, &got, why, sizeof why) == 0 && got == want);
}

static void expect_bad_size(const char *text, const char *reason)
{
    size_t got = 12345;
    char why[160] = "";
    EXPECT(cm_parse_size(text, &got, why, sizeof why) == -1);
    EXPECT(got == 12345);
    EXPECT(strstr(why, reason) != NULL);
}

int main(void)
{
    /* Sizes and their suffixes. */
    expect_size("0", 0);
    expect_size("4096", 4096);
    expect_size("4K", 4096);
    expect_size("4k", 4096);
    expect_size("4KiB", 4096);
    expect_size("8kB", 8000);
    expect_size("256M", 256u << 20);
    expect_size("1G", (size_t)1 << 30);
    expect_size("2GB", 2000000000u);
    expect_size("1T", (size_t)1 << 40);
    expect_size("18446744073709551615", SIZE_MAX);
    expect_bad_size("", "empty");
    expect_bad_size("-5", "negative");
    expect_bad_size("abc", "not a number");
    expect_bad_size("12abc", "unknown suffix");
    expect_bad_size("4KX", "unknown suffix");
    expect_bad_size("1.5G", "unknown suffix");
    expect_bad_size("18446744073709551616", "too large");
    expect_bad_size("99999999999999999999999", "too large");
    expect_bad_size("16777216T", "too large");
    expect_bad_size("17179869184G", "too large");

    /* Whole numbers. */
    long long v;
    char why[160];
    EXPECT(cm_parse_int("42", 0, 100, &v, why, sizeof why) == 0 && v == 42);
    EXPECT(cm_parse_int("101", 0, 100, &v, why, sizeof why) == -1);
    EXPECT(cm_parse_int("4x", 0, 100, &v, why, sizeof why) == -1);
    EXPECT(cm_parse_int("99999999999999999999", 0, LLONG_MAX, &v, why,
                        sizeof why) == -1 && strstr(why, "too large"));

    /* Which options were given, whatever their value. */
    EXPECT(PARSE("--tasks", "8", "--verbose") == 0);
    EXPECT(cm_given(&cli, &opt, "tasks") && cm_given(&cli, &opt, "verbose"));
    EXPECT(!cm_given(&cli, &opt, "n") && !cm_given(&cli, &opt, "scale"));
    EXPECT(!cm_given(&cli, &opt, "no-such-option"));
    EXPECT(PARSE("--n", "5") == 0);
    EXPECT(cm_given(&cli, &opt, "n") && !cm_given(&cli, &opt, "tasks"));
    cm_refuse_given(&cli, &opt, "nn|xn|n2|tasks", "here");  /* whole names */
    n = 1000;                  /* the default, for the checks below */
    cm_refuse_given(&cli, &opt, "tasks|scale|verbose", "here");  /* returns */

    /* Defaults survive an empty command line. */
    EXPECT(parse_with(&cli, (const char *[]){NULL}) == 0);
    EXPECT(opt.device == 0 && opt.repeat == 10 && opt.warmup == 2);
    EXPECT(!opt.quick && opt.csv == NULL && opt.n_args == 0);
    EXPECT(n == 1000 && tasks == 8);

    /* Chapter and shared options, both spellings of a value. */
    EXPECT(PARSE("--n", "4K", "--tasks=16", "--scale", "0.25", "--verbose",
                 "--precision", "all", "--out", "x.npy", "--device", "1",
                 "--repeat", "5", "--warmup", "0", "--csv", "r.csv",
                 "--quick") == 0);
    EXPECT(n == 4096 && tasks == 16 && scale == 0.25 && verbose == 1);
    /* The text of a value, as given, for a caller that parses it again
     * (imgbatch's options through imgbatch_set_option). */
    EXPECT(tasks_text && strcmp(tasks_text, "16") == 0);
    EXPECT(strcmp(precision, "all") == 0 && strcmp(out_path, "x.npy") == 0);
    EXPECT(opt.device == 1 && opt.repeat == 5 && opt.warmup == 0);
    EXPECT(opt.repeat_given && opt.warmup_given && opt.quick);
    EXPECT(strcmp(opt.csv, "r.csv") == 0);

    /* Help, in either spelling, wins and reports no error. */
    EXPECT(PARSE("--help") == 1);
    EXPECT(PARSE("-h") == 1);

    /* Every bad input is -1 with a one-line reason naming the option. */
    EXPECT(PARSE("--bogus") == -1);
    ERROR_IS("unknown option '--bogus'");
    EXPECT(PARSE("-x") == -1);
    ERROR_IS("unknown option '-x'");
    EXPECT(PARSE("--n") == -1);
    ERROR_IS("option '--n' needs a value");
    EXPECT(PARSE("--n", "0") == -1);
    ERROR_IS("--n: '0' must be at least 1");
    EXPECT(PARSE("--n", "-3") == -1);
    ERROR_IS("--n: size '-3' is negative");
    EXPECT(PARSE("--n", "lots") == -1);
    ERROR_IS("--n: size 'lots' is not a number");
    EXPECT(PARSE("--n", "99999999999999999999") == -1);
    ERROR_IS("--n: size '99999999999999999999' is too large");
    EXPECT(PARSE("--tasks", "65") == -1);
    ERROR_IS("--tasks: '65' must be at most 64");
    EXPECT(PARSE("--tasks", "0") == -1);
    EXPECT(PARSE("--tasks", "2.5") == -1);
    ERROR_IS("--tasks: '2.5' is not a whole number");
    EXPECT(PARSE("--scale", "-1") == -1);
    ERROR_IS("--scale: '-1' is not a positive number");
    EXPECT(PARSE("--scale", "nan") == -1);
    EXPECT(PARSE("--scale", "1e999") == -1);
    EXPECT(PARSE("--precision", "fp16") == -1);
    ERROR_IS("--precision: 'fp16' is not one of fp64|fp32|all");
    EXPECT(PARSE("--precision", "fp") == -1);
    EXPECT(PARSE("--out", "") == -1);
    EXPECT(PARSE("--repeat", "0") == -1);
    ERROR_IS("--repeat: '0' must be at least 1");
    EXPECT(PARSE("--repeat", "ten") == -1);
    ERROR_IS("--repeat: 'ten' is not a whole number");
    EXPECT(PARSE("--warmup", "-1") == -1);
    EXPECT(PARSE("--device", "-1") == -1);
    ERROR_IS("--device: '-1' must be at least 0");
    EXPECT(PARSE("--csv", "") == -1);
    EXPECT(PARSE("stray") == -1);
    ERROR_IS("unexpected argument 'stray'");

    /* Parsing twice in one process starts afresh (getopt state reset). */
    EXPECT(PARSE("--bogus") == -1);
    EXPECT(PARSE("--quick") == 0 && opt.quick);

    /* Positional arguments, where the program takes them. */
    EXPECT(parse_with(&cli_files, (const char *[]){"a.png", "--quick",
                                                   "b.png", NULL}) == 0);
    EXPECT(opt.n_args == 2 && opt.quick);
    EXPECT(opt.n_args == 2 && strcmp(opt.args[0], "a.png") == 0 &&
           strcmp(opt.args[1], "b.png") == 0);
    return test_summary();
}
