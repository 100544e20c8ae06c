/* split.c - the share of a batch's JPEGs that go to nvJPEG's hybrid path
 * (split.h says the model). */
#include "split.h"

const char SPLIT_WHY[] = "shared out from the batched decoder by --hybrid-share";

void split_init(split_ctl *s, double share, int threads)
{
    split_ctl zero = {0};
    *s = zero;
    s->fixed = share;
    s->threads = threads > 0 ? threads : 1;
    s->share = share < 0 ? SPLIT_FIRST_SHARE : share > 1 ? 1 : share;
}

unsigned split_q(const split_ctl *s)
{
    double q = s->share * SPLIT_ONE + 0.5;
    return q <= 0 ? 0 : q >= SPLIT_ONE ? SPLIT_ONE : (unsigned)q;
}

int split_pick(unsigned q, size_t j)
{
    /* the positions where floor(k q / ONE) steps up: as evenly spread as
     * whole positions can be */
    return (j + 1) * q / SPLIT_ONE > j * q / SPLIT_ONE;
}

/* The running average a, moved by SPLIT_WEIGHT toward x (set to x the
 * first time). */
static void toward(double *a, double x, int first)
{
    *a = first ? x : *a + SPLIT_WEIGHT * (x - *a);
}

double split_balance(const split_ctl *s)
{
    double t = s->threads, files = s->files;
    if (files <= 0)
        return 0;
    double gain = s->main_other + s->e * files - (s->other + s->r * files) / t;
    double per_file = s->e + (s->h - s->r) / t;
    if (gain <= 0)
        return 0;   /* the readers are the slower side already */
    if (per_file <= 0)
        return 1;   /* a moved file costs the pair nothing */
    double m = gain / per_file;
    return m >= files ? 1 : m / files;
}

void split_observe(split_ctl *s, const split_batch *b)
{
    int first = s->timed == 0;
    size_t files = b->batched + b->moved;
    toward(&s->files, (double)files, first);
    toward(&s->main_other, b->main_other_ms, first);
    toward(&s->other, b->other_ms, first);
    if (b->batched)
        toward(&s->e, b->batched_ms / b->batched, first || s->e == 0);
    if (b->plain)
        toward(&s->r, b->plain_ms / b->plain, first || s->r == 0);
    if (b->moved) {
        toward(&s->h, b->moved_ms / b->moved, !s->moved_timed);
        s->moved_timed = 1;
    }
    s->timed++;
    if (s->fixed < 0 && s->moved_timed)
        s->share = split_balance(s);
}
