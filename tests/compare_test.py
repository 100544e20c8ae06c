#!/usr/bin/env python3
"""compare_test.py - CPU tests of make compare's machinery.

    compare_test.py driver             common/compare.py end to end, with a
                                       fake CuPy, a fake chapter and a fake
                                       lab: the table, units, ratios, '-'
                                       rows, cross-checks, PASS / FAIL,
                                       --summary, exit 1 / 2 / 77
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

# A chapter whose CuPy side returns FAKE_ROWS and whose C side reads the
# fake lab's CSV (step,ms,check).
FAKE_CHAPTER = '''
import csv, json, os, sys
sys.path.insert(0, os.environ["FAKE_COMMON"])
import cupy_env
if os.environ.get("FAKE_IMPORT_FAILS"):
    raise RuntimeError("this chapter does work at import time")
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
    return json.loads(os.environ["FAKE_ROWS"])
if __name__ == "__main__":
    if os.environ.get("FAKE_CUPY_RC"):
        sys.stderr.write("fake CuPy side failure\\n")
        sys.exit(int(os.environ["FAKE_CUPY_RC"]))
    sys.exit(cupy_env.main(tutorial, measure))
'''

# The lab: logs its arguments, writes FAKE_CSV to --csv, prints PASS; or
# fails with FAKE_C_RC and one stderr line.
FAKE_LAB = '''#!/bin/sh
echo "$@" >> "$FAKE_ARGS_LOG"
while [ $# -gt 0 ]; do
    [ "$1" = --csv ] && csv=$2
    shift
done
if [ -n "$FAKE_C_RC" ]; then
    echo "fake lab: out of memory" >&2
    exit "$FAKE_C_RC"
fi
printf '%s' "$FAKE_CSV" > "$csv"
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
    full = dict(os.environ)
    for key in list(full):
        if key.startswith("FAKE_"):
            del full[key]
    full.update({"PYTHONPATH": pythonpath or os.path.join(tmp, "fake"),
                 "FAKE_COMMON": COMMON, "FAKE_ROWS": json.dumps(ROWS),
                 "FAKE_CSV": GOOD_CSV,
                 "FAKE_ARGS_LOG": os.path.join(tmp, "args.log")})
    full.update(env or {})
    proc = subprocess.run([sys.executable, DRIVER] + args, cwd=tmp,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=full, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


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


def test_driver():
    test_units()
    tmp = tempfile.mkdtemp(prefix="compare-test-")
    try:
        lab = setup(tmp)
        one = ["99_fake", lab]

        rc, out, err = run(tmp, one)
        text = show(rc, out, err)
        expect(rc == 0 and out.rstrip().splitlines()[-1].startswith(
            "PASS"), "a passing compare exits 0 and ends with PASS", text)
        expect("GPU: Fake GPU (driver " in out and
               "CUDA runtime 13.0, CuPy 0.0-fake)" in out,
               "the GPU line names GPU, driver, runtime and CuPy", text)
        expect(row_of(out, "copy 8 MB")[3:] ==
               ["2.00", "ms", "1.00", "ms", "2x", "why", "the", "copy",
                "differs"], "a row: CuPy, C, ratio, why", text)
        expect(row_of(out, "cupy only")[2:] == ["12.3", "us", "-", "-"],
               "a CuPy-only row shows '-' for C and the ratio", text)
        expect(row_of(out, "c only")[2:] == ["-", "500", "us", "-"],
               "a C-only row shows '-' for CuPy and the ratio", text)
        expect(row_of(out, "loop vs packed, 10 x 4 KiB")[7:] ==
               ["1.50", "s", "100", "us", "15000x", "why", "the", "loop"],
               "WHY found by prefix; seconds; a large ratio", text)
        expect("check the same bytes: ok, 2 steps both sides time" in out,
               "agree()'s lines are printed", text)
        expect("check the C lab's own checks: ok, PASS (3 checks)" in out,
               "the C lab's verdict is shown", text)
        expect("Summary" not in out, "one chapter: no summary", text)
        with open(os.path.join(tmp, "args.log")) as f:
            expect(f.read().split()[0] == "--full",
                   "the lab gets C_ARGS first, then --csv")

        rc, out, err = run(tmp, one + ["--quick"])
        with open(os.path.join(tmp, "args.log")) as f:
            expect(rc == 0 and f.read().splitlines()[-1].split()[0] ==
                   "--quick", "--quick gives the lab C_QUICK_ARGS",
                   show(rc, out, err))

        bad_csv = lab_csv([("copy 8 MB", 1.0, 7999999)])
        rc, out, err = run(tmp, one, {"FAKE_CSV": bad_csv})
        expect(rc == 1 and "check the same bytes: FAILED, copy 8 MB: "
               "CuPy 8000000, C 7999999" in out and
               out.rstrip().splitlines()[-1].startswith("FAIL: check "
                                                        "failed"),
               "a cross-check that fails fails the compare",
               show(rc, out, err))

        rc, out, err = run(tmp, one, {"FAKE_C_RC": "1"})
        expect(rc == 1 and "exited 1: fake lab: out of memory" in out,
               "a failing lab fails the compare with its line",
               show(rc, out, err))

        rc, out, err = run(tmp, one, {"FAKE_C_RC": "77"})
        expect(rc == 77 and len(err.splitlines()) == 1 and
               "fake lab: out of memory" in err,
               "a lab that exits 77 gives 77 and one line",
               show(rc, out, err))

        wrong = [dict(ROWS[0], ok=False)] + ROWS[1:]
        rc, out, err = run(tmp, one, {"FAKE_ROWS": json.dumps(wrong)})
        expect(rc == 1 and "copy 8 MB" in out and
               "own checks (NumPy or exact values): FAILED" in out,
               "a CuPy row that is not ok fails, table still shown",
               show(rc, out, err))

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

        two = ["98_fake", lab, "99_fake", lab]
        rc, out, err = run(tmp, two + ["--summary"])
        summary = [s for s in out.splitlines() if s.startswith("9")]
        expect(rc == 0 and "step  " not in out.split("Summary")[0] and
               len(summary) == 2 and summary[0].split()[:2] ==
               ["98_fake", "loop"] and "15000x" in summary[1] and
               out.rstrip().endswith("PASS (2 chapters)"),
               "--summary: one row per chapter, its HEADLINE",
               show(rc, out, err))

        rc, out, err = run(tmp, two)
        expect(rc == 0 and out.count("check the C lab") == 2 and
               "Summary" in out, "several chapters: tables, then the "
               "summary", show(rc, out, err))

        rc, out, err = run(tmp, ["98_fake", lab, "99_fake", lab],
                           {"FAKE_CUPY_RC": "3"})
        expect(rc == 1 and out.rstrip().endswith(
            "FAIL: 98_fake, 99_fake"), "a failed chapter fails the "
            "summary", show(rc, out, err))

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
                 "no lab program 'no-such-lab'")):
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
