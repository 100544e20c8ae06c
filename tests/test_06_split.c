/* test_06_split.c - imgbatch's split of a batch's JPEGs between nvJPEG's
 * batched decoder and its hybrid path (batch/split.c), on the CPU: the
 * picks' counts exact for every share and run of positions; a fixed
 * share kept; the running averages; the model's share making both sides'
 * times equal (each side computed here from its own formula, not the
 * share's); the share at its ends; an adapted split that meets a
 * pipeline of known costs at its balance after one timed batch. */
#include "test.h"
#include "../06_image_preprocess/batch/split.h"

#include <math.h>

/* The model's two sides for one batch (split.h), m files moved. */
typedef struct {
    double e, r, h, F, W, E;
    int T;
} costs;

static double main_side(const costs *c, double m)
{
    return c->F + c->e * (c->E - m);
}

static double reader_side(const costs *c, double m)
{
    return (c->W + c->r * (c->E - m) + c->h * m) / c->T;
}

/* A batch of E files the batched decoder takes, m of them moved, timed
 * as costs c says. */
static split_batch batch_of(const costs *c, size_t m)
{
    size_t kept = (size_t)c->E - m;
    split_batch b = {.batched = kept, .batched_ms = c->e * kept,
                     .main_other_ms = c->F, .plain = kept,
                     .plain_ms = c->r * kept, .moved = m,
                     .moved_ms = c->h * m, .other_ms = c->W};
    return b;
}

/* An adapted split after one batch of costs c, `moved` files moved. */
static split_ctl adapted_after(const costs *c, size_t moved)
{
    split_ctl s;
    split_init(&s, -1, c->T);
    split_batch b = batch_of(c, moved);
    split_observe(&s, &b);
    return s;
}

static void picks_exact(void)
{
    int bad_first = 0, bad_window = 0;
    for (unsigned q = 0; q <= SPLIT_ONE; q++) {
        size_t sum = 0;
        for (size_t n = 1; n <= 700; n++) {
            sum += (size_t)split_pick(q, n - 1);
            bad_first += sum != n * q / SPLIT_ONE;
        }
        /* any run of n positions: floor(n q / ONE) or one more */
        for (size_t start = 1; start < 300; start += 37)
            for (size_t n = 1; n < 300; n += 11) {
                size_t got = 0;
                for (size_t j = start; j < start + n; j++)
                    got += (size_t)split_pick(q, j);
                size_t least = n * q / SPLIT_ONE;
                bad_window += got < least || got > least + 1;
            }
    }
    EXPECT(bad_first == 0);
    EXPECT(bad_window == 0);
    /* a half: every other position, the second of each pair */
    EXPECT(!split_pick(SPLIT_ONE / 2, 0) && split_pick(SPLIT_ONE / 2, 1) &&
           !split_pick(SPLIT_ONE / 2, 2) && split_pick(SPLIT_ONE / 2, 3));
    EXPECT(!split_pick(0, 0) && !split_pick(0, 12345));
    EXPECT(split_pick(SPLIT_ONE, 0) && split_pick(SPLIT_ONE, 12345));
}

static void shares_asked(void)
{
    split_ctl s;
    split_init(&s, 0, 8);
    EXPECT(split_q(&s) == 0);
    split_init(&s, 1, 8);
    EXPECT(split_q(&s) == SPLIT_ONE);
    split_init(&s, 0.5, 8);
    EXPECT(split_q(&s) == SPLIT_ONE / 2);
    split_init(&s, 0.3, 8);
    EXPECT(split_q(&s) == 77);   /* 0.3 x 256 = 76.8, rounded */
    split_init(&s, -1, 8);
    EXPECT(split_q(&s) == (unsigned)(SPLIT_FIRST_SHARE * SPLIT_ONE));
    /* a fixed share stays whatever the times say */
    costs c = {.e = 0.03, .r = 0.05, .h = 0.9, .F = 1, .W = 0, .E = 200,
               .T = 4};
    split_init(&s, 0.5, 4);
    for (int k = 0; k < 5; k++) {
        split_batch b = batch_of(&c, 100);
        split_observe(&s, &b);
    }
    EXPECT(split_q(&s) == SPLIT_ONE / 2);
    EXPECT(s.timed == 5);
}

static void averages(void)
{
    split_ctl s;
    split_init(&s, 0.5, 2);
    split_batch a = {.batched = 10, .batched_ms = 1.0, .plain = 10,
                     .plain_ms = 2.0, .moved = 10, .moved_ms = 30.0,
                     .main_other_ms = 4, .other_ms = 8};
    split_observe(&s, &a);
    EXPECT(fabs(s.e - 0.1) < 1e-12 && fabs(s.r - 0.2) < 1e-12 &&
           fabs(s.h - 3.0) < 1e-12 && fabs(s.files - 20) < 1e-12 &&
           fabs(s.main_other - 4) < 1e-12 && fabs(s.other - 8) < 1e-12);
    split_batch b = {.batched = 10, .batched_ms = 5.0, .plain = 10,
                     .plain_ms = 2.0, .moved = 0, .main_other_ms = 8,
                     .other_ms = 8};
    split_observe(&s, &b);
    /* e from 0.1 toward 0.5 by a quarter; h kept (nothing moved); the
     * batch's files from 20 toward 10 */
    EXPECT(fabs(s.e - 0.2) < 1e-12);
    EXPECT(fabs(s.h - 3.0) < 1e-12);
    EXPECT(fabs(s.files - 17.5) < 1e-12);
    EXPECT(fabs(s.main_other - 5) < 1e-12);
}

static void balance(void)
{
    /* the engines' side the slower: some files move, both sides equal */
    costs cases[] = {
        {.e = 0.03, .r = 0.05, .h = 0.9, .F = 1, .W = 0, .E = 200, .T = 4},
        {.e = 0.029, .r = 0.04, .h = 0.86, .F = 0.5, .W = 3, .E = 256,
         .T = 12},
        {.e = 0.1, .r = 0.01, .h = 0.3, .F = 2, .W = 1, .E = 256, .T = 16},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const costs *c = &cases[k];
        split_ctl s = adapted_after(c, 50);
        double share = split_q(&s) / (double)SPLIT_ONE;
        double m = s.share * c->E;
        EXPECT(s.share > 0 && s.share < 1);
        EXPECT(fabs(main_side(c, m) - reader_side(c, m)) <
               1e-9 * main_side(c, m));
        /* and the quantized share within one step of it */
        EXPECT(fabs(share - s.share) <= 0.5 / SPLIT_ONE + 1e-12);
    }
    /* the readers the slower already: nothing moves */
    costs slow = {.e = 0.01, .r = 0.5, .h = 1.0, .F = 0.1, .W = 0, .E = 100,
                  .T = 2};
    split_ctl s = adapted_after(&slow, 10);
    EXPECT(s.share == 0 && split_q(&s) == 0);
    /* a moved file cheaper for the pair than a kept one (its reader
     * time below a plain one's by more than e T): every file moves */
    costs free_move = {.e = 0.001, .r = 0.2, .h = 0.1, .F = 2, .W = 0,
                       .E = 100, .T = 16};
    s = adapted_after(&free_move, 10);
    EXPECT(s.share == 1 && split_q(&s) == SPLIT_ONE);
    /* engines so slow that the balance is past every file: all of them */
    costs past = {.e = 5, .r = 0.01, .h = 0.2, .F = 10, .W = 0, .E = 10,
                  .T = 16};
    s = adapted_after(&past, 2);
    EXPECT(s.share == 1);
}

static void adapts(void)
{
    /* Not adapted before a moved file is timed ... */
    costs c = {.e = 0.03, .r = 0.05, .h = 0.9, .F = 1, .W = 2, .E = 256,
               .T = 12};
    split_ctl s = adapted_after(&c, 0);
    EXPECT(fabs(s.share - SPLIT_FIRST_SHARE) < 1e-12);
    /* ... then a pipeline of these costs, each batch moving the files
     * its share picks: at the balance from the first timed batch on, its
     * two sides within one file's time of each other */
    int far = 0;
    for (int k = 0; k < 20; k++) {
        unsigned q = split_q(&s);
        size_t m = 0;
        for (size_t j = 0; j < (size_t)c.E; j++)
            m += (size_t)split_pick(q, j);
        split_batch b = batch_of(&c, m);
        split_observe(&s, &b);
        if (k > 0)
            far += fabs(main_side(&c, (double)m) -
                        reader_side(&c, (double)m)) > c.h / c.T + c.e;
    }
    EXPECT(far == 0);
    EXPECT(s.share > 0.05 && s.share < 0.5);
}

int main(void)
{
    picks_exact();
    shares_asked();
    averages();
    balance();
    adapts();
    return test_summary();
}
