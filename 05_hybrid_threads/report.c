/* report.c - stage statistics, the pipeline's floor and the CSV rows. */
#include "report.h"
#include "floor.h"
#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const STAGE_NAMES[STAGE_COUNT] = {"prep", "h2d", "gemm", "d2h",
                                              "check"};
const char *const FLOOR_NAMES[FLOOR_TERMS] = {
    "copies host to device", "copies device to host", "copies both ways",
    "GEMM", "copies and GEMMs", "CPU prep + check"};

void stage_medians(const task_record *records, int tasks,
                   double out_ms[STAGE_COUNT])
{
    double *samples = malloc((size_t)(tasks > 0 ? tasks : 1) *
                             sizeof *samples);
    for (int s = 0; s < STAGE_COUNT; s++) {
        out_ms[s] = 0;
        if (!samples)
            continue;
        for (int t = 0; t < tasks; t++)
            samples[t] = records[t].end_ms[s] - records[t].start_ms[s];
        out_ms[s] = cm_stats_of(samples, tasks).median_ms;
    }
    free(samples);
}

int median_run(const double *wall_ms, int runs)
{
    /* The median is the run with as many runs faster as slower (ties
     * broken by index), found without reordering the caller's array. */
    for (int i = 0; i < runs; i++) {
        int below = 0;
        for (int j = 0; j < runs; j++)
            if (wall_ms[j] < wall_ms[i] ||
                (wall_ms[j] == wall_ms[i] && j < i))
                below++;
        if (below == (runs - 1) / 2)
            return i;
    }
    return 0;
}

pipeline_floor floor_of(const floor_inputs *in)
{
    pipeline_floor f;
    memset(&f, 0, sizeof f);
    if (in->copy_engines >= 2) {    /* one engine each way, at once */
        f.term_ms[FLOOR_H2D] = in->h2d_ms;
        f.term_ms[FLOOR_D2H] = in->d2h_ms;
        f.term_ms[FLOOR_GEMM] = in->gemm_ms;
    } else if (in->copy_engines == 1) { /* in and out take turns */
        f.term_ms[FLOOR_COPIES] = in->h2d_ms + in->d2h_ms;
        f.term_ms[FLOOR_GEMM] = in->gemm_ms;
    } else {                        /* no copy overlaps anything */
        f.term_ms[FLOOR_GPU] = in->h2d_ms + in->d2h_ms + in->gemm_ms;
    }
    f.term_ms[FLOOR_CPU] = in->cpu_threads > 0
                               ? in->cpu_ms / in->cpu_threads : in->cpu_ms;
    for (int i = 0; i < FLOOR_TERMS; i++)
        if (f.term_ms[i] > f.floor_ms) {
            f.floor_ms = f.term_ms[i];
            f.limit = i;
        }
    return f;
}

static double tasks_per_s(const mode_summary *m)
{
    return m->wall_ms > 0 ? m->tasks / (m->wall_ms * 1e-3) : 0.0;
}

void print_mode(const mode_summary *m)
{
    const double *ms = m->stage_ms;
    printf("  wall time: %.2f ms for %d tasks (median of %d run%s), "
           "%.2f tasks/s\n", m->wall_ms, m->tasks, m->runs,
           m->runs == 1 ? "" : "s", tasks_per_s(m));
    printf("  per task, median ms: prep %.2f | H2D %.2f | GEMM %.2f | "
           "D2H %.2f | check %.2f\n", ms[STAGE_PREP], ms[STAGE_H2D],
           ms[STAGE_GEMM], ms[STAGE_D2H], ms[STAGE_CHECK]);
    printf("  CPU busy (prep + check): %.2f ms per task, on %d thread%s\n",
           m->tasks ? m->cpu_ms / m->tasks : 0.0, m->threads,
           m->threads == 1 ? "" : "s");
}

/* bytes in ms -> GB/s: bytes / (ms * 1e6) */
static double gbps(double bytes, double ms)
{
    return ms > 0 ? bytes / (ms * 1e6) : 0.0;
}

void print_floor(const floor_inputs *in, const pipeline_floor *f,
                 int tasks, double wall_ms)
{
    int engines = in->copy_engines;
    printf("  floor = the busiest resource, each timed alone, %d tasks\n"
           "  (%d copy engine%s: %s):\n", tasks, engines,
           engines == 1 ? "" : "s", cm_copy_engines_meaning(engines));
    if (engines >= 2) {
        printf("    %-22s %.0f bytes in %.2f ms = %.2f GB/s\n",
               FLOOR_NAMES[FLOOR_H2D], in->h2d_bytes, in->h2d_ms,
               gbps(in->h2d_bytes, in->h2d_ms));
        printf("    %-22s %.0f bytes in %.2f ms = %.2f GB/s\n",
               FLOOR_NAMES[FLOOR_D2H], in->d2h_bytes, in->d2h_ms,
               gbps(in->d2h_bytes, in->d2h_ms));
    } else {
        printf("    %-22s in %.2f ms + out %.2f ms = %.2f ms\n",
               FLOOR_NAMES[FLOOR_COPIES], in->h2d_ms, in->d2h_ms,
               in->h2d_ms + in->d2h_ms);
    }
    printf("    %-22s %d x %.3f ms = %.2f ms\n", FLOOR_NAMES[FLOOR_GEMM],
           tasks, tasks ? in->gemm_ms / tasks : 0.0, in->gemm_ms);
    if (engines <= 0)
        printf("    %-22s copies + GEMMs, nothing overlapping = %.2f ms\n",
               FLOOR_NAMES[FLOOR_GPU], f->term_ms[FLOOR_GPU]);
    printf("    %-22s %.1f ms busy / %d threads = %.2f ms\n",
           FLOOR_NAMES[FLOOR_CPU], in->cpu_ms, in->cpu_threads,
           f->term_ms[FLOOR_CPU]);
    printf("  pipeline: %.2f ms = %.2fx its floor of %.2f ms, set by %s\n",
           wall_ms, f->floor_ms > 0 ? wall_ms / f->floor_ms : 0.0,
           f->floor_ms, FLOOR_NAMES[f->limit]);
}

double print_contention(double pipeline_ms, double alone_ms)
{
    double ratio = alone_ms > 0 ? pipeline_ms / alone_ms : 0.0;
    printf("  contention: prep + check cost %.2f ms of CPU per task in the "
           "pipeline, %.2f ms alone (%.2fx)\n", pipeline_ms, alone_ms,
           ratio);
    return ratio;
}

void print_table(const mode_summary *modes, int count)
{
    printf("%-10s %9s %8s   stages: median ms per task\n", "", "", "");
    printf("%-10s %9s %8s", "mode", "wall ms", "tasks/s");
    for (int s = 0; s < STAGE_COUNT; s++)
        printf(" %8s", STAGE_NAMES[s]);
    printf("\n");
    for (int m = 0; m < count; m++) {
        printf("%-10s %9.2f %8.2f", modes[m].mode, modes[m].wall_ms,
               tasks_per_s(&modes[m]));
        for (int s = 0; s < STAGE_COUNT; s++)
            printf(" %8.2f", modes[m].stage_ms[s]);
        printf("\n");
    }
}

const char *const MODES_CSV_HEADER =
    "mode,n,tasks,workers,threads,runs,wall_ms,tasks_per_s,prep_ms,h2d_ms,"
    "gemm_ms,d2h_ms,check_ms,cpu_ms,floor_ms,limit";

void write_modes_csv(FILE *fp, const mode_summary *modes, int count)
{
    for (int m = 0; m < count; m++) {
        const mode_summary *r = &modes[m];
        fprintf(fp, "%s,%zu,%d,%d,%d,%d,%.3f,%.3f", r->mode, r->n, r->tasks,
                r->workers, r->threads, r->runs, r->wall_ms,
                tasks_per_s(r));
        for (int s = 0; s < STAGE_COUNT; s++)
            fprintf(fp, ",%.3f", r->stage_ms[s]);
        fprintf(fp, ",%.3f,", r->cpu_ms);
        if (r->floor_ms > 0)
            fprintf(fp, "%.3f,%s", r->floor_ms, r->limit);
        else
            fprintf(fp, ",");
        fprintf(fp, "\n");
    }
}

const char *const TIMELINE_CSV_HEADER =
    "mode,task,worker,stage,start_ms,end_ms";

void write_timeline_csv(FILE *fp, const mode_summary *modes, int count)
{
    for (int m = 0; m < count; m++)
        for (int t = 0; t < modes[m].tasks; t++) {
            const task_record *r = &modes[m].records[t];
            for (int s = 0; s < STAGE_COUNT; s++)
                fprintf(fp, "%s,%d,%d,%s,%.4f,%.4f\n", modes[m].mode, t,
                        r->worker, STAGE_NAMES[s], r->start_ms[s],
                        r->end_ms[s]);
        }
}
