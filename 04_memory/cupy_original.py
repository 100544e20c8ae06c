#!/usr/bin/env python3
"""04_memory, the CuPy original: the tutorial's memory section (2.24.2),
run as the tutorial writes it, then timed beside the C lab.

    python3 04_memory/cupy_original.py [--quick] [--json FILE]

tutorial() runs the section's three snippets at its sizes, each as its own
script would (what one leaves behind is deleted before the next):

    x = cp.random.rand(10000, 10000)
    memory_usage = x.nbytes / 1024**2          # "memory use, in MB"
    a = cp.random.rand(10000, 10000); b = cp.random.rand(10000, 10000)
    c = block_matrix_multiply(a, b, 1000)      # below, as written
    x = cp.random.rand(10000, 10000); y = cp.dot(x, x)
    del x; cp.get_default_memory_pool().free_all_blocks(); print(y)

It times nothing, so there is no "tutorial's timing" to show; we add
checks (the blocked c against one cp.dot, and three elements of y).

measure() does the same work at the C lab's sizes (n = 10000, block 1000;
--quick: n = 2001, block 500, which leaves an edge block of 1, as
`04_memory --quick`), timed as the lab times it: GPU work with one CUDA
event pair per repetition, queued back to back and read after the last
one (cupy_env.time_events, the lab's cm_time_events); allocations on the
host clock, each ending in a synchronize (cupy_env.time_host). Medians
of 10 after 2 warm-ups (--quick: 3 after 1).
The rows:
  - x = cp.random.rand(n, n): cuRAND's fill; x.nbytes, which the lab's
    CSV also reports.
  - one GEMM, cp.dot(a, b, out=c): the lab's "one call".
  - the blocked GEMM, tutorial code: block_matrix_multiply as written. For
    each of its n^3 / block^3 products cp.dot copies both block views
    into contiguous temporaries (a block of a larger matrix is neither C-
    nor F-contiguous), writes the product into a third, and += adds that
    into c in another kernel, all on one stream.
  - the blocked GEMM, CuPy written well: the same block products as the
    lab's blocked.cu makes them, one cuBLAS call each on the views
    themselves (a pointer into the big array and its row length), beta = 1
    to add into c in place, C blocks dealt over 4 streams, one cuBLAS
    handle each (as the lab with --streams 4). No call of CuPy's array
    API adds the product of two views of a larger matrix into a third
    without copying them: cp.dot's out= must be C-contiguous and is
    overwritten, and cupy.cublas.gemm, which takes a beta, first copies
    a view that is neither C- nor F-contiguous. So this calls cuBLAS
    through CuPy's own binding, cupy_backends.cuda.libs.cublas.dgemm.
    The same work as the lab's blocked GEMM, on as many streams (the
    driver gives the lab --streams 4): the summary's row.
  - y = cp.dot(x, x), with x from cp.random.RandomState(11): the same
    cuRAND generator, seed and offset as the lab's pool part, so both
    sides hold the same x, and the checksums of y can be compared.
  - del x; free_all_blocks(): measured by the pool's own counters
    (used_bytes(), total_bytes()), with the time of free_all_blocks(),
    repeated with new x-sized arrays (no warm-up: each one frees a
    block).
  - alloc + free of an x-sized array from a warm pool, and with the pool
    emptied each time (then CuPy's pool calls cudaMalloc and cudaFree):
    the lab's part 3 times the same two.
Where this differs from the tutorial's text, and why: seeded generators
(cp.random.RandomState(seed) for a, b and x) so that runs repeat and x is
the lab's; the CuPy-written-well row above; a host copy of what the
checks need (NumPy checks every product by Freivalds' method, with the
lab's tolerance, common/freivalds.c).
"""
import csv
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", "common"))
import cupy_env  # noqa: E402  (needs the path above)

N, BLOCK = 10000, 1000                # memory.cu's defaults
QUICK_N, QUICK_BLOCK = 2001, 500      # memory.cu's --quick
STREAMS = 4                           # given to the lab: --streams 4
SEED_A, SEED_B = 1, 2
SEED_POOL_X = 11                      # pool.cu: SEED_POOL_X, cuRAND
SEED_CHECK = 3
EPS = 2.0 ** -52                      # DBL_EPSILON
FREIVALDS_SAFETY = 5.0                # common/freivalds.h
CUBLAS_OP_N = 0

S_NBYTES = "x = cp.random.rand(n, n); x.nbytes"
S_ONE = "one GEMM: cp.dot(a, b, out=c)"
S_BLK_TUT = "blocked GEMM: tutorial code"
S_BLK_VIEWS = "blocked GEMM: views, beta = 1, 4 streams"
S_Y = "y = cp.dot(x, x), the lab's x"
S_FREE = "del x; free_all_blocks()"
S_ALLOC_POOL = "alloc + free x: warm pool"
S_ALLOC_RAW = "alloc + free x: cudaMalloc + cudaFree"


def _libs():
    """(cupy, numpy), or exit 77 with the line saying what is missing."""
    return cupy_env.require_cupy()


def block_matrix_multiply(a, b, block_size):
    """Section 2.24.2.2.1, as written."""
    cp, _ = _libs()
    m, n = a.shape
    n, p = b.shape
    c = cp.zeros((m, p), dtype=a.dtype)
    for i in range(0, m, block_size):
        for j in range(0, p, block_size):
            for k in range(0, n, block_size):
                a_block = a[i:i+block_size, k:k+block_size]
                b_block = b[k:k+block_size, j:j+block_size]
                c[i:i+block_size, j:j+block_size] += cp.dot(a_block,
                                                            b_block)
    return c


class BlockedViews:
    """The lab's blocked GEMM (blocked.cu), in CuPy: c = a @ b as one
    cuBLAS call per block product, on views of a, b and c, adding into c
    with beta = 1; different C blocks go to different streams."""

    def __init__(self, cp, np, n, bs, streams):
        try:
            from cupy_backends.cuda.libs import cublas
        except ImportError:        # older CuPy kept it here
            from cupy.cuda import cublas
        self.cp, self.cublas, self.n, self.bs = cp, cublas, n, bs
        self.streams = [cp.cuda.Stream(non_blocking=True)
                        for _ in range(streams)]
        # One handle per stream, each with its own workspace (as the lab,
        # and cuBLAS's guide for concurrent streams).
        self.handles = []
        for s in self.streams:
            h = cublas.create()
            self.handles.append(h)
            cublas.setStream(h, s.ptr)
        self.fork = cp.cuda.Event(disable_timing=True)
        self.joins = [cp.cuda.Event(disable_timing=True) for _ in
                      self.streams]
        self.one = np.ones(1)      # alpha = beta = 1.0, read from the host

    def run(self, a, b, c):
        n, bs = self.n, self.bs
        for m in (a, b, c):
            assert m.shape == (n, n) and m.dtype.char == "d" and \
                m.flags.c_contiguous
        blocks = -(-n // bs)
        s0 = self.streams[0]
        with s0:                   # c = cp.zeros(...): a memset of c
            c.data.memset_async(0, c.nbytes)
        self.fork.record(s0)
        for s in self.streams[1:]:
            s.wait_event(self.fork)
        one = self.one.ctypes.data
        pa, pb, pc = a.data.ptr, b.data.ptr, c.data.ptr
        dgemm = self.cublas.dgemm
        for i in range(blocks):
            rows = min(bs, n - i * bs)
            for j in range(blocks):
                cols = min(bs, n - j * bs)
                s = (i * blocks + j) % len(self.streams)
                with self.streams[s]:
                    for k in range(blocks):
                        # c[i, j] += a[i, k] @ b[k, j]. cuBLAS is column-
                        # major: it computes c^T = b^T a^T, so b comes
                        # first and the sizes are (cols, rows); each view
                        # is its first element, with row length n.
                        dgemm(self.handles[s], CUBLAS_OP_N, CUBLAS_OP_N,
                              cols, rows, min(bs, n - k * bs), one,
                              pb + 8 * (k * bs * n + j * bs), n,
                              pa + 8 * (i * bs * n + k * bs), n, one,
                              pc + 8 * (i * bs * n + j * bs), n)
        for s, done in zip(self.streams[1:], self.joins[1:]):
            done.record(s)
            s0.wait_event(done)

    def close(self):
        for s in self.streams:
            s.synchronize()
        for h in self.handles:
            self.cublas.destroy(h)
        self.handles = []


def median(samples):
    return float(statistics.median(samples))


def rel_diff(cp, got, want):
    """||got - want|| / ||want|| (Frobenius), on the GPU."""
    return float(cp.linalg.norm(got - want) / cp.linalg.norm(want))


def freivalds(np, a, b, c, seed):
    """common/freivalds.c in NumPy: C x against A (B x) for x_j = +-[0.5,
    1), row by row, within 5 n u (|A| |B| 1)_i, a bound no correct C can
    exceed. Returns (worst ratio of difference to tolerance, its row)."""
    n = a.shape[0]
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.5, 1.0, n) * rng.choice([-1.0, 1.0], n)
    diff = np.abs(c @ x - a @ (b @ x))
    bound = np.abs(a) @ (np.abs(b) @ np.ones(n))
    tol = FREIVALDS_SAFETY * n * 2.0 ** -53 * bound
    ratio = np.where(tol > 0, diff / np.where(tol > 0, tol, 1.0),
                     np.where(diff == 0, 0.0, np.inf))
    ratio = np.where(np.isnan(ratio), np.inf, ratio)
    worst = int(np.argmax(ratio))
    return float(ratio[worst]), worst


def checksums(np, y):
    """The CSV's y_sum and y_weighted_sum (pool.cu): every element, and
    row i's sum times i + 1."""
    rows = y.sum(axis=1)
    weights = np.arange(1, y.shape[0] + 1, dtype=np.float64)
    return float(rows.sum()), float((weights * rows).sum())


def row(step, ms, ok, rate=None, check=None, detail="", **extra):
    r = {"step": step, "ms": float(ms), "ok": bool(ok), "detail": detail}
    if rate is not None:
        r["unit_rate"] = rate
    if check is not None:
        r["check"] = check
    r.update(extra)
    return r


def tutorial():
    """Section 2.24.2's three snippets; returns whether the checks held."""
    cp, np = _libs()
    # 2.24.2.1.1
    x = cp.random.rand(10000, 10000)
    memory_usage = x.nbytes / 1024**2
    print(f"memory use: {memory_usage:.2f} MB")   # "显存占用"
    del x
    # 2.24.2.2.1
    a = cp.random.rand(10000, 10000)
    b = cp.random.rand(10000, 10000)
    c = block_matrix_multiply(a, b, 1000)
    print(c)
    err, tol = rel_diff(cp, c, cp.dot(a, b)), 2 * 10000 * EPS
    ok = err <= tol
    print(f"check c vs one cp.dot(a, b): relative difference {err:.2e} "
          f"(tolerance 2 n eps = {tol:.1e}) {'ok' if ok else 'FAILED'}")
    del a, b, c
    # 2.24.2.2.2
    x = cp.random.rand(10000, 10000)
    y = cp.dot(x, x)
    probe = (cp.asnumpy(x[0]), cp.asnumpy(x[:, :3]))   # for the check
    del x
    cp.get_default_memory_pool().free_all_blocks()
    print(y)
    want = probe[0] @ probe[1]                 # y[0, :3] in NumPy
    got = cp.asnumpy(y[0, :3])
    err, tol = float(np.max(np.abs(got - want) / want)), 2 * 10000 * EPS
    print(f"check y[0, :3] vs NumPy: relative error {err:.2e} "
          f"(tolerance {tol:.1e}) {'ok' if err <= tol else 'FAILED'}\n")
    return ok and err <= tol


def measure(quick):
    cp, np = _libs()
    n, bs = (QUICK_N, QUICK_BLOCK) if quick else (N, BLOCK)
    warmup, repeat = (1, 3) if quick else (2, 10)
    pool = cp.get_default_memory_pool()
    nbytes = n * n * 8
    flops = 2.0 * n ** 3
    tol = 2 * n * EPS      # blocked vs one call: two orders of summation
    rows = []
    got = {}

    def tflops(ms):
        return f"{flops / (ms * 1e9):.2f} TFLOP/s"

    # x = cp.random.rand(n, n); x.nbytes
    rs = cp.random.RandomState(SEED_POOL_X)

    def rand():
        got["x"] = rs.rand(n, n)
    t = cupy_env.time_events(cp, rand, warmup, repeat)
    x = got.pop("x")
    lo, hi = float(x.min()), float(x.max())
    ok = x.nbytes == nbytes and x.dtype == np.float64 and 0 <= lo < hi < 1
    rows.append(row(S_NBYTES, t, ok, f"{nbytes / (t * 1e6):.1f} GB/s",
                    check=int(x.nbytes), detail=f"x.nbytes {x.nbytes} = "
                    f"{x.nbytes / 1024**2:.2f} MiB (the tutorial's \"MB\") "
                    f"= {x.nbytes / 1e6:.2f} MB; values from {lo:.3g} to "
                    f"{hi:.9f}"))
    del x

    # The blocked GEMM and the one call it stands for, on the same a, b.
    a = cp.random.RandomState(SEED_A).rand(n, n)
    b = cp.random.RandomState(SEED_B).rand(n, n)
    c_one = cp.empty((n, n))
    t = cupy_env.time_events(cp, lambda: cp.dot(a, b, out=c_one), warmup,
                             repeat)
    worst, where = freivalds(np, cp.asnumpy(a), cp.asnumpy(b),
                             cp.asnumpy(c_one), SEED_CHECK)
    rows.append(row(S_ONE, t, worst <= 1, tflops(t), detail="Freivalds "
                    f"(NumPy): worst ratio {worst:.3g}, row {where} "
                    "(<= 1 passes)"))

    def tutorial_code():
        got["c"] = block_matrix_multiply(a, b, bs)
    t = cupy_env.time_events(cp, tutorial_code, warmup, repeat)
    err = rel_diff(cp, got.pop("c"), c_one)
    rows.append(row(S_BLK_TUT, t, err <= tol, tflops(t), detail="vs one "
                    f"call: relative difference {err:.2e} (tolerance 2 n "
                    f"eps = {tol:.1e})"))

    c_views = cp.empty((n, n))
    views = BlockedViews(cp, np, n, bs, STREAMS)
    try:
        t = cupy_env.time_events(cp, lambda: views.run(a, b, c_views),
                                 warmup, repeat, views.streams[0])
    finally:
        views.close()
    err = rel_diff(cp, c_views, c_one)
    rows.append(row(S_BLK_VIEWS, t, err <= tol, tflops(t), detail="vs "
                    f"one call: relative difference {err:.2e} (tolerance "
                    f"2 n eps = {tol:.1e})"))
    del a, b, c_one, c_views
    pool.free_all_blocks()

    # x = cp.random.rand(n, n); y = cp.dot(x, x), with the lab's x.
    x = cp.random.RandomState(SEED_POOL_X).rand(n, n)

    def dot():
        got["y"] = cp.dot(x, x)
    t = cupy_env.time_events(cp, dot, warmup, repeat)
    y = got.pop("y")
    x_host, y_host = cp.asnumpy(x), cp.asnumpy(y)
    worst, where = freivalds(np, x_host, x_host, y_host, SEED_CHECK)
    y_sum, y_weighted = checksums(np, y_host)
    del x_host, y_host
    rows.append(row(S_Y, t, worst <= 1, tflops(t), check=y_sum,
                    y_weighted_sum=y_weighted, n=n, detail="Freivalds "
                    f"(NumPy): worst ratio {worst:.3g}, row {where} (<= 1 "
                    "passes)"))

    # del x; cp.get_default_memory_pool().free_all_blocks(), with y alive,
    # `repeat` times: the lab's x first, then new ones of its size. The
    # timing's spare y goes first, so the pool holds x and y alone.
    cp.cuda.Device().synchronize()
    pool.free_all_blocks()
    samples, seen = [], []
    for i in range(repeat):
        if i:
            x = rs.rand(n, n)
            cp.cuda.Device().synchronize()
        used1, total1 = pool.used_bytes(), pool.total_bytes()
        del x
        used2, total2 = pool.used_bytes(), pool.total_bytes()
        t0 = time.perf_counter()
        pool.free_all_blocks()
        samples.append((time.perf_counter() - t0) * 1e3)
        used3, total3 = pool.used_bytes(), pool.total_bytes()
        released = total2 - total3
        seen.append((used1 - used2 >= nbytes and total2 == total1
                     and used3 == used2 and released >= nbytes
                     and total3 >= used3, used1, used2, used3, total1,
                     total2, total3, released))
    ok, used1, used2, used3, total1, total2, total3, released = seen[0]
    ok = all(s[0] for s in seen)
    rows.append(row(S_FREE, median(samples), ok, check=released,
                    detail=f"pool used {used1} -> del x {used2} -> "
                    f"free_all_blocks() {used3}, total {total1} -> "
                    f"{total2} -> {total3} bytes: {released} back to the "
                    f"GPU{'' if ok else ' (or on a later run, not)'}"))
    del y
    pool.free_all_blocks()

    # Why pools exist: an x-sized block from a warm pool, and from an
    # empty one (cudaMalloc, then cudaFree in free_all_blocks()).
    used0, total0 = pool.used_bytes(), pool.total_bytes()
    stream = cp.cuda.get_current_stream()

    def alloc_warm():
        cp.empty((n, n))           # freed at once: back to the pool
        stream.synchronize()
    t = cupy_env.time_host(cp, alloc_warm, max(1, warmup), repeat)
    kept = pool.total_bytes() - pool.used_bytes()
    ok = pool.used_bytes() == used0 and kept >= nbytes
    rows.append(row(S_ALLOC_POOL, t, ok, detail=f"pool keeps {kept} "
                    "bytes free for the next one"))

    def alloc_raw():
        cp.empty((n, n))
        pool.free_all_blocks()
    t = cupy_env.time_host(cp, alloc_raw, warmup, repeat)
    ok = pool.used_bytes() == used0 and pool.total_bytes() == total0
    rows.append(row(S_ALLOC_RAW, t, ok, detail="pool back to "
                    f"{pool.total_bytes()} bytes after each"))
    return rows


# For make compare-04: how the C lab reports the same steps
# All four parts at n = 10000, block 1000. n and the repeats are given,
# so that the lab never cuts them on a GPU with slow FP64 (memory.cu's
# cost check): both sides always run the same sizes.
C_ARGS = ["--n", str(N), "--repeat", "10", "--warmup", "2",
          "--streams", str(STREAMS)]
# n = 2001, block 500, 3 after 1; the blocked GEMM on STREAMS streams, as
# BlockedViews, whatever the lab's default.
C_QUICK_ARGS = ["--quick", "--streams", str(STREAMS)]


def c_rows(csv_path):
    """The lab's CSV is part,metric,value,unit. Timed: the blocked part's
    one call and blocked GEMM (the lab times its blocked GEMM once, so
    both blocked rows get it) and the pool part's two allocation timings.
    The lab does not time its x fill, its y = x @ x or its trim; their
    results (nbytes, y's checksums, bytes the trim released) ride along
    on every row as "lab", for agree()."""
    values = {}
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            values[f"{r['part']}/{r['metric']}"] = float(r["value"])
    rows = [
        {"step": S_ONE, "ms": values.get("blocked/one_call_ms")},
        {"step": S_BLK_TUT, "ms": values.get("blocked/blocked_ms")},
        {"step": S_BLK_VIEWS, "ms": values.get("blocked/blocked_ms")},
        {"step": S_ALLOC_POOL, "ms": values.get("pool/pool_alloc_free_ms")},
        {"step": S_ALLOC_RAW,
         "ms": values.get("pool/cudaMalloc_cudaFree_ms")},
    ]
    rows = [r for r in rows if r["ms"] is not None]
    for r in rows:
        r["lab"] = values
    return rows


WHY = {
    S_NBYTES: "the lab makes the same x (cuRAND), untimed",
    S_ONE: "cuBLAS float64 GEMM on both (GemmEx 64F vs Dgemm)",
    S_BLK_TUT: "the tutorial's code, per block: 2 view copies, a "
               "temporary, a += kernel; 1 stream (C: 4)",
    S_BLK_VIEWS: "the lab's cuBLAS calls on views, 4 streams on both "
                 "sides; CuPy calls from Python",
    S_Y: "one GEMM's work; the lab does not time its y",
    S_FREE: "cudaFree of x's block; the lab's pool trim is untimed",
    S_ALLOC_POOL: "CuPy's free list vs cudaMallocAsync's pool",
    S_ALLOC_RAW: "both cudaMalloc + cudaFree (CuPy's pool emptied)",
}

HEADLINE = S_BLK_VIEWS
TIMING = ("GEMMs on CUDA events, one pair per repetition, queued back to "
          "back, read after the last (cm_time_events, "
          "cupy_env.time_events); allocations on the host clock, each "
          "ending in a synchronize")


def agree(cupy_rows, c_rows):
    """What both sides compute alike. x.nbytes: n * n * 8 on both. y =
    x @ x: both fill x with cuRAND's default generator (XORWOW), seed 11,
    from offset 0, in one call, so both hold the same x; their y differ
    only by the GEMMs' order of summation, at most about 2 n eps relative
    (all terms >= 0), and the lab's CSV keeps 9 significant digits
    (5e-9): 2e-8 covers both. Another x moves the sums by about 1e-5.
    The blocked GEMMs are not compared across sides: the lab's A and B
    come from its xoshiro256** generator on the host (2 x 10^8 numbers,
    far too slow to make again in Python); each side checks its blocked C
    against its one-call C and that by Freivalds' method instead."""
    mine = {r["step"]: r for r in cupy_rows}
    lab = next((r["lab"] for r in c_rows if "lab" in r), {})
    out = []
    x, want = mine.get(S_NBYTES), lab.get("accounting/nbytes")
    if x is None or want is None:
        out.append(("x.nbytes", False, "missing on the "
                    + ("CuPy" if x is None else "C") + " side"))
    else:
        out.append(("x.nbytes", x.get("check") == int(want),
                    f"CuPy {x.get('check')}, C {int(want)} bytes"))
    y = mine.get(S_Y)
    tol = 2e-8
    for key, metric, what in (("check", "pool/y_sum", "sum of y"),
                              ("y_weighted_sum", "pool/y_weighted_sum",
                               "row-weighted sum of y")):
        a, c = (y or {}).get(key), lab.get(metric)
        if a is None or c is None:
            out.append((f"y = x @ x, same cuRAND x: {what}", False,
                        "missing on the " + ("CuPy" if a is None else "C")
                        + " side"))
            continue
        rel = abs(a - c) / abs(c) if c else abs(a - c)
        out.append((f"y = x @ x, same cuRAND x (seed 11): {what}",
                    rel <= tol, f"CuPy {a:.9g}, C {c:.9g}: relative "
                    f"difference {rel:.2e} (tolerance {tol:.0e})"))
    return out


if __name__ == "__main__":
    sys.exit(cupy_env.main(tutorial, measure))
