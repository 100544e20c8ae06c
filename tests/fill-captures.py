#!/usr/bin/env python3
"""Fills the README output blocks from a tests/gpu-check.sh run.

    tests/fill-captures.py DIR      (DIR holds captures/ from gpu-check.sh,
                                     or gpu-check.tgz)

Each "<!-- capture: CMD -->" line in a README is followed by one line naming
the GPU, driver and date, and a fenced block holding "$ CMD" and what CMD
printed, exactly. Both are rewritten from the capture files, never by hand.
"""
import os
import re
import sys
import tarfile
import tempfile

MARKER = re.compile(r"^<!-- capture: (.*) -->$")


def load(root):
    if os.path.isfile(os.path.join(root, "gpu-check.tgz")):
        tmp = tempfile.mkdtemp()
        with tarfile.open(os.path.join(root, "gpu-check.tgz")) as tar:
            tar.extractall(tmp, filter="data")
        root = tmp
    cap = os.path.join(root, "captures")
    gpu = open(os.path.join(cap, "gpu.txt")).read().split("\n")
    name, driver = [s.strip() for s in gpu[0].split(",")]
    header = "Output on an %s (driver %s), %s:" % (name, driver, gpu[1])
    runs = {}
    for line in open(os.path.join(cap, "index.tsv")):
        ident, readme, cmd, rc = line.rstrip("\n").split("\t")
        text = open(os.path.join(cap, ident + ".txt")).read().rstrip("\n")
        runs.setdefault(readme, []).append((cmd, rc, text))
    return header, runs


def fill(readme, header, captures):
    lines = open(readme).read().split("\n")
    out, i, k = [], 0, 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        cmd, rc, text = captures[k]
        k += 1
        if cmd != m.group(1):
            sys.exit("%s: capture %d is for '%s', marker says '%s'"
                     % (readme, k, cmd, m.group(1)))
        if rc != "0":
            print("warning: %s: '%s' exited %s" % (readme, cmd, rc))
        if i < len(lines) and lines[i].startswith("Output on "):
            i += 1
        if i < len(lines) and lines[i].startswith("```"):
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                i += 1
            i += 1
        out += [header, "```", "$ " + cmd, text, "```"]
    if k != len(captures):
        sys.exit("%s: %d markers but %d captures" % (readme, k,
                                                     len(captures)))
    open(readme, "w").write("\n".join(out))
    print("%s: %d block(s) filled" % (readme, k))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    header, runs = load(sys.argv[1])
    for readme, captures in sorted(runs.items()):
        fill(readme, header, captures)


if __name__ == "__main__":
    main()
