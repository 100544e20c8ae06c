/* imgbatch_set.h - the loader's options by name (imgbatch_set.c): the one
 * table of names, types and checks that imgbatch_set_option (imgbatch.h)
 * and the command line (batch_cli.c) both read, so that a value means
 * the same, and is refused with the same line, from C, Python or a shell.
 *
 *   size_t n;
 *   const ib_option *t = ib_option_table(&n);   t[k].spec: a cm_opt
 *   ib_set_option(&o, "resize", "224x224", NULL) == IMGBATCH_OK
 * On a bad name or value: IMGBATCH_ERR_OPTIONS and the reason, one line
 * naming the option ("--crop: '8' is not WIDTHxHEIGHT, e.g. 224x224").
 */
#ifndef IMGBATCH_SET_H
#define IMGBATCH_SET_H

#include <stddef.h>

#include "options.h"

#include "imgbatch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    cm_opt spec;     /* name, type, help, choices, bounds; .value: the
                        default, as the command line's help shows it */
    int on_cli;      /* a --NAME of imgbatch's own (not --device, which
                        every program has, nor a source the command
                        line gives as arguments) */
} ib_option;

/* The options, in the order the command line applies them (color before
 * mean and std, whose count of values it decides). */
const ib_option *ib_option_table(size_t *n);

/* Strings an options object owns (imgbatch_options_new's); NULL: the
 * caller's strings outlive the options (the command line's argv). */
typedef struct ib_strings ib_strings;

/* Sets one option from its text; value NULL for a flag. */
imgbatch_status ib_set_option(imgbatch_options *o, const char *name,
                              const char *value, ib_strings *own);

#ifdef __cplusplus
}
#endif

#endif /* IMGBATCH_SET_H */
