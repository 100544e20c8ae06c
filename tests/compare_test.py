#!/usr/bin/env python3
"""compare_test.py - CPU tests of make compare's machinery.

    compare_test.py driver             common/compare.py end to end, with a
                                       fake CuPy, a fake chapter and a fake
                                       lab: the sides run in turn, the
                                       table, units, ratios and their
                                       min-max, the call (faster, slower,
                                       no difference), '-' rows, the timing
                                       line, cross-checks in every run,
                                       PASS / FAIL, --summary, --rounds,
                                       each chapter's start and end line,
                                       exit 1 / 2 / 77; cupy_env's timers
                                       (queued back to back, or each waited
                                       for) and its CPU count
    compare_test.py c_side CHAPTER     CHAPTER/cupy_original.py imports with
                                       no CuPy and no usable NumPy, and
                                       defines the C side the driver reads

Each prints PASS (N checks) and exits 0, or names the first failed check
and exits 1.
"""
import csv
import importlib.util
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
COMMON = os.path.join(SRC, "common")
DRIVER = os.path.join(COMMON, "compare.py")
checks = 0


def expect(cond, what, detail=""):
    global checks
    checks += 1
    if not cond:
        print("FAIL: %s%s" % (what, "\n" + detail if detail else ""))
        sys.exit(1)


# A CuPy that imports and sees one GPU (or none, with FAKE_NO_GPU set),
# and a NumPy that imports: all require_cupy() asks of them.
FAKE_CUPY = '''
import os
__version__ = "0.0-fake"
class _Runtime:
    @staticmethod
    def getDeviceCount():
        if os.environ.get("FAKE_NO_GPU"):
            raise RuntimeError("cudaErrorNoDevice: no CUDA-capable device "
                               "is detected")
        return 1
    @staticmethod
    def getDeviceProperties(index):
        return {"name": b"Fake GPU"}
    @staticmethod
    def runtimeGetVersion():
        return 13000
class _Device:
    id = 0
    def synchronize(self):
        pass
class cuda:
    runtime = _Runtime
    Device = _Device
'''

# A chapter whose CuPy side returns FAKE_ROWS (FAKE_ROWS_<k> in its k-th
# run, when set) and whose C side reads the fake lab's CSV (step,ms,check).
# Each run of its CuPy side logs "CuPy" to FAKE_ARGS_LOG.
FAKE_CHAPTER = '''
import csv, json, os, sys
sys.path.insert(0, os.environ["FAKE_COMMON"])
import cupy_env
if os.environ.get("FAKE_IMPORT_FAILS"):
    raise RuntimeError("this chapter does work at import time")
if not os.environ.get("FAKE_NO_TIMING"):
    TIMING = "fake events, queued back to back"
C_ARGS = ["--full"]
C_QUICK_ARGS = ["--quick"]
def c_rows(path):
    with open(path, newline="") as f:
        return [{"step": r["step"], "ms": float(r["ms"]),
                 "check": int(r["check"]) if r["check"] else None}
                for r in csv.DictReader(f)]
WHY = {"copy": "why the copy differs", "loop vs packed": "why the loop"}
if not os.environ.get("FAKE_NO_HEADLINE"):
    HEADLINE = "loop vs packed"
def agree(cupy_rows, c_rows):
    return cupy_env.same_checks(cupy_rows, c_rows, "the same bytes")
def tutorial():
    print("tutorial")
def measure(quick):
    log = os.environ["FAKE_ARGS_LOG"]
    with open(log, "a") as f:
        f.write("CuPy\\n")
    with open(log) as f:
        run = sum(1 for line in f if line.startswith("CuPy"))
    return json.loads(os.environ.get("FAKE_ROWS_%d" % run,
                                     os.environ["FAKE_ROWS"]))
if __name__ == "__main__":
    if os.environ.get("FAKE_CUPY_RC"):
        sys.stderr.write("fake CuPy side failure\\n")
        sys.exit(int(os.environ["FAKE_CUPY_RC"]))
    sys.exit(cupy_env.main(tutorial, measure))
'''

# The lab: logs "C" and its arguments, writes FAKE_CSV (FAKE_CSV_<k> in
# its k-th run, when set) to --csv, prints PASS; or fails with FAKE_C_RC
# (FAKE_C_RC_<k>) and one stderr line.
FAKE_LAB = '''#!/bin/sh
echo "C $*" >> "$FAKE_ARGS_LOG"
run=$(grep -c '^C ' "$FAKE_ARGS_LOG")
eval "text=\\${FAKE_CSV_$run-\\$FAKE_CSV}"
eval "rc=\\${FAKE_C_RC_$run-\\$FAKE_C_RC}"
while [ $# -gt 0 ]; do
    [ "$1" = --csv ] && csv=$2
    shift
done
if [ -n "$rc" ]; then
    echo "fake lab: out of memory" >&2
    exit "$rc"
fi
printf '%s' "$text" > "$csv"
echo "PASS (3 checks)"
'''

ROWS = [
    {"step": "copy 8 MB", "ms": 2.0, "ok": True, "check": 8000000},
    {"step": "cupy only", "ms": 0.0123, "ok": True},
    {"step": "loop vs packed, 10 x 4 KiB", "ms": 1500.0, "ok": True,
     "check": 40960},
]


def lab_csv(rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["step", "ms", "check"])
    for r in rows:
        w.writerow(r)
    return out.getvalue()


GOOD_CSV = lab_csv([("copy 8 MB", 1.0, 8000000), ("c only", 0.5, ""),
                    ("loop vs packed, 10 x 4 KiB", 0.1, 40960)])


def setup(tmp):
    for name, text in (("cupy", FAKE_CUPY), ("numpy", "")):
        os.makedirs(os.path.join(tmp, "fake", name))
        with open(os.path.join(tmp, "fake", name, "__init__.py"), "w") as f:
            f.write(text)
    for chapter in ("98_fake", "99_fake"):
        os.makedirs(os.path.join(tmp, chapter))
        with open(os.path.join(tmp, chapter, "cupy_original.py"), "w") as f:
            f.write(FAKE_CHAPTER)
    lab = os.path.join(tmp, "lab")
    with open(lab, "w") as f:
        f.write(FAKE_LAB)
    os.chmod(lab, os.stat(lab).st_mode | stat.S_IXUSR)
    return lab


def run(tmp, args, env=None, pythonpath=None):
    """compare.py with args in tmp; the log of the sides' runs starts
    empty, so that each side counts its runs from 1."""
    full = dict(os.environ)
    for key in list(full):
        if key.startswith("FAKE_"):
            del full[key]
    log = os.path.join(tmp, "args.log")
    if os.path.exists(log):
        os.remove(log)
    full.update({"PYTHONPATH": pythonpath or os.path.join(tmp, "fake"),
                 "FAKE_COMMON": COMMON, "FAKE_ROWS": json.dumps(ROWS),
                 "FAKE_CSV": GOOD_CSV, "FAKE_ARGS_LOG": log})
    full.update(env or {})
    proc = subprocess.run([sys.executable, DRIVER] + args, cwd=tmp,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=full, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def sides_log(tmp):
    """Which side ran, in order: ["C", "CuPy", ...], and the C lab's
    arguments in each of its runs."""
    path = os.path.join(tmp, "args.log")
    if not os.path.exists(path):
        return [], []
    with open(path) as f:
        lines = f.read().splitlines()
    return ([s.split()[0] for s in lines],
            [s.split()[1:] for s in lines if s.startswith("C ")])


def show(rc, out, err):
    return "exit %d\n--- stdout\n%s--- stderr\n%s" % (rc, out, err)


def row_of(out, step):
    lines = [s for s in out.splitlines() if s.startswith(step + "  ")]
    return lines[0].split() if lines else []


def test_units():
    sys.path.insert(0, COMMON)
    import compare
    import cupy_env
    cases = [(compare.fmt_time(0.0081), "8.10 us"),
             (compare.fmt_time(0.0123), "12.3 us"),
             (compare.fmt_time(0.9996), "1.00 ms"),
             (compare.fmt_time(52.24), "52.2 ms"),
             (compare.fmt_time(1200.0), "1.20 s"),
             (compare.fmt_time(None), "-"),
             (compare.fmt_ratio(3.14, 1.0), "3.1x"),
             (compare.fmt_ratio(1.0, 1.9), "0.53x"),
             (compare.fmt_ratio(1530.0, 1.0), "1500x"),
             (compare.fmt_ratio(1.0, None), "-"),
             (compare.fmt_ratio(1.0, 0.0), "-"),
             (compare.fmt_range([2.0, 2.2, 1.9], [1.0, 1.1, 0.9]),
              "1.7-2.4x"),
             (compare.fmt_range([1.0], []), "-"),
             (compare.call([2.0, 2.2, 1.9], [1.0, 1.1, 0.9]),
              "CuPy slower"),
             (compare.call([0.5, 0.6, 0.55], [1.0, 1.1, 0.9]),
              "CuPy faster"),
             # 03's case: 0.99x, but the ranges overlap.
             (compare.call([42.7, 43.5, 42.9], [43.2, 43.0, 43.4]),
              "no difference"),
             # CuPy's median is higher, but one of its runs is not.
             (compare.call([1.2, 1.25, 1.0], [1.1, 1.15, 1.05]),
              "no difference"),
             (compare.call([1.0, 1.1, 0.9], [1.1, 1.15, 1.2]),
              "no difference"),
             (compare.call([1.0, 1.1], [2.0, 2.1]), "too few runs"),
             (compare.call([1.0, 1.1, 1.2], []), ""),
             # A row whose Python side is NumPy on the CPU says so.
             (compare.call([0.5, 0.6, 0.55], [1.0, 1.1, 0.9], "NumPy"),
              "NumPy faster"),
             (compare.table_row([{"cupy": {"CPU GEMM x": 4.0},
                                  "c": {"CPU GEMM x": 23.0}}] * 3,
                                "CPU GEMM x", {}, {"CPU GEMM": "NumPy"})[5],
              "NumPy faster"),
             (compare.table_row([{"cupy": {"GEMM": 4.0},
                                  "c": {"GEMM": 23.0}}] * 3,
                                "GEMM", {}, {"CPU GEMM": "NumPy"})[5],
              "CuPy faster"),
             (cupy_env.size_text(32), "32 B"),
             (cupy_env.size_text(4096), "4 KiB"),
             (cupy_env.size_text(8192), "8 KiB"),
             (cupy_env.size_text(2097152), "2 MiB"),
             (cupy_env.size_text(8000000), "8 MB"),
             (cupy_env.size_text(800000000), "800 MB"),
             (cupy_env.size_text(8192000), "8.19 MB"),
             (cupy_env.version_text(13000), "13.0"),
             (cupy_env.version_text(12080), "12.8"),
             (compare.by_prefix({"a": 1, "ab": 2}, "abc"), 2),
             (compare.by_prefix({"a": 1}, "b"), None)]
    for got, want in cases:
        expect(got == want, "unit: got %r, expected %r" % (got, want))


class FakeTimingCuPy:
    """Just what cupy_env's timers use: streams and events that log what
    is done to them, an event's time its place in the log."""

    def __init__(self):
        self.log = []
        outer = self

        class Stream:
            def synchronize(self):
                outer.log.append("sync")

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

        class Event:
            def record(self, stream=None):
                outer.log.append("record")
                self.at = len(outer.log)

            def synchronize(self):
                outer.log.append("sync")

        stream = Stream()
        self.cuda = type("cuda", (), {
            "Event": Event,
            "get_current_stream": staticmethod(lambda: stream),
            "get_elapsed_time": staticmethod(lambda a, b: b.at - a.at)})

    def fn(self):
        self.log.append("fn")


def test_timers():
    """The labs' cm_time_events queues its repetitions back to back and
    waits once, after the last; time_events must do the same (a wait
    after each would time every CuPy repetition from an idle GPU).
    time_events_turns waits for each call, as 02's and 07's turns do."""
    import cupy_env
    cp = FakeTimingCuPy()
    ms = cupy_env.time_events(cp, cp.fn, 1, 3)
    want = ["fn", "sync"] + ["record", "fn", "record"] * 3 + ["sync"]
    expect(cp.log == want, "time_events: warm-up, one wait, then the "
           "repetitions back to back and one wait after the last",
           "got %r" % cp.log)
    expect(ms == 2, "time_events: the median of the event pairs, got %r"
           % ms)
    cp = FakeTimingCuPy()
    got = cupy_env.time_events_turns(cp, [cp.fn, cp.fn], 1, 2)
    want = ["record", "fn", "record", "sync"] * 6
    expect(cp.log == want and got == [2, 2], "time_events_turns: each "
           "call between its own events, waited for", "got %r, %r"
           % (cp.log, got))


def test_cpus():
    """cupy_env's CPU count reads the cgroup as common/cpus.c does
    (tests/test_cpus.c has the same cases)."""
    import cupy_env
    for text, want in (("max 100000", 0), ("max 100000\n", 0),
                       ("200000 100000", 2), ("50000 100000", 1),
                       ("150000 100000", 2), ("", -1), ("garbage", -1),
                       ("200000", -1), ("max", -1), ("0 100000", -1),
                       ("200000 100000 7", -1), ("-200000 100000", -1),
                       ("200000 0", -1), ("200000x 100000", -1),
                       ("+-5 100000", -1), (None, -1)):
        got = cupy_env.cpu_quota_v2(text)
        expect(got == want, "cpu_quota_v2(%r): got %r, expected %r"
               % (text, got, want))
    for quota, period, want in (("-1\n", "100000\n", 0),
                                ("300000\n", "100000\n", 3),
                                ("250000", "100000", 3),
                                ("garbage", "100000", -1),
                                ("300000", "0", -1), ("-2", "100000", -1)):
        got = cupy_env.cpu_quota_v1(quota, period)
        expect(got == want, "cpu_quota_v1(%r, %r): got %r" % (quota,
                                                               period, got))
    tmp = tempfile.mkdtemp(prefix="compare-test-cpus-")
    try:
        def put(name, text):
            path = os.path.join(tmp, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

        def limit():
            return cupy_env.cgroup_cpu_limit(
                os.path.join(tmp, "proc_cgroup"), os.path.join(tmp, "v2"),
                os.path.join(tmp, "v1cpu"))
        expect(limit() == 0, "no cgroup files: no limit")
        put("proc_cgroup", "0::/a/b\n")
        put("v2/a/b/cpu.max", "max 100000\n")
        put("v2/a/cpu.max", "250000 100000\n")
        put("v2/cpu.max", "800000 100000\n")
        expect(limit() == 3, "v2: the smallest quota above our group")
        put("proc_cgroup", "12:cpuacct:/other\n4:cpu,cpuacct:/docker/x\n"
                           "0::/a/b\n")
        put("v1cpu/cpu.cfs_quota_us", "200000\n")
        put("v1cpu/cpu.cfs_period_us", "100000\n")
        expect(limit() == 2, "v1's quota at its root, below v2's")
        expect(cupy_env.cpu_count() >= 1, "cpu_count() is at least 1")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# Three runs a side for the spreads: CuPy slower in "copy 8 MB", faster
# in "loop vs packed", and no difference in "tie 1 KiB", whose ranges
# overlap.
SPREAD_CUPY = [(2.0, 0.05, 1.0), (2.2, 0.06, 1.2), (1.9, 0.055, 0.9)]
SPREAD_C = [(1.0, 0.1, 1.1), (1.1, 0.11, 1.0), (0.9, 0.1, 0.95)]


def spread_env():
    env = {}
    for k, (copy, loop, tie) in enumerate(SPREAD_CUPY):
        rows = [dict(ROWS[0], ms=copy), dict(ROWS[2], ms=loop),
                {"step": "tie 1 KiB", "ms": tie, "ok": True}]
        env["FAKE_ROWS_%d" % (k + 1)] = json.dumps(rows)
    for k, (copy, loop, tie) in enumerate(SPREAD_C):
        env["FAKE_CSV_%d" % (k + 1)] = lab_csv([
            ("copy 8 MB", copy, 8000000),
            ("loop vs packed, 10 x 4 KiB", loop, 40960),
            ("tie 1 KiB", tie, "")])
    return env


def test_driver():
    test_units()
    test_timers()
    test_cpus()
    tmp = tempfile.mkdtemp(prefix="compare-test-")
    try:
        lab = setup(tmp)
        one = ["99_fake", lab]

        rc, out, err = run(tmp, one)
        text = show(rc, out, err)
        expect(rc == 0 and out.rstrip().splitlines()[-1] ==
               "PASS (3 checks, each in all 3 runs)",
               "a passing compare exits 0 and ends with PASS", text)
        sides, lab_args = sides_log(tmp)
        expect(sides == ["C", "CuPy"] * 3, "the sides run in turn, three "
               "times each: C, CuPy, C, CuPy, C, CuPy", "%r" % sides)
        expect(all(a[0] == "--full" and a[-2] == "--csv" for a in lab_args),
               "the lab gets C_ARGS first, then --csv", "%r" % lab_args)
        expect("GPU: Fake GPU (driver " in out and
               "CUDA runtime 13.0, CuPy 0.0-fake)" in out,
               "the GPU line names GPU, driver, runtime and CuPy", text)
        expect("\ntiming, both sides: fake events, queued back to back\n"
               in out, "the chapter's TIMING is printed", text)
        expect("\nruns: each side ran 3 times, in turn with the other" in
               out and "\nmin-max: CuPy / C at the runs' extremes" in out,
               "the lines that say what the columns mean", text)
        header = [s for s in out.splitlines() if s.startswith("step ")]
        expect(header and header[0].split() == [
            "step", "CuPy", "C", "CuPy", "/", "C", "min-max", "call",
            "what", "makes", "the", "difference"], "the table's columns",
            text)
        expect(row_of(out, "copy 8 MB")[3:] ==
               ["2.00", "ms", "1.00", "ms", "2x", "2-2x", "CuPy", "slower",
                "why", "the", "copy", "differs"],
               "a row: CuPy, C, ratio, min-max, call, why", text)
        expect(row_of(out, "cupy only")[2:] == ["12.3", "us", "-", "-",
                                                "-"],
               "a CuPy-only row shows '-' for C, ratio and range", text)
        expect(row_of(out, "c only")[2:] == ["-", "500", "us", "-", "-"],
               "a C-only row shows '-' for CuPy, ratio and range", text)
        expect(row_of(out, "loop vs packed, 10 x 4 KiB")[7:] ==
               ["1.50", "s", "100", "us", "15000x", "15000-15000x",
                "CuPy", "slower", "why", "the", "loop"],
               "WHY found by prefix; seconds; a large ratio", text)
        expect("check the same bytes: ok in 3 of 3 runs, 2 steps both "
               "sides time" in out, "agree()'s lines, for every run", text)
        expect("check the C lab's own checks: ok in 3 of 3 runs, PASS (3 "
               "checks)" in out, "the C lab's verdict is shown", text)
        expect("Summary" not in out, "one chapter: no summary", text)

        rc, out, err = run(tmp, one + ["--quick"])
        sides, lab_args = sides_log(tmp)
        expect(rc == 0 and len(lab_args) == 3 and
               all(a[0] == "--quick" for a in lab_args),
               "--quick gives the lab C_QUICK_ARGS in every run",
               show(rc, out, err))

        # The spreads and the calls, from runs that differ.
        rc, out, err = run(tmp, one, spread_env())
        text = show(rc, out, err)
        expect(rc == 0 and row_of(out, "copy 8 MB")[3:9] ==
               ["2.00", "ms", "1.00", "ms", "2x", "1.7-2.4x"] and
               row_of(out, "copy 8 MB")[9:11] == ["CuPy", "slower"],
               "medians of the runs; min-max: 1.9 / 1.1 to 2.2 / 0.9; "
               "the ranges apart: CuPy slower", text)
        expect(row_of(out, "loop vs packed, 10 x 4 KiB")[7:14] ==
               ["55.0", "us", "100", "us", "0.55x", "0.45-0.6x", "CuPy"] and
               row_of(out, "loop vs packed, 10 x 4 KiB")[14] == "faster",
               "every CuPy run faster than every C run: CuPy faster", text)
        expect(row_of(out, "tie 1 KiB")[3:] ==
               ["1.00", "ms", "1.00", "ms", "1x", "0.82-1.3x", "no",
                "difference"],
               "ranges that overlap: no difference called", text)

        rc, out, err = run(tmp, one + ["--rounds", "4"])
        sides, _ = sides_log(tmp)
        expect(rc == 0 and sides == ["C", "CuPy"] * 4 and
               "ran 4 times" in out and "ok in 4 of 4 runs" in out,
               "--rounds 4: four runs each, in turn", show(rc, out, err))

        bad_csv = lab_csv([("copy 8 MB", 1.0, 7999999)])
        rc, out, err = run(tmp, one, {"FAKE_CSV": bad_csv})
        expect(rc == 1 and "check the same bytes: FAILED in run 1 of 3, "
               "copy 8 MB: CuPy 8000000, C 7999999" in out and
               out.rstrip().splitlines()[-1].startswith("FAIL: check "
                                                        "failed"),
               "a cross-check that fails fails the compare",
               show(rc, out, err))

        rc, out, err = run(tmp, one, {"FAKE_CSV_2": bad_csv})
        expect(rc == 1 and "check the same bytes: FAILED in run 2 of 3, "
               "copy 8 MB: CuPy 8000000, C 7999999" in out,
               "a cross-check that fails in one run only fails it",
               show(rc, out, err))

        rc, out, err = run(tmp, one, {"FAKE_C_RC": "1"})
        expect(rc == 1 and "exited 1: fake lab: out of memory" in out,
               "a failing lab fails the compare with its line",
               show(rc, out, err))

        rc, out, err = run(tmp, one, {"FAKE_C_RC_2": "1"})
        expect(rc == 1 and "FAIL: in run 2 of 3, the C lab " in out and
               "exited 1: fake lab: out of memory" in out,
               "a lab failing in its second run fails the compare, saying "
               "which run", show(rc, out, err))

        rc, out, err = run(tmp, one, {"FAKE_C_RC": "77"})
        expect(rc == 77 and len(err.splitlines()) == 1 and
               "fake lab: out of memory" in err,
               "a lab that exits 77 gives 77 and one line",
               show(rc, out, err))

        wrong = [dict(ROWS[0], ok=False)] + ROWS[1:]
        rc, out, err = run(tmp, one, {"FAKE_ROWS": json.dumps(wrong)})
        sides, _ = sides_log(tmp)
        expect(rc == 1 and "copy 8 MB" in out and
               "own checks (NumPy or exact values): FAILED in run 1 of 3"
               in out and sides == ["C", "CuPy"] and
               "2x 2-2x too few runs why" in " ".join(
                   row_of(out, "copy 8 MB")),
               "a CuPy row that is not ok fails at once, table "
               "still shown, no call", show(rc, out, err))

        rc, out, err = run(tmp, one, {"FAKE_CUPY_RC": "3"})
        expect(rc == 1 and "exited 3: fake CuPy side failure" in out,
               "a crashing CuPy side fails with its line",
               show(rc, out, err))

        rc, out, err = run(tmp, one, {"FAKE_IMPORT_FAILS": "1"})
        expect(rc == 1 and "cannot be imported" in out,
               "a chapter that cannot be imported fails",
               show(rc, out, err))

        rc, out, err = run(tmp, one, {"FAKE_NO_HEADLINE": "1"})
        expect(rc == 1 and "lacks HEADLINE" in out,
               "a chapter without HEADLINE fails", show(rc, out, err))

        rc, out, err = run(tmp, one, {"FAKE_NO_TIMING": "1"})
        expect(rc == 0 and "\ntiming: not stated (cupy_original.py has "
               "no TIMING)\n" in out, "a chapter without TIMING says so",
               show(rc, out, err))

        expect("started" not in out and "[1/1]" not in out,
               "one chapter: no start or end line", text)
        rc, out, err = run(tmp, one + ["--summary"])
        expect(rc == 0 and out.startswith(
            "[1/1] 99_fake: started, 3 runs a side\n[1/1] 99_fake: PASS "
            "after "), "one chapter with --summary: its start and end "
            "line come first", show(rc, out, err))

        two = ["98_fake", lab, "99_fake", lab]
        rc, out, err = run(tmp, two + ["--summary"])
        text = show(rc, out, err)
        lines = out.splitlines()
        marks = [s for s in lines if s.startswith("[")]
        expect(len(marks) == 4 and
               marks[0] == "[1/2] 98_fake: started, 3 runs a side" and
               re.match(r"\[1/2\] 98_fake: PASS after \d+ s$", marks[1])
               and marks[2] == "[2/2] 99_fake: started, 3 runs a side" and
               re.match(r"\[2/2\] 99_fake: PASS after \d+ s$", marks[3])
               and lines.index(marks[3]) < lines.index(
                   [s for s in lines if s.startswith("Summary")][0]),
               "--summary: a line as each chapter starts and ends, "
               "before the summary", text)
        summary = [s for s in out.splitlines() if s.startswith("9")]
        expect(rc == 0 and "step  " not in out.split("Summary")[0] and
               len(summary) == 2 and summary[0].split()[:2] ==
               ["98_fake", "loop"] and summary[1].split()[-7:-3] ==
               ["15000x", "15000-15000x", "CuPy", "slower"] and
               "\nruns: each side ran 3 times" in out and
               out.rstrip().endswith("PASS (2 chapters)"),
               "--summary: one row per chapter, its HEADLINE, with its "
               "min-max and call", show(rc, out, err))

        rc, out, err = run(tmp, two)
        lines = out.splitlines()
        expect(rc == 0 and out.count("check the C lab") == 2 and
               "Summary" in out, "several chapters: tables, then the "
               "summary", show(rc, out, err))
        start = lines.index("[2/2] 99_fake: started, 3 runs a side") \
            if "[2/2] 99_fake: started, 3 runs a side" in lines else -1
        expect(0 < start < lines.index("99_fake: the C lab (%s) and the "
                                       "tutorial's CuPy (99_fake/"
                                       "cupy_original.py)" % lab) and
               re.match(r"\[2/2\] 99_fake: PASS after \d+ s$",
                        lines[lines.index("PASS (3 checks, each in all 3 "
                                          "runs)", start) + 1]),
               "several chapters: the start line before each table, the "
               "end line right after it", show(rc, out, err))

        rc, out, err = run(tmp, ["98_fake", lab, "99_fake", lab],
                           {"FAKE_CUPY_RC": "3"})
        expect(rc == 1 and out.rstrip().endswith(
            "FAIL: 98_fake, 99_fake"), "a failed chapter fails the "
            "summary", show(rc, out, err))

        rc, out, err = run(tmp, two + ["--summary"], {"FAKE_CUPY_RC": "3"})
        ends = [s for s in out.splitlines() if s.startswith("[") and
                "started" not in s]
        expect(rc == 1 and len(ends) == 2 and all(
            re.match(r"\[\d/2\] 9\d_fake: FAIL after \d+ s: .*exited 3: "
                     "fake CuPy side failure", s) for s in ends),
               "--summary: a failed chapter's end line says FAIL and why",
               show(rc, out, err))

        rc, out, err = run(tmp, two + ["--summary"], {"FAKE_C_RC": "77"})
        ends = [s for s in out.splitlines() if s.startswith("[") and
                "started" not in s]
        expect(rc == 77 and len(ends) == 2 and all(
            re.match(r"\[\d/2\] 9\d_fake: skipped after \d+ s: ", s)
            for s in ends), "--summary, labs that exit 77: each end line "
            "says skipped", show(rc, out, err))

        rc, out, err = run(tmp, one, {"FAKE_NO_GPU": "1"})
        expect(rc == 77 and err.splitlines() == [
            "no usable CUDA device: cudaErrorNoDevice: no CUDA-capable "
            "device is detected"] and out == "",
            "no GPU: exit 77 and one line", show(rc, out, err))

        rc, out, err = run(tmp, one,
                           pythonpath=os.path.join(HERE, "fake_no_cupy"))
        expect(rc == 77 and len(err.splitlines()) == 1 and err.startswith(
            "CuPy not found (python3 -c 'import cupy' failed: ") and
            "pip install cupy-cuda13x" in err,
            "no CuPy: exit 77 and the CuPy line", show(rc, out, err))

        for args, line in (
                (["--bogus"] + one, "unknown option '--bogus'"),
                ([], "no chapter given"),
                (["99_fake"], "chapter '99_fake' has no lab program"),
                (["nowhere", lab], "no chapter 'nowhere'"),
                (["99_fake", "no-such-lab"],
                 "no lab program 'no-such-lab'"),
                (one + ["--rounds", "2"],
                 "--rounds: '2' must be at least 3"),
                (one + ["--rounds=x"], "--rounds: 'x' is not a whole number"),
                (one + ["--rounds"], "option '--rounds' needs a value")):
            rc, out, err = run(tmp, args)
            expect(rc == 2 and len(err.splitlines()) == 1 and line in err,
                   "usage error %r: exit 2, one line" % args,
                   show(rc, out, err))

        rc, out, err = run(tmp, ["--help"])
        expect(rc == 0 and out.startswith("usage: compare.py"),
               "--help prints the usage", show(rc, out, err))
        left = [d for d in ("98_fake", "99_fake")
                if os.path.exists(os.path.join(tmp, d, "__pycache__"))]
        expect(not left, "no __pycache__ written into chapter folders")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_c_side(chapter):
    sys.path.insert(0, os.path.join(HERE, "fake_no_cupy"))
    path = os.path.join(chapter, "cupy_original.py")
    spec = importlib.util.spec_from_file_location("chapter_module", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as err:
        expect(False, "%s imports without CuPy and without using NumPy: "
               "%s: %s" % (path, type(err).__name__, err))
    for name in ("C_ARGS", "C_QUICK_ARGS"):
        value = getattr(module, name, None)
        expect(isinstance(value, list) and all(isinstance(a, str)
                                               for a in value),
               "%s: %s is a list of strings" % (path, name))
    for name in ("c_rows", "agree", "tutorial", "measure"):
        expect(callable(getattr(module, name, None)),
               "%s: %s() is defined" % (path, name))
    why = getattr(module, "WHY", None)
    expect(isinstance(why, dict) and why and all(
        isinstance(k, str) and isinstance(v, str) for k, v in why.items()),
        "%s: WHY maps step names to phrases" % path)
    headline = getattr(module, "HEADLINE", None)
    expect(isinstance(headline, str) and headline,
           "%s: HEADLINE names a step" % path)
    timing = getattr(module, "TIMING", "unset")
    expect(isinstance(timing, str) and timing and "\n" not in timing,
           "%s: TIMING, where given, is one line" % path)


def main():
    if sys.argv[1:2] == ["driver"] and len(sys.argv) == 2:
        test_driver()
    elif sys.argv[1:2] == ["c_side"] and len(sys.argv) == 3:
        test_c_side(sys.argv[2])
    else:
        sys.stderr.write(__doc__)
        return 2
    print("PASS (%d checks)" % checks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
