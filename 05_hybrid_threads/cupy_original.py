"""05 as the tutorial wrote it: section 2.24.3.2.2 (a ThreadPoolExecutor
around NumPy -> CuPy -> NumPy).

    def compute_matrix_mult(a, b):
        a_cp = cp.asarray(a)
        b_cp = cp.asarray(b)
        c_cp = cp.dot(a_cp, b_cp)
        return cp.asnumpy(c_cp)

    a_np = np.random.rand(10000, 10000)
    b_np = np.random.rand(10000, 10000)
    with ThreadPoolExecutor() as executor:
        future = executor.submit(compute_matrix_mult, a_np, b_np)
        c_np = future.result()
    print(c_np)

Run: python3 05_hybrid_threads/cupy_original.py [--quick] [--json FILE]
     make compare-05        (the C lab and this file, one table)

tutorial() runs that as it stands (it times nothing). measure() then runs
the C lab's tasks: 8 tasks (--quick: 5) of n = 4000 (300), each one
preparing A and B on the CPU (uniform samples, each row scaled to mean 0
and standard deviation 1, with the products Freivalds' check needs),
C = A B on the GPU, and the check of C on the CPU, in the lab's modes:

- serial: one thread, task after task, with the tutorial's
  compute_matrix_mult (pageable copies, CuPy's default stream).
- offload: the tutorial's pool used properly: one GPU thread runs
  compute_matrix_mult while the main thread checks the previous task and
  prepares the next.
- pipeline ("CuPy, written well"): 4 GPU threads (--quick: 2), each with
  its own cp.cuda.Stream(non_blocking=True), device arrays and pinned
  host arrays (cupyx.empty_pinned), copies queued with ndarray.set/get on
  that stream; each task's preparation and check are cut into blocks of
  rows shared by a pool of CPU threads, one per CPU this process may use
  (--quick: 2), as the lab's pipeline shares them.
- tutorial pool, no prep (CuPy side only): the tutorial's code alone, one
  compute_matrix_mult call per task through a pool of as many threads as
  the pipeline has GPU threads, on inputs prepared before the clock
  starts, as in the tutorial's snippet.
- a task's GPU part, the same work on both sides (the summary's row):
  what the lab's serial mode does between its CPU steps, A and B copied
  from pageable memory into device arrays made once (ndarray.set, a
  cudaMemcpy as the lab's), C = A B (cp.dot with out=), C copied back
  into a host array made once (ndarray.get with out=), on the legacy
  default stream, each of the three stages between CUDA events and every
  task waited for. The lab reports each stage's median over the tasks of
  its serial run; this row and the lab's are the sum of the three.
  The modes above do the same GPU work, but their CPU work differs in
  kind (NumPy's passes over the arrays against the lab's fused C loops).

Where this differs from the tutorial, and why:
- A and B are not np.random.rand as they stand: each row is normalised,
  as the lab's are, and they come from NumPy's default generator seeded
  by (task, matrix, block of rows), so any split among threads gives the
  same matrices. The lab draws its own numbers (xoshiro256+), so the two
  sides multiply different matrices: each checks its own products with
  Freivalds' test (C x against A (B x), with the lab's tolerance), and
  agree() compares the work each side did, not the products.
- NumPy does the CPU work; its heavy calls release the GIL, which is what
  lets threads share it.

Timing, as the lab's: the host clock around a whole run of all tasks
(every task ends in a wait for its copy back, so all GPU work is done),
the median of 5 runs (--quick: 3). Warm-up before them: one task on the
same threads for serial and offload (cuBLAS handles, CuPy's memory pool,
its kernels), one whole run for the pipeline and the tutorial pool, one
task for the GPU part.
"""
import csv
import os
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", "common"))
import cupy_env  # noqa: E402  (needs the path above)

cp = np = None              # set by _modules(), once CuPy is known to work

N, TASKS, WORKERS = 4000, 8, 4                  # the lab's defaults
QUICK_N, QUICK_TASKS, QUICK_WORKERS, QUICK_THREADS = 300, 5, 2, 2
RUNS, QUICK_RUNS = 5, 3
SEED = 20250204
BLOCK = 64                  # rows in one block of CPU work
UNIT_ROUNDOFF = 2.0 ** -53
SAFETY = 5.0                # the lab's CM_FREIVALDS_SAFETY

S_SERIAL = "serial: 1 thread, task after task"
S_OFFLOAD = "offload: 1 GPU thread, main thread preps"
S_PIPELINE = "pipeline: per-thread streams, pinned"
S_TUTORIAL = "tutorial pool, no CPU prep"
S_GPU_PART = "a task's GPU part: H2D A, B + GEMM + D2H C"


def _modules():
    """cupy and numpy, or one line and exit 77 (cupy_env)."""
    global cp, np
    if cp is None:
        cp, np = cupy_env.require_cupy()
    return cp, np


# ---- the tutorial -----------------------------------------------------

def compute_matrix_mult(a, b):
    a_cp = cp.asarray(a)            # NumPy -> CuPy (host -> device)
    b_cp = cp.asarray(b)
    c_cp = cp.dot(a_cp, b_cp)       # matrix product on the GPU
    return cp.asnumpy(c_cp)         # CuPy -> NumPy (device -> host)


def tutorial():
    """Section 2.24.3.2.2 as it stands: 10000 x 10000, one task."""
    _modules()
    a_np = np.random.rand(10000, 10000)
    b_np = np.random.rand(10000, 10000)
    with ThreadPoolExecutor() as executor:
        future = executor.submit(compute_matrix_mult, a_np, b_np)
        c_np = future.result()
    print(c_np)


# ---- a task's CPU half: prepare A and B, check C ------------------------

class HostTask:
    """A task's host arrays: A, B, C (n x n float64, made by `empty`:
    np.empty or cupyx.empty_pinned) and Freivalds' vectors: x random,
    y = B x, s = |B| 1, z = A y, bound = |A| s, ratio per row."""

    def __init__(self, n, empty):
        self.n = n
        self.a, self.b, self.c = [empty((n, n), np.float64)
                                  for _ in range(3)]
        self.x, self.y, self.s, self.z, self.bound, self.ratio = [
            np.empty(n) for _ in range(6)]


def run_blocks(pool, fn, n):
    """fn(row0) for every block of rows: on `pool`'s threads, or here."""
    starts = range(0, n, BLOCK)
    if pool is None:
        for r0 in starts:
            fn(r0)
    else:
        for _ in pool.map(fn, starts):      # re-raises a block's error
            pass


def prep_block(m, seed, r0, v, v_abs, dot, abs_dot):
    """Rows [r0, r0 + BLOCK) of m: uniform samples, each row scaled to mean
    0 and standard deviation 1 (two passes, as the lab's), then
    dot = rows . v and abs_dot = |rows| . |v| (|v| = 1 when v_abs is
    None) while the rows are in the cache."""
    n = m.shape[1]
    rows = m[r0:r0 + BLOCK]
    np.random.default_rng(seed).random(out=rows)
    rows -= rows.mean(axis=1, keepdims=True)
    var = np.einsum("ij,ij->i", rows, rows) / n
    scale = np.zeros_like(var)      # a row with no spread becomes 0
    np.divide(1.0, np.sqrt(var), out=scale, where=var > 0)
    rows *= scale[:, None]
    r1 = r0 + rows.shape[0]
    dot[r0:r1] = np.einsum("ij,j->i", rows, v)
    mag = np.abs(rows)
    abs_dot[r0:r1] = (mag.sum(axis=1) if v_abs is None
                      else np.einsum("ij,j->i", mag, v_abs))


def prep_task(t, k, pool):
    """x, then B (with y, s), then A (with z, bound): A's products need
    all of y. Values depend on (SEED, task, matrix, block) alone."""
    rng = np.random.default_rng([SEED, k, 2])
    t.x[:] = (0.5 + 0.5 * rng.random(t.n)) * np.where(
        rng.integers(0, 2, t.n) == 1, 1.0, -1.0)
    run_blocks(pool, lambda r0: prep_block(
        t.b, [SEED, k, 1, r0], r0, t.x, None, t.y, t.s), t.n)
    run_blocks(pool, lambda r0: prep_block(
        t.a, [SEED, k, 0, r0], r0, t.y, t.s, t.z, t.bound), t.n)


def check_task(t, pool):
    """Freivalds: ratio_i = |(C x)_i - z_i| / (5 n u bound_i), the lab's
    tolerance. Returns the worst ratio (<= 1 passes; NaN fails)."""
    n = t.n

    def block(r0):
        r1 = min(r0 + BLOCK, n)
        diff = np.abs(np.einsum("ij,j->i", t.c[r0:r1], t.x) - t.z[r0:r1])
        tol = SAFETY * n * UNIT_ROUNDOFF * t.bound[r0:r1]
        with np.errstate(divide="ignore", invalid="ignore"):
            t.ratio[r0:r1] = np.where(tol > 0, diff / tol,
                                      np.where(diff == 0, 0.0, np.inf))
    run_blocks(pool, block, n)
    return float(np.max(t.ratio))       # NaN if any row is NaN


def worse(a, b):
    """The worse of two worst ratios; NaN wins."""
    return a + b if a != a or b != b else max(a, b)


# ---- the modes ----------------------------------------------------------

def run_serial(tasks, t):
    worst = 0.0
    for k in range(tasks):
        prep_task(t, k, None)
        t.c = compute_matrix_mult(t.a, t.b)
        worst = worse(worst, check_task(t, None))
    return worst


def run_offload(tasks, sets, gpu):
    """Submit task k, then check k - 1 and prepare k + 1 into the other
    set of arrays, then wait for k."""
    prep_task(sets[0], 0, None)
    worst = 0.0
    for k in range(tasks):
        cur = sets[k % 2]
        future = gpu.submit(compute_matrix_mult, cur.a, cur.b)
        if k > 0:
            worst = worse(worst, check_task(sets[(k - 1) % 2], None))
        if k + 1 < tasks:
            prep_task(sets[(k + 1) % 2], k + 1, None)
        cur.c = future.result()
    return worse(worst, check_task(sets[(tasks - 1) % 2], None))


class Lane:
    """One GPU thread's own: a non-blocking stream (cuBLAS handles are
    CuPy's per thread already), device A, B, C and pinned host arrays."""

    def __init__(self, n):
        import cupyx
        self.stream = cp.cuda.Stream(non_blocking=True)
        with self.stream:
            self.a, self.b, self.c = [cp.empty((n, n), cp.float64)
                                      for _ in range(3)]
        self.host = HostTask(n, cupyx.empty_pinned)


def run_pipeline(tasks, lanes, gpu, cpu):
    """Each lane takes the next task, has the CPU pool prepare it into its
    pinned arrays, queues H2D, GEMM and D2H on its stream, waits for that
    stream only, and has the pool check C."""
    lock = threading.Lock()
    taken = [0]

    def take():
        with lock:                  # read and advance: one step
            k = taken[0]
            taken[0] += 1
        return k if k < tasks else -1

    def lane_loop(lane):
        h, s, worst = lane.host, lane.stream, 0.0
        with s:                     # this thread's current stream
            while True:
                k = take()
                if k < 0:
                    return worst
                prep_task(h, k, cpu)
                lane.a.set(h.a, stream=s)       # pinned: queued, returns
                lane.b.set(h.b, stream=s)
                cp.dot(lane.a, lane.b, out=lane.c)
                lane.c.get(stream=s, out=h.c)   # waits for this stream
                worst = worse(worst, check_task(h, cpu))

    futures = [gpu.submit(lane_loop, lane) for lane in lanes]
    worst = 0.0
    for f in futures:
        worst = worse(worst, f.result())
    return worst


class GpuPart:
    """The lab's compute_matrix_mult in its serial mode, written well:
    device A, B, C made once, pageable copies in and out (into the task's
    own C), the three stages between CUDA events on the current stream."""

    def __init__(self, n):
        self.a, self.b, self.c = [cp.empty((n, n), cp.float64)
                                  for _ in range(3)]
        self.marks = [cp.cuda.Event() for _ in range(4)]

    def run(self, t):
        """Task t's GPU part; returns its stages' ms (H2D, GEMM, D2H)."""
        m = self.marks
        m[0].record()
        self.a.set(t.a)
        self.b.set(t.b)
        m[1].record()
        cp.dot(self.a, self.b, out=self.c)
        m[2].record()
        self.c.get(out=t.c)
        m[3].record()
        m[3].synchronize()
        return [cp.cuda.get_elapsed_time(m[i], m[i + 1]) for i in range(3)]


def run_tutorial_pool(inputs, gpu):
    """The tutorial's code alone: every task submitted, then every result
    taken, as the tutorial's one submit and result() would be."""
    futures = [gpu.submit(compute_matrix_mult, t.a, t.b) for t in inputs]
    for t, f in zip(inputs, futures):
        t.c = f.result()


# ---- measured -----------------------------------------------------------

def timed_runs(run, runs):
    """(median ms, worst ratio) of `runs` calls of run() -> worst ratio,
    on the host clock; the device is idle at each start."""
    samples, worst = [], 0.0
    for _ in range(runs):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        worst = worse(worst, run())
        samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples), worst


def work_text(n, tasks, workers=None, threads=None):
    """What a run did, in words both sides can print: the 'check' field
    that agree() compares."""
    text = "n %d, %d tasks" % (n, tasks)
    if workers:
        text += ", %d GPU threads" % workers
    if threads:
        text += ", %d CPU threads" % threads
    return text


def _row(step, ms, tasks, worst, check):
    return {"step": step, "ms": float(ms), "check": check,
            "unit_rate": "%.2f tasks/s" % (tasks / (ms * 1e-3)),
            "ok": bool(worst <= 1.0)}


def measure(quick):
    _modules()
    if quick:
        n, tasks, workers, threads = (QUICK_N, QUICK_TASKS, QUICK_WORKERS,
                                      QUICK_THREADS)
    else:
        n, tasks, workers, threads = N, TASKS, WORKERS, cupy_env.cpu_count()
    runs = QUICK_RUNS if quick else RUNS
    rows = []

    t = HostTask(n, np.empty)           # serial
    prep_task(t, 0, None)
    t.c = compute_matrix_mult(t.a, t.b)
    warm = check_task(t, None)
    ms, worst = timed_runs(lambda: run_serial(tasks, t), runs)
    rows.append(_row(S_SERIAL, ms, tasks, worse(warm, worst),
                     work_text(n, tasks)))

    with ThreadPoolExecutor(max_workers=1) as gpu:      # offload
        sets = [t, HostTask(n, np.empty)]
        t.c = gpu.submit(compute_matrix_mult, t.a, t.b).result()
        warm = check_task(t, None)
        prep_task(sets[1], 1, None)     # its pages touched before timing
        ms, worst = timed_runs(lambda: run_offload(tasks, sets, gpu), runs)
        rows.append(_row(S_OFFLOAD, ms, tasks, worse(warm, worst),
                         work_text(n, tasks)))
    del t, sets

    lanes = [Lane(n) for _ in range(workers)]           # pipeline
    with ThreadPoolExecutor(max_workers=workers) as gpu, \
            ThreadPoolExecutor(max_workers=threads) as cpu:
        warm = run_pipeline(tasks, lanes, gpu, cpu)
        ms, worst = timed_runs(
            lambda: run_pipeline(tasks, lanes, gpu, cpu), runs)
        rows.append(_row(S_PIPELINE, ms, tasks, worse(warm, worst),
                         work_text(n, tasks, workers, threads)))

        # The tutorial's code alone, its inputs made before the clock.
        inputs = [HostTask(n, np.empty) for _ in range(tasks)]
        for k, h in enumerate(inputs):
            prep_task(h, k, cpu)
        del lanes

        def tutorial_run():
            run_tutorial_pool(inputs, gpu)
            return 0.0
        tutorial_run()
        ms, _ = timed_runs(tutorial_run, runs)
        worst = 0.0                     # checked after the clock
        for h in inputs:
            worst = worse(worst, check_task(h, cpu))
        rows.append(_row(S_TUTORIAL, ms, tasks, worst,
                         work_text(n, tasks, workers)))

        # The GPU part alone, task after task, as the lab's serial mode
        # times it: each stage's median over every task of the runs, then
        # their sum (the lab: over the tasks of its median run).
        part = GpuPart(n)
        part.run(inputs[0])
        stages = [[], [], []]
        for _ in range(runs):
            for h in inputs:
                for s, ms in zip(stages, part.run(h)):
                    s.append(ms)
        ms = sum(statistics.median(s) for s in stages)
        worst = 0.0                     # C of the last run, every task
        for h in inputs:
            worst = worse(worst, check_task(h, cpu))
        rows.append(dict(_row(S_GPU_PART, ms, tasks, worst,
                              work_text(n, tasks)), unit_rate="per task"))
        del part
    return rows


# For make compare-05: how the C lab reports the same steps
C_ARGS = ["--n", str(N), "--tasks", str(TASKS), "--workers", str(WORKERS)]
C_QUICK_ARGS = ["--quick"]      # n 300, 5 tasks, 2 workers, 2 threads

C_MODES = {"serial": S_SERIAL, "offload": S_OFFLOAD, "pipeline": S_PIPELINE}


def c_rows(csv_path):
    """One row per mode of the lab's --csv: its median wall time, and in
    'check' the work it did (n, tasks; the pipeline's GPU and CPU
    threads), from the same file. The serial row's stage medians per task
    (h2d_ms, gemm_ms, d2h_ms) add up to the GPU part's row."""
    rows = []
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            step = C_MODES.get(r["mode"])
            if step is None:
                continue
            pipeline = r["mode"] == "pipeline"
            rows.append({"step": step, "ms": float(r["wall_ms"]),
                         "check": work_text(
                             int(r["n"]), int(r["tasks"]),
                             int(r["workers"]) if pipeline else None,
                             int(r["threads"]) if pipeline else None)})
            if r["mode"] == "serial":
                rows.append({"step": S_GPU_PART, "ms": sum(
                    float(r[k]) for k in ("h2d_ms", "gemm_ms", "d2h_ms")),
                    "check": work_text(int(r["n"]), int(r["tasks"]))})
    return rows


WHY = {
    S_SERIAL: "CPU work: NumPy passes vs one C loop per row; cp.asnumpy "
              "makes a new host array per task, the C lab reuses one",
    S_OFFLOAD: "as serial; one thread does all the CPU work on both sides",
    S_PIPELINE: "CPU prep and check over all cores, both sides: NumPy "
                "passes vs fused C loops",
    S_TUTORIAL: "CuPy side only: no CPU work; pageable host arrays, "
                "every thread on the one legacy default stream",
    S_GPU_PART: "the same work: 2 pageable copies in, cuBLAS dgemm, 1 "
                "copy out, into arrays made once; CuPy calls from Python",
}

HEADLINE = S_GPU_PART
TIMING = ("modes: the host clock around a whole run of all tasks; the GPU "
          "part: each stage between CUDA events, every task waited for")


def agree(cupy_rows, c_rows):
    """The two sides multiply different matrices (NumPy's generator here,
    the lab's xoshiro256+ there), so their products cannot be compared;
    each side checks its own with Freivalds' test (the lab writes its CSV
    only when every check passed; a failed check here makes the row not
    ok). What can be compared is that both timed the same work, mode by
    mode: the matrix size, the tasks, and the pipeline's threads."""
    return cupy_env.same_checks(cupy_rows, c_rows,
                                "same work (n, tasks, threads)")


if __name__ == "__main__":
    sys.exit(cupy_env.main(tutorial, measure))
