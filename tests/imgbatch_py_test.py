"""imgbatch_py_test.py - the Python module (06_image_preprocess/batch/
python/imgbatch) against libimgbatch.so.

  imgbatch_py_test.py cpu PACKAGE_DIR FIXTURES
      (run with python3 -S, the GPUs hidden: CUDA_VISIBLE_DEVICES=-1)
      it imports with the standard library alone; bad options raise
      OptionsError naming the option; no device raises NoDeviceError with
      the library's line; a missing path, a bad list file, a folder
      without class folders and drop_last without a whole batch
      InputError; a missing library or
      one of another layout LibraryError; a batch's array interface, and
      its going stale at the loader's next step (a batch made by hand).
  imgbatch_py_test.py gpu PACKAGE_DIR FIXTURES TOOL OUT_DIR
      with PyTorch and a GPU (else exit 77): the module's batches, through
      torch.as_tensor, equal the .npy that the command line (TOOL
      --out-npy) writes of the same folder and options, bit for bit; a
      second pass gives the same bits; a batch goes stale at the next
      step; a closed loader refuses to go on. On the fixture folder and on
      70 JPEGs that TOOL --make-corpus writes into OUT_DIR.
  imgbatch_py_test.py readme PACKAGE_DIR README EXAMPLE
      the README's python block is the example file, line for line.
  imgbatch_py_test.py train PACKAGE_DIR EXAMPLE TOOL OUT_DIR
      train_example.py (EXAMPLE) for 2 steps on that corpus: exit 0 (77
      passed on), two "step N: 32 images, loss X" lines, X finite.
Prints PASS last when every check held, else FAIL lines, exit 1.
"""
import ast
import ctypes
import os
import subprocess
import sys
import types

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def raises(kind, call, *words):
    """call() raises kind, with each of words in its message."""
    try:
        call()
    except kind as e:
        for w in words:
            check(w in str(e), "%s: %r not in %r" % (kind.__name__, w,
                                                     str(e)))
        return e
    except Exception as e:  # the wrong kind is a failure, shown
        check(False, "expected %s, got %s: %s" % (kind.__name__,
                                                  type(e).__name__, e))
        return None
    check(False, "expected %s, nothing raised" % kind.__name__)
    return None


def cpu(imgbatch, fixtures):
    check(not {"numpy", "torch"} & set(sys.modules),
          "importing imgbatch imported numpy or torch")
    check(os.environ.get("CUDA_VISIBLE_DEVICES") == "-1",
          "the GPUs must be hidden for this test (CUDA_VISIBLE_DEVICES=-1)")
    folder = os.path.join(fixtures, "batch")
    Loader = imgbatch.Loader

    # Options: the library's parse and its reasons, before any GPU.
    for kwargs, words in [
            (dict(resize="8"), ["--resize: '8' is not WIDTHxHEIGHT"]),
            (dict(resize=(40000, 10)), ["--resize: at most 32767"]),
            (dict(crop=0, resize_short=5), ["--crop: '0x0' is not"]),
            (dict(color="cmyk"), ["--color: 'cmyk' is not one of gray|rgb"]),
            (dict(dtype="int8"), ["--dtype: 'int8' is not one of"]),
            (dict(color="rgb", mean=(1, 2)),
             ["--mean: '1,2': give one value or 3, one per channel"]),
            (dict(mean=(0.1, 0.2, 0.3)), ["--mean: '0.1,0.2,0.3': give one "
                                          "value or 1"]),
            (dict(std=0), ["--std: '0' is not numbers above 0"]),
            (dict(threads=300), ["--threads: '300' must be at most 256"]),
            (dict(batch_size=-1), ["--batch-size: size '-1' is negative"]),
            (dict(max_pixels="1Q"), ["--max-pixels: size '1Q' has an"]),
            (dict(decoder="fast"), ["--decoder: 'fast' is not one of"]),
            (dict(nvjpeg_backend="npu"), ["--nvjpeg-backend: 'npu'"]),
            (dict(hybrid_share=2), ["--hybrid-share: '2' is not auto or"]),
            (dict(device=-1), ["--device: '-1' must be at least 0"]),
            (dict(shuffle=True, seed=-1), ["--seed: '-1' is not a whole"]),
            (dict(world_size=0), ["--world-size: '0' must be at least 1"]),
            # Options that do not go together: imgbatch_open's checks.
            (dict(resize_short=256), ["--resize-short S goes with --crop"]),
            (dict(rank=2, world_size=2), ["rank 2 is not in 0 .. world_size"]),
            (dict(antialias=True), ["--antialias needs a resize: --resize"]),
            (dict(dtype="uint8", mean=0.5), ["do nothing with --dtype uint8"]),
            (dict(decoder="cpu", nvjpeg_backend="hybrid"),
             ["an nvJPEG backend does nothing with --decoder cpu"]),
            (dict(decoder="cpu", hybrid_share="auto"),
             ["--hybrid-share does nothing with --decoder cpu"])]:
        e = raises(imgbatch.OptionsError, lambda: Loader(folder, **kwargs),
                   *words)
        check(e is None or (e.status == imgbatch.ERR_OPTIONS and
                            isinstance(e, imgbatch.Error) and
                            isinstance(e, ValueError)),
              "OptionsError's status and bases, %r" % kwargs)
    raises(imgbatch.OptionsError, lambda: Loader([]), "give one of a folder")

    # No device: the library's line, as the command line prints it.
    e = raises(imgbatch.NoDeviceError, lambda: Loader(folder, resize=8),
               "no usable CUDA device: ")
    check(e is None or e.status == imgbatch.ERR_NO_DEVICE,
          "NoDeviceError's status")
    # The files are checked before the device: a missing one is named.
    raises(imgbatch.InputError,
           lambda: Loader(os.path.join(fixtures, "no-such-folder")),
           "no-such-folder: cannot open")
    raises(imgbatch.InputError,
           lambda: Loader([os.path.join(folder, "a.png"),
                           os.path.join(fixtures, "empty.png")], resize=8),
           "empty.png: file is empty")
    # A file as the source is a list of paths, read as --list reads it.
    raises(imgbatch.InputError,
           lambda: Loader(os.path.join(fixtures, "list_nul.txt")),
           "list_nul.txt: line 2 holds a NUL byte")
    # A data set that cannot be read: a folder without class folders, and
    # drop_last with no whole batch (4 images, batches of 8).
    raises(imgbatch.InputError, lambda: Loader(folder, class_folders=True),
           "no class folder in it")
    raises(imgbatch.InputError,
           lambda: Loader(folder, drop_last=True, batch_size=8),
           "drop_last leaves rank 0 no whole batch: 4 images a pass")

    # The library: missing, or with other struct layouts.
    raises(imgbatch.LibraryError,
           lambda: Loader(folder, library="/no/such/libimgbatch.so"),
           "/no/such/libimgbatch.so: no such file")
    lib = imgbatch.load_library()

    class Wrong(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p)]
    e = raises(imgbatch.LibraryError,
               lambda: imgbatch._check_layout(lib, "lib.so",
                                              {"imgbatch_batch": Wrong}),
               "imgbatch_batch is %d bytes there, 8 in this module"
               % lib.imgbatch_sizeof(b"imgbatch_batch"))
    check(e is None or isinstance(e, ImportError), "LibraryError's bases")

    # A batch, made by hand: its array interface, then stale.
    names = (ctypes.c_char_p * 2)(b"a.png", b"b.jpg")
    raw = imgbatch._Batch(data=0x7000, count=2, channels=3, height=4,
                          width=5, dtype=1, bytes=240, first=6,
                          stream=0x55, files=names)
    owner = types.SimpleNamespace(_step=1)
    b = imgbatch.Batch(owner, 1, raw)
    cai = b.__cuda_array_interface__
    check(cai == {"shape": (2, 3, 4, 5), "typestr": "<f2",
                  "data": (0x7000, False), "strides": None, "version": 3,
                  "stream": 0x55}, "array interface: %r" % cai)
    check(b.files == ["a.png", "b.jpg"] and b.first == 6 and len(b) == 2,
          "batch files, first, len")
    owner._step = 2
    raises(imgbatch.StaleBatchError, lambda: b.__cuda_array_interface__,
           "images 6 to 7", "is gone")
    raises(imgbatch.StaleBatchError, lambda: b.data_ptr, "is gone")
    raises(imgbatch.StaleBatchError, lambda: b.stream, "is gone")
    check(b.files == ["a.png", "b.jpg"] and b.labels is None and
          b.shape == (2, 3, 4, 5), "a stale batch's copies stay")
    check("stale" in repr(b), "repr of a stale batch")
    gray = imgbatch._Batch(data=0x7000, count=0, channels=1, height=4,
                           width=5, dtype=2, stream=None)
    cai = imgbatch.Batch(owner, 2, gray).__cuda_array_interface__
    check(cai["shape"] == (0, 4, 5) and cai["typestr"] == "|u1" and
          cai["data"] == (0, False) and cai["stream"] == 1,
          "an empty gray batch: %r" % cai)


def read_npy(path):
    """(shape, descr, data bytes) of a .npy, version 1 or 2, in Python."""
    with open(path, "rb") as f:
        blob = f.read()
    check(blob[:6] == b"\x93NUMPY", path + ": not a .npy")
    size = 2 if blob[6] == 1 else 4
    hlen = int.from_bytes(blob[8:8 + size], "little")
    header = ast.literal_eval(blob[8 + size:8 + size + hlen].decode())
    return header["shape"], header["descr"], blob[8 + size + hlen:]


def as_bytes(torch, t):
    return bytes(t.contiguous().cpu().reshape(-1).view(torch.uint8).tolist())


def gpu(imgbatch, fixtures, tool, out):
    try:
        import torch
    except ImportError:
        print("imgbatch_py_test.py: PyTorch not found: skipped",
              file=sys.stderr)
        sys.exit(77)
    if not torch.cuda.is_available():
        print("imgbatch_py_test.py: no usable CUDA device: skipped",
              file=sys.stderr)
        sys.exit(77)
    corpus = make_corpus(tool, out)
    folder = os.path.join(fixtures, "batch")
    cases = [
        ("corpus_gray_f32", dict(resize=32, folder=corpus),
         ["--resize", "32x32"]),
        ("gray_f32", dict(resize=(16, 12)), ["--resize", "16x12"]),
        ("rgb_f16_crop", dict(color="rgb", dtype="float16", resize_short=20,
                              crop=16, mean=(0.485, 0.456, 0.406),
                              std=(0.229, 0.224, 0.225)),
         ["--color", "rgb", "--dtype", "float16", "--resize-short", "20",
          "--crop", "16x16", "--mean", "0.485,0.456,0.406", "--std",
          "0.229,0.224,0.225"]),
        ("rgb_u8_noflip_b2", dict(color="rgb", dtype="uint8", resize=(9, 7),
                                  flip=False, batch_size=2),
         ["--color", "rgb", "--dtype", "uint8", "--resize", "9x7",
          "--no-flip", "--batch-size", "2"]),
        # antialias=True is --antialias: other levels than without it.
        ("rgb_u8_antialias", dict(color="rgb", dtype="uint8",
                                  resize_short=20, crop=16, antialias=True),
         ["--color", "rgb", "--dtype", "uint8", "--resize-short", "20",
          "--crop", "16x16", "--antialias"]),
    ]
    for name, kwargs, args in cases:
        npy = os.path.join(out, name + ".npy")
        source = kwargs.pop("folder", folder)
        run = subprocess.run([tool, source, "--out-npy", npy] + args,
                             capture_output=True, text=True)
        said = [line for line in run.stdout.splitlines()
                if line.startswith("FAIL")] + run.stderr.splitlines()
        check(run.returncode == 0, "%s: imgbatch exited %d: %s"
              % (name, run.returncode, "; ".join(said)))
        if run.returncode != 0:
            continue
        shape, descr, want = read_npy(npy)
        with imgbatch.Loader(source, **kwargs) as loader:
            passes, first = [], None
            for _ in range(2):
                parts = []
                for batch in loader:
                    if first is None:
                        first = batch
                    # A view of the batch, cloned: kept past the step.
                    parts.append(torch.as_tensor(batch, device="cuda")
                                 .clone())
                passes.append(torch.cat(parts))
            raises(imgbatch.StaleBatchError,
                   lambda: first.__cuda_array_interface__, "is gone")
        got = passes[0]
        check(tuple(got.shape) == tuple(shape), "%s: shape %s, .npy %s"
              % (name, tuple(got.shape), shape))
        check({"float32": "<f4", "float16": "<f2", "uint8": "|u1"}
              [loader.dtype] == descr, "%s: dtype %s, .npy %s"
              % (name, loader.dtype, descr))
        check(as_bytes(torch, got) == want,
              "%s: the module's tensor differs from the .npy" % name)
        check(torch.equal(passes[0], passes[1]),
              "%s: the second pass differs from the first" % name)
        if "batch_size" in kwargs:
            check(len(parts) == len(loader) == 2,
                  "%s: %d batches of 2, %d a pass" % (name, len(parts),
                                                       len(loader)))
        raises(imgbatch.Error, lambda: iter(loader), "the loader is closed")

    # A data set: class folders, shuffled, rank 1 of 2; the module's
    # tensor and labels against the command line's .npy files.
    tree = class_tree(corpus, out)
    npy, labels_npy = (os.path.join(out, "classes" + e)
                       for e in (".npy", "_labels.npy"))
    run = subprocess.run([tool, tree, "--class-folders", "--shuffle",
                          "--seed", "3", "--rank", "1", "--world-size", "2",
                          "--resize", "24x24", "--out-npy", npy,
                          "--out-labels", labels_npy],
                         capture_output=True, text=True)
    check(run.returncode == 0, "classes: imgbatch exited %d: %s"
          % (run.returncode, run.stderr.strip()))
    if run.returncode == 0:
        _, _, want = read_npy(npy)
        shape, descr, want_labels = read_npy(labels_npy)
        with imgbatch.Loader(tree, class_folders=True, shuffle=True, seed=3,
                             rank=1, world_size=2, resize=24) as loader:
            parts, labels = [], []
            for batch in loader:
                parts.append(torch.as_tensor(batch, device="cuda").clone())
                labels += batch.labels
            check(loader.classes == ["cat", "dog", "owl"],
                  "classes: %s" % loader.classes)
            check(loader.pass_images == 35 and len(labels) == 35,
                  "classes: %d images a pass, %d labels, expected 35"
                  % (loader.pass_images, len(labels)))
        check(as_bytes(torch, torch.cat(parts)) == want,
              "classes: the module's tensor differs from the .npy")
        check(descr == "<i8" and b"".join(
            v.to_bytes(8, "little", signed=True) for v in labels)
              == want_labels, "classes: the labels differ from the .npy")


def make_corpus(tool, out):
    """70 JPEGs of 96 x 80, every 4th progressive, in OUT/corpus."""
    corpus = os.path.join(out, "corpus")
    os.makedirs(out, exist_ok=True)
    run = subprocess.run([tool, "--make-corpus", corpus, "--count", "70",
                          "--size", "96x80", "--kind", "mixed"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("imgbatch --make-corpus exited %d: %s"
                 % (run.returncode, run.stderr.strip()))
    return corpus


def class_tree(corpus, out):
    """OUT/classes/{cat,dog,owl}: the corpus's files, a third in each
    (hard links), as an ImageFolder data set."""
    tree = os.path.join(out, "classes")
    names = sorted(os.listdir(corpus))
    for k, name in enumerate(names):
        folder = os.path.join(tree, ("cat", "dog", "owl")[k * 3 // len(names)])
        os.makedirs(folder, exist_ok=True)
        link = os.path.join(folder, name)
        if not os.path.exists(link):
            os.link(os.path.join(corpus, name), link)
    return tree


def train(example, tool, out):
    tree = class_tree(make_corpus(tool, out), out)
    run = subprocess.run([sys.executable, example, tree, "--steps", "2"],
                         capture_output=True, text=True)
    sys.stderr.write(run.stderr)
    if run.returncode == 77:
        sys.exit(77)
    print(run.stdout, end="")
    check(run.returncode == 0, "train_example.py exited %d"
          % run.returncode)
    lines = run.stdout.splitlines()
    check(len(lines) == 2, "%d lines, expected 2" % len(lines))
    for step, line in enumerate(lines, 1):
        head = "step %d: 32 images, loss " % step
        check(line.startswith(head), "line %r" % line)
        loss = float(line[len(head):]) if line.startswith(head) else 0
        check(loss == loss and abs(loss) != float("inf"),
              "loss %r is not finite" % loss)


def readme(path, example):
    text = open(path).read()
    start = text.find("```python\n")
    end = text.find("\n```\n", start)
    shown = text[start + len("```python\n"):end + 1] if start >= 0 else ""
    check(shown == open(example).read(),
          "%s: its python block is not %s" % (path, example))


def main():
    mode, package = sys.argv[1], sys.argv[2]
    sys.path.insert(0, package)
    import imgbatch
    if mode == "cpu" and len(sys.argv) == 4:
        cpu(imgbatch, sys.argv[3])
    elif mode == "gpu" and len(sys.argv) == 6:
        gpu(imgbatch, *sys.argv[3:])
    elif mode == "readme" and len(sys.argv) == 5:
        readme(*sys.argv[3:])
    elif mode == "train" and len(sys.argv) == 6:
        train(*sys.argv[3:])
    else:
        sys.exit("usage: imgbatch_py_test.py cpu|gpu|readme|train "
                 "PACKAGE_DIR ARGS... (see its header)")
    if failures:
        print("FAIL: %d checks failed" % len(failures))
        sys.exit(1)
    print("PASS")


main()
