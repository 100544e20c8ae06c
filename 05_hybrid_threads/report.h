/* report.h - what the runs of one mode measured, and how it is reported:
 * per-stage medians, the pipeline's floor, and the rows of the two CSV
 * files.
 *
 *   stage_medians(records, tasks, ms);         median of each stage's time
 *   pipeline_floor f = floor_of(&inputs);      f.floor_ms, FLOOR_NAMES[f.limit]
 *   FILE *csv = cm_csv_open(&file, "modes.csv", MODES_CSV_HEADER);
 *   write_modes_csv(csv, modes, 3);            then cm_csv_finish(&file, &v)
 *
 * Times are milliseconds from the start of the run they belong to.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { STAGE_PREP, STAGE_H2D, STAGE_GEMM, STAGE_D2H, STAGE_CHECK,
       STAGE_COUNT };
extern const char *const STAGE_NAMES[STAGE_COUNT];  /* "prep", "h2d", ... */

typedef struct {
    double start_ms[STAGE_COUNT], end_ms[STAGE_COUNT];
    double cpu_ms;        /* busy time of its prep and check, all threads */
    double worst_ratio;   /* Freivalds: largest |Cx - ABx| / tolerance */
    int checked;          /* 1 once its C passed Freivalds' check */
    int worker;           /* the GPU worker that ran its GPU part */
} task_record;

typedef struct {
    const char *mode;
    size_t n;                       /* matrix side */
    int tasks, workers, threads, runs;
    double wall_ms;                 /* median over the timed runs */
    double stage_ms[STAGE_COUNT];   /* median per task, median run */
    double cpu_ms;                  /* CPU busy time, all tasks, median run */
    double floor_ms;                /* 0: not computed for this mode */
    const char *limit;              /* the resource that sets the floor */
    const task_record *records;     /* the median run's tasks */
} mode_summary;

/* Median over tasks of each stage's duration (end - start). */
void stage_medians(const task_record *records, int tasks,
                   double out_ms[STAGE_COUNT]);

/* Index of the run with the median wall time (the lower middle one for
 * an even count). */
int median_run(const double *wall_ms, int runs);

enum { FLOOR_H2D, FLOOR_D2H, FLOOR_COPIES, FLOOR_GEMM, FLOOR_GPU,
       FLOOR_CPU, FLOOR_TERMS };
extern const char *const FLOOR_NAMES[FLOOR_TERMS];

/* What each resource needed for all tasks when it worked alone: the
 * copies, GEMMs and CPU work of a run in which no two of them overlapped
 * (pipeline_alone), so none of them is slowed by the others. */
typedef struct {
    double h2d_bytes, h2d_ms;       /* all tasks' copies in, alone */
    double d2h_bytes, d2h_ms;       /* all tasks' copies out, alone */
    int copy_engines;               /* the GPU's asyncEngineCount */
    double gemm_ms;                 /* all tasks' GEMMs, alone */
    double cpu_ms;                  /* CPU busy time of all tasks' prep +
                                       check, GPU idle, on cpu_threads */
    int cpu_threads;
} floor_inputs;

typedef struct {
    double term_ms[FLOOR_TERMS];    /* each resource's time; 0: not used */
    double floor_ms;                /* the largest term */
    int limit;                      /* its index */
} pipeline_floor;

/* Each resource works on its own and in parallel with the others, so the
 * run cannot be faster than the busiest one: floor = max of the terms.
 * The GPU's terms follow its copy engines (as common/floor.h): with two
 * or more, copies in, copies out and GEMMs all overlap and are three
 * terms; with one, in and out take turns (FLOOR_COPIES = their sum) and
 * overlap the GEMMs; with none, nothing on the GPU overlaps (FLOOR_GPU =
 * in + out + GEMMs). The CPU term is the busy time spread evenly over
 * the threads. Terms that do not apply are 0. */
pipeline_floor floor_of(const floor_inputs *in);

/* The lines of one mode: wall time, tasks/s, stage medians, CPU time. */
void print_mode(const mode_summary *m);

/* The floor's terms, one line each, then the run's time against it. */
void print_floor(const floor_inputs *in, const pipeline_floor *f,
                 int tasks, double wall_ms);

/* The same prep and check, inside the run and alone: how much CPU time
 * per task the run's sharing cost. Returns pipeline_ms / alone_ms (0
 * when alone_ms is 0) and prints it as one line. */
double print_contention(double pipeline_ms, double alone_ms);

/* One row per mode: wall time, tasks/s and the stage medians. */
void print_table(const mode_summary *modes, int count);

/* --csv: the header line (for cm_csv_open), and the rows under it, one
 * per mode: mode,n,tasks,workers,threads,runs,wall_ms,tasks_per_s, the
 * stage medians, cpu_ms, floor_ms (empty where not computed), limit. */
extern const char *const MODES_CSV_HEADER;
void write_modes_csv(FILE *fp, const mode_summary *modes, int count);

/* --timeline: the header line, and the rows under it, one per task and
 * stage of each mode's median run: mode,task,worker,stage,start_ms,
 * end_ms. */
extern const char *const TIMELINE_CSV_HEADER;
void write_timeline_csv(FILE *fp, const mode_summary *modes, int count);

#ifdef __cplusplus
}
#endif

#endif /* REPORT_H */
