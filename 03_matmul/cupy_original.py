#!/usr/bin/env python3
"""03_matmul, the CuPy original: the tutorial's matrix product (section
2.24.1.3), run as the tutorial writes it, then timed beside the C lab.

    python3 03_matmul/cupy_original.py [--quick] [--json FILE]

tutorial() is the snippet, as close to the text as runs:

    a_np = np.random.rand(1000, 1000); b_np = np.random.rand(1000, 1000)
    a_cp = cp.asarray(a_np); b_cp = cp.asarray(b_np)
    c_cp = cp.dot(a_cp, b_cp)
    c_np = cp.asnumpy(c_cp)
    print(c_np)

The tutorial times none of it, so there is no "tutorial's timing" to show;
we add one check (c_np against NumPy's a_np @ b_np).

measure() does the same steps at the C lab's sizes (n = 1000; --quick:
n = 257, as `03_matmul --quick`) and times each one the way matmul.cu
does: GPU steps with one CUDA event pair per repetition, all queued back
to back and read after the last (cupy_env.time_events, the lab's
cm_time_events); end to end and the CPU on the host clock
(cupy_env.time_host, cm_time_host); the first cp.dot once, on the host
clock with a synchronize, in a fresh process. Each is the median of 10
after 2 warm-ups (--quick: 3 after 1), the lab's defaults. Where it
differs from the tutorial's text, and why:
  - The inputs are the C lab's own A and B, not np.random.rand: the lab
    fills them with a seeded xoshiro256** generator (common/random.c), and
    xoshiro_uniform() below makes the same numbers bit for bit, so both
    sides multiply the same matrices and their checksums of C can be
    compared (agree()).
  - "cp.asnumpy, out=" is CuPy written well: it copies into one host array
    made once, as the C lab does, where the tutorial's cp.asnumpy(c_cp)
    makes a new array every time.
  - The CPU row times NumPy's a_np @ b_np: the reference that every CuPy
    result is checked against (every element, within the bound the C lab
    uses, gemm_plan.c), and the counterpart of the lab's cpu_gemm.c.
"""
import csv
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", "common"))
import cupy_env  # noqa: E402  (needs the path above)

TUTORIAL_N, QUICK_N = 1000, 257       # matmul.cu: TUTORIAL_N, QUICK_N
SEED_A, SEED_B = 1, 2                 # matmul.cu: SEED_A, SEED_B
EPS = 2.0 ** -52                      # DBL_EPSILON

S_H2D = "H2D A, B: cp.asarray x2"
S_FIRST = "first cp.dot: cuBLAS handle + GEMM"
S_GEMM = "cp.dot: GEMM, float64"
S_D2H = "D2H C: cp.asnumpy"
S_D2H_OUT = "D2H C: cp.asnumpy, out="
S_E2E = "end to end: H2D + GEMM + D2H"
S_CPU = "CPU GEMM: NumPy vs cpu_gemm.c"

# Set once cuBLAS has run in this process: the first-call row is measured
# only in a fresh process (the driver runs --json in one).
_state = {"cublas_used": False}


def _libs():
    """(cupy, numpy), or exit 77 with the line saying what is missing."""
    return cupy_env.require_cupy()


def xoshiro_uniform(count, seed):
    """The C lab's cm_fill_uniform_f64(h, count, seed): splitmix64 seeds
    xoshiro256**, each value is (next() >> 11) * 2^-53. A list of floats."""
    mask = (1 << 64) - 1
    state = []
    x = seed
    for _ in range(4):
        x = (x + 0x9E3779B97F4A7C15) & mask
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        state.append(z ^ (z >> 31))
    s0, s1, s2, s3 = state
    scale = 2.0 ** -53
    out = [0.0] * count
    for i in range(count):
        r = (s1 * 5) & mask
        r = ((((r << 7) | (r >> 57)) & mask) * 9) & mask
        out[i] = (r >> 11) * scale
        t = (s1 << 17) & mask
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & mask
    return out


def gemm_tolerance(k):
    """gemm_plan.c's gemm_tolerance(GEMM_FP64, k): each of two float64
    products of non-negative matrices is within gamma_k = k u / (1 - k u)
    of the exact one, element by element (Higham 3.1), u = 2^-53, so
    they differ by at most this, relative to each element."""
    ku = k * 2.0 ** -53
    g = ku / (1 - ku) if ku < 0.5 else 1.0
    return 2 * g / (1 - g)


def element_error(np, c, ref):
    """gemm_check.c's gemm_element_error: the largest |c - ref| / |ref|
    over all elements, and where (row, column); NaN, or c != 0 where ref
    is 0, counts as infinite."""
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.abs(c - ref) / np.abs(ref)
    rel = np.where(ref == 0, np.where(c == 0, 0.0, np.inf), rel)
    rel = np.where(np.isnan(rel), np.inf, rel)
    worst = int(np.argmax(rel))
    return float(rel.flat[worst]), divmod(worst, c.shape[1])


def checksums(np, c):
    """c_sum and c_weighted_sum of gemm_plan.c: every element, and row i's
    sum times i + 1 (a transposed or row-swapped C differs)."""
    rows = c.sum(axis=1)
    weights = np.arange(1, c.shape[0] + 1, dtype=np.float64)
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
    """Section 2.24.1.3 as written; returns whether its C is right."""
    cp, np = _libs()
    a_np = np.random.rand(1000, 1000)
    b_np = np.random.rand(1000, 1000)
    a_cp = cp.asarray(a_np)
    b_cp = cp.asarray(b_np)
    c_cp = cp.dot(a_cp, b_cp)
    _state["cublas_used"] = True
    c_np = cp.asnumpy(c_cp)
    print(c_np)
    err, where = element_error(np, c_np, a_np @ b_np)
    tol = gemm_tolerance(1000)
    ok = err <= tol
    print(f"check c_np vs NumPy's a_np @ b_np, every element: largest "
          f"relative error {err:.3e} at {list(where)} (tolerance "
          f"{tol:.1e}) {'ok' if ok else 'FAILED'}\n")
    return ok


def measure(quick):
    cp, np = _libs()
    n = QUICK_N if quick else TUTORIAL_N
    warmup, repeat = (1, 3) if quick else (2, 10)
    a_np = np.array(xoshiro_uniform(n * n, SEED_A)).reshape(n, n)
    b_np = np.array(xoshiro_uniform(n * n, SEED_B)).reshape(n, n)
    nbytes = a_np.nbytes
    flops = 2.0 * n * n * n
    ref = a_np @ b_np
    tol = gemm_tolerance(n)

    def verdict(c_host):
        err, where = element_error(np, c_host, ref)
        return err <= tol, (f"vs NumPy, every element: largest relative "
                            f"error {err:.3e} at {list(where)} (tolerance "
                            f"{tol:.1e})")

    def gbps(nb, ms):
        return f"{nb / (ms * 1e6):.2f} GB/s"

    def tflops(ms):
        return f"{flops / (ms * 1e9):.2f} TFLOP/s"

    rows = []
    got = {}
    dev = cp.cuda.Device()
    a_cp = cp.asarray(a_np)
    b_cp = cp.asarray(b_np)
    dev.synchronize()

    # a_cp = cp.asarray(a_np); b_cp = cp.asarray(b_np), as the tutorial.
    def h2d():
        got["a"] = cp.asarray(a_np)
        got["b"] = cp.asarray(b_np)
    t = cupy_env.time_events(cp, h2d, warmup, repeat)
    ok = (np.array_equal(cp.asnumpy(got["a"]), a_np)
          and np.array_equal(cp.asnumpy(got["b"]), b_np))
    rows.append(row(S_H2D, t, ok, gbps(2 * nbytes, t),
                    detail="copies equal A, B" if ok else "copies differ"))

    # The first cp.dot in this process: CuPy creates its cuBLAS handle
    # inside it, and cuBLAS picks and loads its GEMM kernel.
    if not _state["cublas_used"]:
        t0 = time.perf_counter()
        c_cp = cp.dot(a_cp, b_cp)
        dev.synchronize()
        first_ms = (time.perf_counter() - t0) * 1e3
        _state["cublas_used"] = True
        ok, detail = verdict(cp.asnumpy(c_cp))
        rows.append(row(S_FIRST, first_ms, ok, detail=detail))

    # c_cp = cp.dot(a_cp, b_cp): the GEMM alone.
    def gemm():
        got["c"] = cp.dot(a_cp, b_cp)
    t = cupy_env.time_events(cp, gemm, warmup, repeat)
    c_host = cp.asnumpy(got["c"])
    ok, detail = verdict(c_host)
    c_sum, c_weighted = checksums(np, c_host)
    rows.append(row(S_GEMM, t, ok, tflops(t), check=c_sum, detail=detail,
                    c_weighted_sum=c_weighted, n=n,
                    rel_error=element_error(np, c_host, ref)[0],
                    tolerance=tol))

    # c_np = cp.asnumpy(c_cp): a new host array each time (the tutorial),
    # or one made once (out=, as the C lab's buffer).
    c_cp = got["c"]

    def d2h():
        got["host"] = cp.asnumpy(c_cp)
    t = cupy_env.time_events(cp, d2h, warmup, repeat)
    ok = np.array_equal(got["host"], c_host)
    rows.append(row(S_D2H, t, ok, gbps(nbytes, t),
                    detail="copy equals C" if ok else "copy differs"))
    buf = np.empty_like(c_host)

    def d2h_out():
        cp.asnumpy(c_cp, out=buf)
    t = cupy_env.time_events(cp, d2h_out, warmup, repeat)
    ok = np.array_equal(buf, c_host)
    rows.append(row(S_D2H_OUT, t, ok, gbps(nbytes, t),
                    detail="copy equals C" if ok else "copy differs"))

    # The whole script on the host clock; cp.asnumpy returns only once C
    # is in host memory, so it is the synchronize.
    def end_to_end():
        a = cp.asarray(a_np)
        b = cp.asarray(b_np)
        got["e2e"] = cp.asnumpy(cp.dot(a, b))
    t = cupy_env.time_host(cp, end_to_end, warmup, repeat)
    ok, detail = verdict(got["e2e"])
    rows.append(row(S_E2E, t, ok, tflops(t), detail=detail))

    # The CPU reference: NumPy's BLAS (ref above was its warm-up).
    def cpu():
        got["cpu"] = a_np @ b_np
    t = cupy_env.time_host(cp, cpu, 0, repeat)
    ok, detail = verdict(got["cpu"])
    rows.append(row(S_CPU, t, ok, f"{flops / (t * 1e6):.1f} GFLOP/s",
                    detail="the last run " + detail))
    return rows


# For make compare-03: how the C lab reports the same steps
C_ARGS = []                  # n = 1000, float64: the tutorial's run
C_QUICK_ARGS = ["--quick"]   # n = 257 (and every precision, a tiny sweep)


def _csv_float(r, key):
    text = (r.get(key) or "").strip()
    return float(text) if text else None


def c_rows(csv_path):
    """The lab's CSV (gemm_plan.h, GEMM_CSV_HEADER): its "tutorial" row
    has the steady H2D, GEMM, D2H and end-to-end medians, the first call
    (cublasCreate + first GEMM), the CPU's warm median (empty above n =
    4096) and the checksums of C."""
    with open(csv_path, newline="") as f:
        found = [r for r in csv.DictReader(f) if r.get("part") == "tutorial"]
    if not found:
        raise ValueError(f"{csv_path}: no 'tutorial' row")
    r = found[0]
    n = int(r["n"])
    rows = [
        {"step": S_H2D, "ms": _csv_float(r, "h2d_ms")},
        {"step": S_FIRST, "ms": _csv_float(r, "first_gemm_ms")},
        {"step": S_GEMM, "ms": _csv_float(r, "gemm_ms_median"),
         "check": _csv_float(r, "c_sum"),
         "c_weighted_sum": _csv_float(r, "c_weighted_sum"), "n": n,
         "rel_error": _csv_float(r, "rel_error"),
         "tolerance": _csv_float(r, "tolerance"), "ok": r.get("ok") == "1"},
        {"step": S_D2H, "ms": _csv_float(r, "d2h_ms")},
        {"step": S_D2H_OUT, "ms": _csv_float(r, "d2h_ms")},
        {"step": S_E2E, "ms": _csv_float(r, "end_to_end_ms")},
        {"step": S_CPU, "ms": _csv_float(r, "cpu_ms")},
    ]
    return [x for x in rows if x["ms"] is not None]


WHY = {
    S_H2D: "CuPy: memcpy into its pinned pool, then DMA; C: the driver "
           "stages",
    S_FIRST: "both: create the cuBLAS handle, load the GEMM kernel",
    S_GEMM: "cuBLAS float64 GEMM on both (GemmEx 64F vs Dgemm)",
    S_D2H: "a new NumPy array (fresh pages) each call",
    S_D2H_OUT: "both copy into one reused pageable array",
    S_E2E: "the steps above plus Python's per-call work",
    S_CPU: "NumPy's BLAS vs plain C (cpu_gemm.c); CPU only",
}

# The CPU row's Python side is NumPy (its BLAS), not CuPy: the table's
# call says "NumPy faster" or "NumPy slower" there.
PYTHON_SIDE = {S_CPU: "NumPy"}

HEADLINE = S_GEMM
TIMING = ("GPU steps on CUDA events, one pair per repetition, queued back "
          "to back, read after the last (cm_time_events, "
          "cupy_env.time_events); first call, end to end and CPU on the "
          "host clock")


def _fmt(value):
    return "-" if value is None else f"{value:.2e}"


def agree(cupy_rows, c_rows):
    """Both sides multiply the same A and B (the lab's xoshiro256** fill,
    seeds 1 and 2, reproduced bit for bit by xoshiro_uniform), so their
    checksums of C must agree. Each product is within gamma_n of the
    exact one, element by element (all terms >= 0), so they differ by at
    most about n eps relative; each side's sums of n^2 non-negative terms
    (n row sums, then n of those) add at most about 2 n u more, and the
    weights i + 1 one rounding: (4 n + 8) eps covers all of it. Inputs
    made by another generator differ by about 1e-3."""
    mine = {r["step"]: r for r in cupy_rows}
    lab = {r["step"]: r for r in c_rows}
    g, h = mine.get(S_GEMM), lab.get(S_GEMM)
    if g is None or h is None:
        return [("C = A B checksums", False,
                 "no GEMM row on the " + ("CuPy" if g is None else "C")
                 + " side")]
    if g.get("n") != h.get("n"):
        return [("C = A B checksums", False,
                 f"sizes differ: CuPy n = {g.get('n')}, C n = {h.get('n')}")]
    n = h["n"]
    tol = (4 * n + 8) * EPS
    out = []
    for key, what in (("check", "sum of C"),
                      ("c_weighted_sum", "row-weighted sum of C")):
        x, y = g.get(key), h.get(key)
        if x is None or y is None:
            out.append((f"same A, B: {what}", False, "missing on one side"))
            continue
        rel = abs(x - y) / abs(y) if y else abs(x - y)
        out.append((f"same A, B (xoshiro256** seeds 1, 2): {what}",
                     rel <= tol, f"CuPy {x:.17g}, C {y:.17g}: relative "
                     f"difference {rel:.2e} (tolerance {tol:.1e})"))
    out.append(("each side's C, every element, vs its own CPU reference",
                bool(g.get("ok")) and bool(h.get("ok")),
                f"largest relative error: CuPy vs NumPy "
                f"{_fmt(g.get('rel_error'))}, C vs cpu_gemm "
                f"{_fmt(h.get('rel_error'))} (tolerance "
                f"{_fmt(h.get('tolerance'))})"))
    return out


if __name__ == "__main__":
    sys.exit(cupy_env.main(tutorial, measure))
