#!/usr/bin/env python3
"""02 · Interop: the tutorial's cp.asarray / cp.asnumpy, run, then timed.

Mirrors section 2.24.1.2.3 of the tutorial:

    x_np = np.array([1, 2, 3, 4])
    x_cp = cp.asarray(x_np)             # NumPy -> CuPy
    print(x_cp)                         # [1 2 3 4]
    x_np_from_cp = cp.asnumpy(x_cp)     # CuPy -> NumPy
    print(x_np_from_cp)                 # [1 2 3 4]

and the 10000 x 10000 float64 array (800 MB) that section 2.24.5 moves the
same way. tutorial() runs the snippet as written; it times nothing.

measure() times both arrays as the C lab does (1000 x 1000 with --quick):
each copy between its own pair of CUDA events, waited for before the
next, the copies of an array taking turns within each repetition (the
lab's time_copies; cupy_env.time_events_turns), allocation on the host
clock, the median of 10 (3 with --quick) after 2 warm-ups. Each step
twice where it matters: the tutorial's call, and CuPy written well:

- cp.asarray(x_np) copies the array on the CPU into a buffer from CuPy's
  pinned memory pool, then lets the GPU copy it (CuPy's _array_default);
  written well, the data already sits in pinned memory
  (cupyx.empty_pinned, filled once) and x_cp.set(x_pinned) copies it into
  an existing device array directly.
- cp.asnumpy(x_cp) makes a new NumPy array each call, whose pages the OS
  hands over during the copy; written well, cp.asnumpy(x_cp, out=h) into
  an array made once (what the lab does: the same work on both sides,
  the summary's row), or into pinned memory.
- allocation: cp.empty from CuPy's memory pool, against the lab's
  cudaMalloc.

The C lab copies from and to pageable memory only, so the pinned rows
stand beside its pageable copies: the table says so. Every copy is
checked bit for bit against its source. Run it alone
(python3 02_interop/cupy_original.py [--quick]) or beside the C lab:
make compare-02.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", "common"))
import cupy_env  # noqa: E402

SIDE, QUICK_SIDE = 10000, 1000   # the lab's --n, and its --quick cap
SMALL = [1, 2, 3, 4]


def step_names(big_bytes):
    size = cupy_env.size_text(big_bytes)
    return {
        "small_asarray": "4 values: cp.asarray(x_np)",
        "small_asnumpy": "4 values: cp.asnumpy(x_cp)",
        "alloc": "allocate %s" % size,
        "asarray": "cp.asarray(x_np) %s" % size,
        "set_pinned": "x_cp.set(x_pinned) %s" % size,
        "asnumpy": "cp.asnumpy(x_cp) %s" % size,
        "asnumpy_out": "cp.asnumpy(x_cp, out=h) %s" % size,
        "asnumpy_pinned": "cp.asnumpy(x_cp, out=h_pinned) %s" % size,
    }


def tutorial():
    import numpy as np
    import cupy as cp

    # Create a NumPy array
    x_np = np.array([1, 2, 3, 4])

    # NumPy array -> CuPy array
    x_cp = cp.asarray(x_np)
    print(x_cp)  # prints: [1 2 3 4]

    # CuPy array -> NumPy array
    x_np_from_cp = cp.asnumpy(x_cp)
    print(x_np_from_cp)  # prints: [1 2 3 4]


def _same_bits(np, a, b):
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(
        a.view(np.uint8), b.view(np.uint8))


def measure(quick):
    cp, np = cupy_env.require_cupy()
    import cupyx
    warmup, repeat = 2, (3 if quick else 10)
    side = QUICK_SIDE if quick else SIDE
    rows = []
    names = step_names(side * side * 8)

    def row(key, ms, ok, nbytes):
        r = {"step": names[key], "ms": ms, "ok": bool(ok), "check": nbytes}
        if nbytes >= 1000000 and key != "alloc":   # a rate of copies
            r["unit_rate"] = cupy_env.gbps(nbytes, ms)
        rows.append(r)

    # The tutorial's 4 values: int64, 32 bytes; only fixed costs. The
    # two calls take turns, as the lab's H2D and D2H of them do.
    x_small = np.array(SMALL)
    x_cp = cp.asarray(x_small)
    in_ms, out_ms = cupy_env.time_events_turns(cp, [
        lambda: cp.asarray(x_small), lambda: cp.asnumpy(x_cp)], warmup,
        repeat)
    row("small_asarray", in_ms, _same_bits(np, cp.asarray(x_small).get(),
                                           x_small), x_small.nbytes)
    row("small_asnumpy", out_ms, _same_bits(np, cp.asnumpy(x_cp), x_small),
        x_small.nbytes)

    # x_np = np.random.rand(side, side): float64, random fractions, so
    # every mantissa bit is exercised.
    x_np = np.random.default_rng(2024).random((side, side))
    nbytes = x_np.nbytes

    # Allocation alone, on the host clock (no GPU work to bracket), each
    # array given back to the pool outside the timing, as the lab frees
    # each cudaMalloc outside its timing.
    samples = []
    for i in range(warmup + repeat):
        t0 = time.perf_counter()
        a = cp.empty((side, side), dtype=cp.float64)
        ms = (time.perf_counter() - t0) * 1e3
        ok = a.nbytes == nbytes
        del a
        if i >= warmup:
            samples.append(ms)
    samples.sort()
    mid = len(samples) // 2
    ms = samples[mid] if len(samples) % 2 else \
        (samples[mid - 1] + samples[mid]) / 2
    row("alloc", ms, ok, nbytes)

    # The five ways to copy the large array take turns within each
    # repetition, as the lab's H2D and D2H do: a pageable copy's speed
    # drifts from second to second, and all five then sample the same
    # stretch of time. The tutorial's calls: cp.asarray(x_np) from
    # pageable memory, cp.asnumpy(x_cp) into a new array every call.
    # Written well: the data pinned once (cupyx.empty_pinned) and copied
    # straight into an existing device array; copies back into one array
    # made once, pageable or pinned.
    x_cp = cp.asarray(x_np)
    x_pinned = cupyx.empty_pinned((side, side), dtype=np.float64)
    x_pinned[...] = x_np
    d = cp.empty((side, side), dtype=cp.float64)
    h = np.empty_like(x_np)
    h_pinned = cupyx.empty_pinned((side, side), dtype=np.float64)
    order = ["asarray", "set_pinned", "asnumpy", "asnumpy_out",
             "asnumpy_pinned"]
    times = dict(zip(order, cupy_env.time_events_turns(cp, [
        lambda: cp.asarray(x_np), lambda: d.set(x_pinned),
        lambda: cp.asnumpy(x_cp), lambda: cp.asnumpy(x_cp, out=h),
        lambda: cp.asnumpy(x_cp, out=h_pinned)], warmup, repeat)))

    # Each way once more, its result checked bit for bit against x_np;
    # the destinations are wiped first, so each check sees what its own
    # copy wrote.
    row("asarray", times["asarray"],
        _same_bits(np, cp.asarray(x_np).get(), x_np), nbytes)
    d.fill(np.nan)
    d.set(x_pinned)
    row("set_pinned", times["set_pinned"], _same_bits(np, d.get(), x_np),
        nbytes)
    row("asnumpy", times["asnumpy"],
        _same_bits(np, cp.asnumpy(x_cp), x_np), nbytes)
    h.fill(np.nan)
    cp.asnumpy(x_cp, out=h)
    row("asnumpy_out", times["asnumpy_out"], _same_bits(np, h, x_np),
        nbytes)
    h_pinned.fill(np.nan)
    cp.asnumpy(x_cp, out=h_pinned)
    row("asnumpy_pinned", times["asnumpy_pinned"],
        _same_bits(np, h_pinned, x_np), nbytes)
    return rows


# For make compare-02: how the C lab reports the same steps.
# Its --csv rows: array,bytes,step,first_ms,steady_ms_median,
# steady_ms_min,gb_per_s, where `array` is the tutorial's line and holds
# commas of its own (so each row is split from the right).
C_ARGS = []
C_QUICK_ARGS = ["--quick"]
_C_SMALL = {"asarray: cudaMemcpy H2D": ["small_asarray"],
            "asnumpy: cudaMemcpy D2H": ["small_asnumpy"]}
_C_BIG = {"asarray: cudaMalloc": ["alloc"],
          "asarray: cudaMemcpy H2D": ["asarray", "set_pinned"],
          "asnumpy: cudaMemcpy D2H": ["asnumpy", "asnumpy_out",
                                      "asnumpy_pinned"]}


def c_rows(csv_path):
    with open(csv_path) as f:
        lines = f.read().splitlines()[1:]
    lab = []
    for line in lines:
        if line.strip():
            label, nbytes, step, _, median, _, _ = line.rsplit(",", 6)
            lab.append((label, int(nbytes), step, float(median)))
    big = [n for label, n, _, _ in lab if "random" in label]
    names = step_names(big[0] if big else SIDE * SIDE * 8)
    rows = []
    for label, nbytes, step, median in lab:
        # One C step may stand beside several ways CuPy does it.
        keys = (_C_BIG if "random" in label else _C_SMALL).get(step, [])
        for key in keys:
            rows.append({"step": names[key], "ms": median, "check": nbytes})
    return rows


_NAMES = step_names(SIDE * SIDE * 8)


def _stem(key):
    """A step's name without its size, so one entry fits both sizes."""
    return _NAMES[key].rsplit(" ", 2)[0]


WHY = {
    _NAMES["small_asarray"]: "pool allocation, staging, Python call vs "
                             "one cudaMemcpy",
    _NAMES["small_asnumpy"]: "a new NumPy array and a Python call vs one "
                             "cudaMemcpy",
    _stem("alloc"): "CuPy's pool reuses a freed block; the lab calls "
                    "cudaMalloc",
    _stem("asarray"): "CPU copy into CuPy's pinned buffer, then DMA, vs "
                      "driver staging",
    _stem("set_pinned"): "pinned source, read by DMA directly (the lab's "
                         "is pageable)",
    _stem("asnumpy"): "a new NumPy array each call (pages mapped during "
                      "the copy)",
    _stem("asnumpy_out"): "the same pageable copy into one reused array",
    _stem("asnumpy_pinned"): "pinned destination, written by DMA (the "
                             "lab's is pageable)",
}
HEADLINE = _stem("asnumpy_out")
TIMING = ("each copy between its own pair of CUDA events, waited for before "
          "the next, an array's copies taking turns (the lab's time_copies, "
          "cupy_env.time_events_turns); allocation on the host clock")


def agree(cupy_rows, c_rows):
    # The two sides fill their large arrays from different generators, so
    # no value can be compared; each checks its own round trips bit for
    # bit. What both must share is each step's size in bytes (int64 for
    # the 4 values, float64 for the large array).
    return cupy_env.same_checks(cupy_rows, c_rows, "the same bytes")


if __name__ == "__main__":
    sys.exit(cupy_env.main(tutorial, measure))
