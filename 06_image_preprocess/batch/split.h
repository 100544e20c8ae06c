/* split.h - how many of a batch's JPEGs go to nvJPEG's hybrid path
 * (Huffman decoding on the reader threads, the rest on the GPU) instead
 * of its batched decoder (the GPU's JPEG engines, fed by the main thread
 * alone), so that the two sides of the pipeline finish a batch together.
 * Pure C, no GPU: the CPU tests hold it to its sums (test_06_split.c).
 *
 *   split_ctl s;
 *   split_init(&s, share, threads);    share < 0: adapted (auto); 0: off
 *   x->split_q = split_q(&s);          when batch x is queued for reading
 *   on a reader, item j of x, a file the batched decoder would take:
 *       if (split_pick(x->split_q, j)) ...the hybrid path instead...
 *   split_observe(&s, &seen);          once batch x is submitted
 *
 * The share is of each batch's positions (split_pick spreads them evenly
 * over it); of those, the files the batched decoder takes are the ones
 * moved. Adapted, it comes from a model of one batch, each side's time a
 * file averaged over the last batches (split_batch):
 *   main thread:    F + e (E - m)
 *   reader threads: (W + r (E - m) + h m) / T
 * with E files the batched decoder would take, m of them moved, e the
 * main thread's time inside nvJPEG's batched calls a file, F its other
 * time on the batch, r a reader's time on a file it only reads and
 * screens, h on one it also decodes, W the readers' time on the batch's
 * other files and T the threads. Equal when
 *   m = (F + e E - (W + r E) / T) / (e + (h - r) / T),
 * the share m / E, within 0 and 1. Until a moved file has been timed the
 * share is SPLIT_FIRST_SHARE.
 */
#ifndef SPLIT_H
#define SPLIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* split_q's unit: a share of q / SPLIT_ONE. */
enum { SPLIT_ONE = 256 };

/* An adapted split's share until it has timed both sides. */
#define SPLIT_FIRST_SHARE 0.25

/* Each batch's times move the averages this part of the way. */
#define SPLIT_WEIGHT 0.25

/* The routed: line's reason for a file the split sent to the hybrid
 * path. */
extern const char SPLIT_WHY[];

/* What one batch took on each side (ms). */
typedef struct {
    size_t batched;        /* files nvJPEG's batched decoder decoded */
    double batched_ms;     /* the main thread inside its calls */
    double main_other_ms;  /* the main thread's other work on the batch */
    size_t plain;          /* of the batched ones, the readers' time */
    double plain_ms;       /*   reading and screening them */
    size_t moved;          /* files the split sent to the hybrid path, */
    double moved_ms;       /*   the readers' time on them */
    double other_ms;       /* the readers' time on the batch's others */
} split_batch;

typedef struct {
    double fixed;          /* the share asked for; < 0: adapted */
    int threads;
    int timed;             /* batches observed */
    int moved_timed;       /* 1 once a moved file was timed */
    /* the averages: a file's e, r, h of the model, and a batch's E, F,
     * W */
    double e, r, h, files, main_other, other;
    double share;          /* the share now */
} split_ctl;

/* share: 0 to 1 (0: off), or below 0 for an adapted share; threads: the
 * reader threads (at least 1). */
void split_init(split_ctl *s, double share, int threads);

/* The share for the next batch queued, in SPLIT_ONE-ths. */
unsigned split_q(const split_ctl *s);

/* 1 if position j of a batch (0, 1, ...) is among a share of
 * q / SPLIT_ONE of them: any n positions in a row hold floor(n q /
 * SPLIT_ONE) or one more, and the first n exactly floor(n q /
 * SPLIT_ONE). */
int split_pick(unsigned q, size_t j);

/* A batch's times, into the averages; an adapted share follows the
 * model above. */
void split_observe(split_ctl *s, const split_batch *b);

/* The model's share for the averages now (0 to 1); what split_observe
 * sets when adapted. */
double split_balance(const split_ctl *s);

#ifdef __cplusplus
}
#endif

#endif /* SPLIT_H */
