/* test.h - the assertions of the CPU unit tests.
 *
 *   EXPECT(x == 3);
 *   EXPECT_STR(cm_format(...), "[1 2 3 4]");   (frees the got string)
 *   return test_summary();
 *
 * Each failed expectation prints file:line and what was seen; the test
 * program exits 1 if any failed.
 */
#ifndef TEST_H
#define TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures, test_count;

#define EXPECT(cond)                                                       \
    do {                                                                   \
        test_count++;                                                      \
        if (!(cond)) {                                                     \
            test_failures++;                                               \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__,    \
                    #cond);                                                \
        }                                                                  \
    } while (0)

/* Compares a malloc'd string with the expected text, then frees it. */
#define EXPECT_STR(got_expr, want)                                         \
    do {                                                                   \
        char *got_ = (got_expr);                                           \
        test_count++;                                                      \
        if (!got_ || strcmp(got_, (want)) != 0) {                          \
            test_failures++;                                               \
            fprintf(stderr, "%s:%d: %s\n  got:\n%s\n  expected:\n%s\n",    \
                    __FILE__, __LINE__, #got_expr,                         \
                    got_ ? got_ : "(null)", (want));                       \
        }                                                                  \
        free(got_);                                                        \
    } while (0)

static inline int test_summary(void)
{
    printf("%d of %d expectations held\n", test_count - test_failures,
           test_count);
    return test_failures ? 1 : 0;
}

#endif /* TEST_H */
