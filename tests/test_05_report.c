/* test_05_report.c - stage medians, the median run, the pipeline's floor
 * and the rows of the two CSV files of chapter 05.
 */
#include "../05_hybrid_threads/report.h"
#include "test.h"

#include <unistd.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = calloc(1, 4096);
    size_t got = fread(text, 1, 4095, f);
    text[got] = '\0';
    fclose(f);
    return text;
}

/* A file as hybrid.cu writes it: the header line, then the rows. Returns
 * its text (malloc'd), or NULL if it cannot be written. */
static char *written(const char *path, const char *header,
                     void (*rows)(FILE *, const mode_summary *, int),
                     const mode_summary *modes, int count)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    fprintf(f, "%s\n", header);
    rows(f, modes, count);
    fclose(f);
    return slurp(path);
}

static task_record record(int worker, double start, const double *len)
{
    task_record r;
    memset(&r, 0, sizeof r);
    r.worker = worker;
    for (int s = 0; s < STAGE_COUNT; s++) {
        r.start_ms[s] = start;
        r.end_ms[s] = start + len[s];
        start += len[s];
    }
    return r;
}

int main(void)
{
    double walls[5] = {5, 1, 3, 4, 2};
    EXPECT(median_run(walls, 5) == 2);           /* the 3 */
    double even[4] = {4, 1, 3, 2};
    EXPECT(median_run(even, 4) == 3);            /* the lower middle, 2 */
    double ties[3] = {2, 2, 2};
    EXPECT(median_run(ties, 3) == 1);
    EXPECT(median_run(walls, 1) == 0);

    double len0[STAGE_COUNT] = {10, 2, 3, 1, 4};
    double len1[STAGE_COUNT] = {20, 4, 3, 1, 2};
    double len2[STAGE_COUNT] = {30, 6, 3, 5, 6};
    task_record r[3] = {record(0, 0, len0), record(1, 5, len1),
                        record(0, 30, len2)};
    double med[STAGE_COUNT];
    stage_medians(r, 3, med);
    EXPECT(med[STAGE_PREP] == 20 && med[STAGE_H2D] == 4);
    EXPECT(med[STAGE_GEMM] == 3 && med[STAGE_D2H] == 1);
    EXPECT(med[STAGE_CHECK] == 4);

    /* Two copy engines: 2e9 bytes in 40 ms and 1e9 in 40 ms run side by
     * side; GEMM 20 ms; CPU 800 ms over 16 threads = 50 ms: the CPU sets
     * the floor. */
    floor_inputs in = {2e9, 40, 1e9, 40, 2, 20, 800, 16};
    pipeline_floor f = floor_of(&in);
    EXPECT(f.term_ms[FLOOR_H2D] == 40 && f.term_ms[FLOOR_D2H] == 40);
    EXPECT(f.term_ms[FLOOR_COPIES] == 0);
    EXPECT(f.term_ms[FLOOR_GEMM] == 20 && f.term_ms[FLOOR_CPU] == 50);
    EXPECT(f.floor_ms == 50 && f.limit == FLOOR_CPU);
    in.copy_engines = 3;                         /* more: still side by side */
    EXPECT(floor_of(&in).floor_ms == 50);
    /* One copy engine: in and out take turns, 40 + 40 = 80 ms, now the
     * busiest; no separate H2D or D2H term. */
    in.copy_engines = 1;
    f = floor_of(&in);
    EXPECT(f.term_ms[FLOOR_COPIES] == 80 && f.floor_ms == 80);
    EXPECT(f.limit == FLOOR_COPIES);
    EXPECT(f.term_ms[FLOOR_H2D] == 0 && f.term_ms[FLOOR_D2H] == 0);
    /* None: copies and GEMMs take turns too, 40 + 40 + 20 = 100 ms. */
    in.copy_engines = 0;
    f = floor_of(&in);
    EXPECT(f.term_ms[FLOOR_GPU] == 100 && f.limit == FLOOR_GPU);
    EXPECT(f.term_ms[FLOOR_COPIES] == 0 && f.term_ms[FLOOR_GEMM] == 0);
    in.copy_engines = 2;
    in.cpu_threads = 32;                         /* now the copies in */
    f = floor_of(&in);
    EXPECT(f.floor_ms == 40 && f.limit == FLOOR_H2D);
    in.gemm_ms = 41;
    EXPECT(floor_of(&in).limit == FLOOR_GEMM);
    in.cpu_threads = 0;                          /* 0 threads: the sum */
    EXPECT(floor_of(&in).term_ms[FLOOR_CPU] == 800);

    /* The contention line: the same CPU work in the run and alone. */
    EXPECT(print_contention(150, 100) == 1.5);
    EXPECT(print_contention(150, 0) == 0);

    mode_summary modes[2];
    memset(modes, 0, sizeof modes);
    modes[0].mode = "serial";
    modes[0].n = 4;
    modes[0].tasks = 3;
    modes[0].workers = modes[0].threads = modes[0].runs = 1;
    modes[0].wall_ms = 1500;
    memcpy(modes[0].stage_ms, med, sizeof med);
    modes[0].cpu_ms = 60;
    modes[0].records = r;
    modes[1] = modes[0];
    modes[1].mode = "pipeline";
    modes[1].workers = 2;
    modes[1].threads = 4;
    modes[1].wall_ms = 300;
    modes[1].floor_ms = 250.5;
    modes[1].limit = FLOOR_NAMES[FLOOR_CPU];

    char path[64];
    snprintf(path, sizeof path, "test_05_report.%ld.csv", (long)getpid());
    EXPECT_STR(written(path, MODES_CSV_HEADER, write_modes_csv, modes, 2),
        "mode,n,tasks,workers,threads,runs,wall_ms,tasks_per_s,prep_ms,"
        "h2d_ms,gemm_ms,d2h_ms,check_ms,cpu_ms,floor_ms,limit\n"
        "serial,4,3,1,1,1,1500.000,2.000,20.000,4.000,3.000,1.000,4.000,"
        "60.000,,\n"
        "pipeline,4,3,2,4,1,300.000,10.000,20.000,4.000,3.000,1.000,4.000,"
        "60.000,250.500,CPU prep + check\n");
    char *timeline = written(path, TIMELINE_CSV_HEADER, write_timeline_csv,
                             modes, 1);
    EXPECT(timeline && strncmp(timeline, "mode,task,worker,stage,start_ms,"
                               "end_ms\nserial,0,0,prep,0.0000,10.0000\n"
                               "serial,0,0,h2d,10.0000,12.0000\n", 95) == 0);
    EXPECT(timeline && strstr(timeline, "serial,2,0,check,74.0000,"
                              "80.0000\n") != NULL);
    free(timeline);
    remove(path);
    return test_summary();
}
