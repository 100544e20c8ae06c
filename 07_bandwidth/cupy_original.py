#!/usr/bin/env python3
"""07 · Bandwidth: the tutorial's transfer timing, run, then done right.

Mirrors section 2.24.5 of the tutorial: one cp.asarray of a 10000 x 10000
float64 array (800 MB) timed with time.time(), then "pinned memory"
(2.24.5.3.1) and a "batched transfer" of ten such arrays (2.24.5.3.2).

tutorial() runs those three snippets as written, with two changes:
- `x_np_pinned = cp pinned_array(x_np)` is not Python. CuPy's call is
  cupyx.empty_pinned(shape, dtype), which returns an empty NumPy array in
  pinned memory; we fill it with x_np.
- `import numpy as np` is missing from the first snippet; we add it.
Its timings are printed as "tutorial's timing": time.time() around the
call, which stops before the asynchronous copy has finished (cp.asarray
returns without waiting), and for the first call includes creating the
CUDA context. Beside each, the same span until the copy has arrived.
The ten 800 MB arrays (and CuPy's pinned staging buffers) need more than
10 GB of host memory, and about 9 GB on the GPU.

measure() does the lab's work with CuPy, at its sizes (--quick: a 512 x
512 array and 200 arrays of 4 KiB, as the lab's --quick), on CUDA events
as the lab times each copy (pageable copies: each between its own pair
of events, waited for before the next; pinned and small copies: one pair
per repetition, queued back to back and read after the last), median of
10 after 2 warm-ups (3 after 1 with --quick):
- the first cp.asarray of the process, on the host clock until the copy
  has arrived, as the lab's "tutorial way" row (both include creating the
  context);
- the warm copies: cp.asarray(x_np) from pageable memory, and CuPy
  written well: x_cp.set(x_pinned) from pinned memory into an existing
  device array (cp.asarray would copy even a pinned array into a staging
  buffer first), cp.asnumpy(x_cp, out=...) into pageable and pinned
  arrays made once;
- 1000 small arrays of 8 KiB: the tutorial's loop, [cp.asarray(a) for a
  in arrays], against the lab's loop of cudaMemcpy, and the same arrays
  packed in one pinned array and copied with one x.set(), against the
  lab's packed copy: the same work on both sides, the summary's row.
Every copy is checked bit for bit against its source. Run it alone
(python3 07_bandwidth/cupy_original.py [--quick]) or beside the C lab:
make compare-07.
"""
import csv
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", "common"))
import cupy_env  # noqa: E402

# The lab's defaults and its --quick sizes: (side, arrays, array bytes).
FULL = (10000, 1000, 8192)
QUICK = (512, 200, 4096)
_tutorial_ran = False   # then measure() is not the first CUDA work


def step_names(big_bytes, arrays, array_bytes):
    size = cupy_env.size_text(big_bytes)
    small = "%d x %s" % (arrays, cupy_env.size_text(array_bytes))
    return {
        "first": "first cp.asarray(x_np) %s" % size,
        "h2d": "cp.asarray(x_np) %s" % size,
        "h2d_pinned": "x_cp.set(x_pinned) %s" % size,
        "d2h": "cp.asnumpy(x_cp, out=h) %s" % size,
        "d2h_pinned": "cp.asnumpy(x_cp, out=h_pinned) %s" % size,
        "loop": "small arrays one by one, %s" % small,
        "packed": "small arrays packed, %s" % small,
    }


def tutorial():
    global _tutorial_ran
    _tutorial_ran = True
    import time
    import numpy as np   # missing from the tutorial's first snippet
    import cupy as cp
    import cupyx

    def arrived():   # not in the tutorial: wait for the copy to finish
        cp.cuda.Device().synchronize()

    # 2.24.5.2: create a large NumPy array
    x_np = np.random.rand(10000, 10000)

    # measure the transfer bandwidth
    start_time = time.time()
    x_cp = cp.asarray(x_np)  # NumPy array to the GPU
    transfer_time = time.time() - start_time
    arrived()
    honest_time = time.time() - start_time

    data_size = x_np.nbytes / 1024**2  # "MB" (its MB is 2^20 bytes)
    bandwidth = data_size / transfer_time  # "MB/s"

    print(f"transfer time: {transfer_time:.4f} s   (tutorial's timing)")
    print(f"transfer bandwidth: {bandwidth:.2f} MB/s   (tutorial's timing)")
    print(f"  until the copy had arrived: {honest_time:.4f} s")

    # 2.24.5.3.1: pinned memory. The tutorial's `cp pinned_array(x_np)`
    # is not Python; cupyx.empty_pinned is CuPy's call.
    x_np_pinned = cupyx.empty_pinned(x_np.shape, dtype=x_np.dtype)
    x_np_pinned[...] = x_np

    start_time = time.time()
    x_cp = cp.asarray(x_np_pinned)
    transfer_time_pinned = time.time() - start_time
    arrived()
    honest_time = time.time() - start_time

    bandwidth_pinned = data_size / transfer_time_pinned
    print(f"pinned transfer time: {transfer_time_pinned:.4f} s   "
          "(tutorial's timing)")
    print(f"pinned transfer bandwidth: {bandwidth_pinned:.2f} MB/s   "
          "(tutorial's timing)")
    print(f"  until the copy had arrived: {honest_time:.4f} s")

    # 2.24.5.3.2: "batched" transfer: ten separate 800 MB copies
    arrays_np = [np.random.rand(10000, 10000) for _ in range(10)]

    start_time = time.time()
    arrays_cp = [cp.asarray(a) for a in arrays_np]
    transfer_time_batch = time.time() - start_time
    arrived()
    honest_time = time.time() - start_time

    total_data_size = sum([a.nbytes for a in arrays_np]) / 1024**2
    bandwidth_batch = total_data_size / transfer_time_batch
    print(f"batch transfer time: {transfer_time_batch:.4f} s   "
          "(tutorial's timing)")
    print(f"batch transfer bandwidth: {bandwidth_batch:.2f} MB/s   "
          "(tutorial's timing)")
    print(f"  until the copies had arrived: {honest_time:.4f} s")
    del x_cp, arrays_cp, arrays_np


def _same_bits(np, a, b):
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(
        a.view(np.uint8), b.view(np.uint8))


def measure(quick):
    cp, np = cupy_env.require_cupy()
    import cupyx
    side, arrays, array_bytes = QUICK if quick else FULL
    warmup, repeat = (1, 3) if quick else (2, 10)
    rng = np.random.default_rng(2245)
    x_np = rng.random((side, side))
    nbytes = x_np.nbytes
    names = step_names(nbytes, arrays, array_bytes)
    rows = []

    def row(key, ms, ok, counted):
        rows.append({"step": names[key], "ms": ms, "ok": bool(ok),
                     "unit_rate": cupy_env.gbps(counted, ms),
                     "check": counted})

    def events(fn):
        return cupy_env.time_events(cp, fn, warmup, repeat)

    def waited(fn):   # the lab's pageable copies: each waited for
        return cupy_env.time_events_turns(cp, [fn], warmup, repeat)[0]

    # The tutorial's first call, which creates the CUDA context, waited
    # for before the clock is read (as the lab's "tutorial way" row).
    if not _tutorial_ran:
        t0 = time.perf_counter()
        x_cp = cp.asarray(x_np)
        cp.cuda.Device().synchronize()
        ms = (time.perf_counter() - t0) * 1e3
        row("first", ms, _same_bits(np, x_cp.get(), x_np), nbytes)

    ms = waited(lambda: cp.asarray(x_np))
    x_cp = cp.asarray(x_np)
    row("h2d", ms, _same_bits(np, x_cp.get(), x_np), nbytes)

    # Written well: pinned once, copied into an existing device array.
    x_pinned = cupyx.empty_pinned((side, side), dtype=np.float64)
    x_pinned[...] = x_np
    d = cp.empty((side, side), dtype=cp.float64)
    ms = events(lambda: d.set(x_pinned))
    d.fill(np.nan)   # so the check sees what this copy writes
    d.set(x_pinned)
    row("h2d_pinned", ms, _same_bits(np, d.get(), x_np), nbytes)

    h = np.empty_like(x_np)
    ms = waited(lambda: cp.asnumpy(d, out=h))
    h.fill(np.nan)
    cp.asnumpy(d, out=h)
    row("d2h", ms, _same_bits(np, h, x_np), nbytes)

    x_pinned.fill(np.nan)
    ms = events(lambda: cp.asnumpy(d, out=x_pinned))
    x_pinned.fill(np.nan)
    cp.asnumpy(d, out=x_pinned)
    row("d2h_pinned", ms, _same_bits(np, x_pinned, x_np), nbytes)
    del x_cp, d, h, x_pinned

    # Many small arrays: the tutorial's loop, one cp.asarray each.
    elems = array_bytes // 8
    small = [rng.random(elems) for _ in range(arrays)]
    total = arrays * array_bytes
    loop_ms = events(lambda: [cp.asarray(a) for a in small])
    got = [cp.asarray(a) for a in small]
    loop_ok = all(_same_bits(np, g.get(), a) for g, a in zip(got, small))
    row("loop", loop_ms, loop_ok, total)
    del got

    # Written well: the same arrays packed in one pinned array, one copy.
    h_pool = cupyx.empty_pinned((arrays, elems), dtype=np.float64)
    for i, a in enumerate(small):
        h_pool[i] = a
    d_pool = cp.empty((arrays, elems), dtype=cp.float64)
    ms = events(lambda: d_pool.set(h_pool))
    d_pool.fill(np.nan)
    d_pool.set(h_pool)
    back = d_pool.get()
    packed_ok = all(_same_bits(np, back[i], a) for i, a in
                    enumerate(small))
    row("packed", ms, packed_ok, total)
    return rows


# For make compare-07: how the C lab reports the same steps.
# Its --csv rows (the summary table): case,bytes_counted,median_ms,
# gb_per_s, the text fields quoted.
C_ARGS = ["--arrays", str(FULL[1]), "--array-bytes", str(FULL[2])]
C_QUICK_ARGS = ["--quick"]
_C_STEPS = {"pageable H2D, tutorial way": ["first"],
            "pageable H2D": ["h2d"], "pinned H2D": ["h2d_pinned"],
            "pageable D2H": ["d2h"], "pinned D2H": ["d2h_pinned"],
            "small, 1 by 1, pageable": ["loop"],
            "small, packed, 1 copy": ["packed"]}


def c_rows(csv_path):
    with open(csv_path, newline="") as f:
        lab = [r for r in csv.DictReader(f) if r["median_ms"]]
    counted = dict((r["case"], int(r["bytes_counted"].split()[0]))
                   for r in lab)
    small = counted.get("small, packed, 1 copy", 0)
    sizes = [s for s in (FULL, QUICK) if s[1] * s[2] == small]
    side_bytes = counted.get("pageable H2D", FULL[0] ** 2 * 8)
    names = step_names(side_bytes, *(sizes[0][1:] if sizes else (small, 1)))
    rows = []
    for r in lab:
        for key in _C_STEPS.get(r["case"], []):
            rows.append({"step": names[key], "ms": float(r["median_ms"]),
                         "check": counted[r["case"]]})
    return rows


WHY = {
    "first cp.asarray(x_np)": "context on both (C also loads the driver); "
                              "CuPy pins a staging buffer",
    "cp.asarray(x_np)": "CPU copy into CuPy's pinned buffer, then DMA, vs "
                        "driver staging",
    "x_cp.set(x_pinned)": "the same copy from pinned memory on both sides",
    "cp.asnumpy(x_cp, out=h)": "the same pageable copy into one reused "
                               "array",
    "cp.asnumpy(x_cp, out=h_pinned)": "the same copy into pinned memory "
                                      "on both sides",
    "small arrays one by one": "per array: pool allocation, staging, a "
                               "Python call vs a cudaMemcpy",
    "small arrays packed": "the same one copy from pinned memory",
}
HEADLINE = "small arrays packed"
TIMING = ("CUDA events; pageable copies each waited for before the next "
          "(cupy_env.time_events_turns), pinned and small ones queued back "
          "to back, read after the last (cm_time_events, "
          "cupy_env.time_events); the first copy on the host clock")


def agree(cupy_rows, c_rows):
    # The two sides fill their arrays from different generators, so no
    # value can be compared; each checks its copies bit for bit. What both
    # must share is the bytes each step moves.
    return cupy_env.same_checks(cupy_rows, c_rows, "the same bytes")


if __name__ == "__main__":
    sys.exit(cupy_env.main(tutorial, measure))
