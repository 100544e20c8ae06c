#!/usr/bin/env python3
"""check_links.py - every relative link of every tracked Markdown file
leads somewhere: its file or folder exists, and its #anchor is a heading
of the file it names (or an <a id/name> there), as GitHub makes anchors
from headings: lowercase, spaces to '-', punctuation dropped, a repeated
heading's anchor numbered (-1, -2, ...).

    check_links.py SRC          check SRC's tracked *.md (git ls-files;
                                every *.md outside build/ and dot-folders
                                when SRC is not a git checkout)
    check_links.py --self-test  the checker against a small tree of good
                                and broken links

Prints one line per broken link, "FILE:LINE: TARGET: why", and exits 1
if there is one; else one line counting what was checked, exit 0. Links
to web addresses (http:, https:, mailto:) are not followed.
"""
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
# [text](target "title") and ![alt](target); text may hold one level of
# brackets (a link around `code[i]`).
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?"
                    r"(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(\s.*)?$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # \w keeps letters, digits, _
    return text.replace(" ", "-")


def lines_outside_code(path):
    """(line number, text) of each line not in a fenced code block, with
    code spans blanked (a link written in code is not a link)."""
    inside = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                inside = not inside
                continue
            if not inside:
                yield number, CODE_SPAN.sub(
                    lambda m: " " * len(m.group(0)), line)


def anchors(path, cache={}):
    """Every anchor a Markdown file has."""
    if path not in cache:
        found, seen = set(), {}
        inside = False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    inside = not inside
                    continue
                if inside:
                    continue
                found.update(a.lower() for a in HTML_ANCHOR.findall(line))
                m = HEADING.match(line)
                if m:
                    base = slug(m.group(2))
                    n = seen.get(base, 0)
                    seen[base] = n + 1
                    found.add(base if n == 0 else "%s-%d" % (base, n))
        cache[path] = found
    return cache[path]


def targets(path):
    """(line number, target) of each link in a Markdown file."""
    for number, line in lines_outside_code(path):
        for m in INLINE.finditer(line):
            yield number, m.group(1)
        m = REFERENCE.match(line)
        if m:
            yield number, m.group(1)


def check_file(root, rel):
    """Broken links of one file, as messages, and how many were checked."""
    path = os.path.join(root, rel)
    broken, checked = [], 0
    for number, target in targets(path):
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # web addresses, mailto:
        checked += 1
        where = "%s:%d: %s" % (rel, number, target)
        file_part, _, anchor = target.partition("#")
        file_part = urllib.parse.unquote(file_part)
        if file_part.startswith("/"):
            dest = os.path.join(root, file_part.lstrip("/"))
        elif file_part:
            dest = os.path.join(os.path.dirname(path), file_part)
        else:
            dest = path
        dest = os.path.normpath(dest)
        if not os.path.exists(dest):
            broken.append("%s: no such file or folder" % where)
        elif anchor:
            if os.path.isdir(dest) or not dest.endswith(".md"):
                broken.append("%s: an anchor in something not Markdown"
                              % where)
            elif urllib.parse.unquote(anchor).lower() not in anchors(dest):
                broken.append("%s: no heading '#%s' in %s" % (
                    where, anchor, os.path.relpath(dest, root)))
    return broken, checked


def markdown_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "*.md"],
                             capture_output=True, check=True).stdout
        return sorted(p for p in out.decode().split("\0") if p)
    except (OSError, subprocess.CalledProcessError):
        found = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs
                       if not d.startswith(".") and d != "build"]
            found += [os.path.relpath(os.path.join(folder, f), root)
                      for f in files if f.endswith(".md")]
        return sorted(found)


def check_tree(root):
    files = markdown_files(root)
    broken, checked = [], 0
    for rel in files:
        b, c = check_file(root, rel)
        broken += b
        checked += c
    return files, broken, checked


def self_test():
    """The checker finds what it must and nothing else."""
    pages = {
        "README.md": "# Top\n## C vs CuPy: the same GPU!\n## Build\n"
                     "## Build\n<a id=\"kept\"></a>\n"
                     "### `cm_out_open` and _files_\n"
                     "[ok](sub/page.md) [ok](sub/) [ok](#build-1)\n"
                     "[ok](#c-vs-cupy-the-same-gpu) [ok](#kept)\n"
                     "[ok](#cm_out_open-and-_files_) [ok](https://x.y/z)\n"
                     "[bad](missing.md) [bad](#build-2)\n"
                     "```\n[in code](nowhere.md)\n```\n"
                     "`[in a span](nowhere.md)`\n"
                     "[ref]: sub/page.md#part-two\n"
                     "[ref2]: sub/page.md#part-three\n",
        "sub/page.md": "# Page\n## Part two\n[up](../README.md#top)\n"
                       "[bad](../README.md#Nope) ![img](pic.png)\n",
    }
    want = {"README.md:10: missing.md: no such file or folder",
            "README.md:10: #build-2: no heading '#build-2' in README.md",
            "README.md:16: sub/page.md#part-three: no heading "
            "'#part-three' in sub/page.md",
            "sub/page.md:4: ../README.md#Nope: no heading '#Nope' in "
            "README.md",
            "sub/page.md:4: pic.png: no such file or folder"}
    with tempfile.TemporaryDirectory() as root:
        for rel, text in pages.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)) or root,
                        exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        _, broken, checked = check_tree(root)
    ok = set(broken) == want and len(broken) == len(want) and checked == 13
    for line in sorted(set(broken) ^ want):
        print("%s: %s" % ("unexpected" if line in broken else "missed",
                          line))
    if checked != 13:
        print("checked %d links, expected 13" % checked)
    print("PASS: self-test" if ok else "FAIL: self-test")
    return 0 if ok else 1


def main(argv):
    if len(argv) != 2:
        print("usage: check_links.py SRC | --self-test", file=sys.stderr)
        return 2
    if argv[1] == "--self-test":
        return self_test()
    files, broken, checked = check_tree(argv[1])
    for line in broken:
        print(line)
    print("%d links checked in %d Markdown files: %d broken"
          % (checked, len(files), len(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
