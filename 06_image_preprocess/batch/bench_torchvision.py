"""bench_torchvision.py - what imgbatch does, done the way a PyTorch user
does it on the GPU with torchvision, on the same folder, timed.

    python3 bench_torchvision.py DIR [--color gray|rgb]
        [--resize WxH | --resize-short S --crop WxH]
        [--dtype float32|float16] [--mean M] [--std S] [--no-flip]
        [--lists 32,64,128,256] [--repeat 7] [--warmup 1] [--device N]
        [--label NAME] [--dataloader [--workers 16] [--batch-size 256]]

The folder's .jpg/.jpeg files are read into memory first (not timed: as
imgbatch does, it starts from files in the page cache). A pass decodes
them in lists of L files with torchvision.io.decode_jpeg(list,
device='cuda', mode=GRAY or RGB) (nvJPEG's batched decode), then, as
imgbatch's options ask: each image to float and through
F.interpolate(mode='bilinear', align_corners=False, antialias=False)
(for --resize-short, to torchvision's Resize(S) size, then the centre
crop as CenterCrop takes it), torch.cat into a batch, / 255, (x - mean)
/ std, flipped left to right, to float16; the batches stay on the GPU
until the pass ends. Without a resize the images are stacked as they
are. Each list size of --lists is timed over --repeat passes (after
--warmup untimed ones), from the first call to a torch.cuda.synchronize()
after the last; the best list size (by median) is torchvision at its
best. Every line gives the median pass, its spread (min and max) and
images/s to three significant digits; the last line, RESULT, is for
scripts (bench.sh).

Checks: every batch has the shape asked for, and the first image of each
list, decoded on the GPU, is torchvision's CPU decode (libjpeg) of the
same file within 2 levels on every pixel (gray) or 2 levels on average
(RGB: colour conversion and chroma upsampling differ, torchvision's own
test bound). A list size that torchvision refuses says so on its line.

With --dataloader it times the loader most PyTorch code uses instead
(pil_loader.py): torch.utils.data.DataLoader over a dataset of the same
files as ImageFolder reads them (PIL's Image.open, convert to RGB or L,
then transforms.Resize and CenterCrop or Resize((H, W)), ToTensor,
Normalize), --workers worker processes (persistent), batches of
--batch-size, pin_memory, each batch moved to the GPU and flipped and
typed there; an epoch is a pass. Its RESULT line names the workers
instead of a list size.

Exit status: 0, 1 if a check fails or nothing could be timed, 2 usage
error, 77 when PyTorch, torchvision or a CUDA GPU is missing (one line).
"""
import argparse
import os
import statistics
import sys
import time


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2."""

    def error(self, message):
        print(f"bench_torchvision.py: {message} (see --help)",
              file=sys.stderr)
        sys.exit(2)


def at_least(low):
    """An argparse type: a whole number, low or more."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"'{text}' is not a whole number")
        if value < low:
            raise argparse.ArgumentTypeError(
                f"'{text}' must be at least {low}")
        return value
    return parse


def dims(text):
    try:
        w, h = (int(v) for v in text.lower().split("x"))
        if w >= 1 and h >= 1:
            return w, h
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"'{text}' is not WIDTHxHEIGHT")


def sizes(text):
    try:
        values = [int(v) for v in text.split(",")]
        if values and all(v >= 1 for v in values):
            return values
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"'{text}' is not list sizes above 0 "
                                     "joined by commas")


def floats(text):
    try:
        return [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not numbers joined "
                                         "by commas")


def parse(argv):
    p = Parser(description="torchvision's GPU decode and transforms of a "
               "folder, as imgbatch's options ask, timed.")
    p.add_argument("dir", metavar="DIR", help="a folder of JPEG files")
    p.add_argument("--color", choices=["gray", "rgb"], default="gray")
    p.add_argument("--resize", type=dims, metavar="WxH")
    p.add_argument("--resize-short", type=at_least(1), metavar="S")
    p.add_argument("--crop", type=dims, metavar="WxH")
    p.add_argument("--dtype", choices=["float32", "float16"],
                   default="float32")
    p.add_argument("--mean", type=floats, default=[0.0])
    p.add_argument("--std", type=floats, default=[1.0])
    p.add_argument("--no-flip", action="store_true")
    p.add_argument("--lists", type=sizes, default=[32, 64, 128, 256],
                   help="files per decode_jpeg call, each tried "
                   "(default 32,64,128,256)")
    p.add_argument("--repeat", type=at_least(1), default=7,
                   help="timed passes for each list size (default 7)")
    p.add_argument("--warmup", type=at_least(1), default=1,
                   help="untimed passes first, the first checked "
                   "(default 1)")
    p.add_argument("--device", type=at_least(0), default=0)
    p.add_argument("--label", default="", help="a name for the RESULT "
                   "line")
    p.add_argument("--dataloader", action="store_true",
                   help="time DataLoader and PIL instead (pil_loader.py)")
    p.add_argument("--workers", type=at_least(0), default=16,
                   help="--dataloader's worker processes (default 16)")
    p.add_argument("--batch-size", type=at_least(1), default=256,
                   help="--dataloader's images a batch (default 256)")
    args = p.parse_args(argv)
    if args.resize and (args.resize_short or args.crop):
        p.error("--resize or --resize-short with --crop, not both")
    if bool(args.resize_short) != bool(args.crop):
        p.error("--resize-short S goes with --crop WxH")
    channels = 3 if args.color == "rgb" else 1
    for name in ("mean", "std"):
        if len(getattr(args, name)) not in (1, channels):
            p.error(f"--{name}: give one value or {channels}")
    if any(s <= 0 for s in args.std):
        p.error("--std: values must be above 0")
    return args


def sig3(x):
    """x to three significant digits, thousands separated."""
    if x >= 100:
        return f"{float(f'{x:.3g}'):,.0f}"
    return f"{x:.3g}"


def jpeg_files(folder):
    names = sorted(n for n in os.listdir(folder)
                   if n.lower().endswith((".jpg", ".jpeg")))
    return [os.path.join(folder, n) for n in names]


def make_pass(args, torch, F, decode_jpeg, mode, device, lists):
    """The function that does one pass over the lists; returns the
    batches (on the GPU) and the GPU decode of each list's first file."""
    c = 3 if args.color == "rgb" else 1
    mean = torch.tensor(args.mean * (c if len(args.mean) == 1 else 1),
                        device=device).view(1, c, 1, 1)
    std = torch.tensor(args.std * (c if len(args.std) == 1 else 1),
                       device=device).view(1, c, 1, 1)
    plain = all(v == 0 for v in args.mean) and all(v == 1 for v in args.std)
    half = args.dtype == "float16"

    def resized(img):
        x = img.unsqueeze(0).float()
        if args.resize:
            w, h = args.resize
            return F.interpolate(x, size=(h, w), mode="bilinear",
                                 align_corners=False, antialias=False)
        if args.resize_short:
            s, ih, iw = args.resize_short, img.shape[1], img.shape[2]
            nh, nw = (int(s * ih / iw), s) if iw <= ih else \
                (s, int(s * iw / ih))
            x = F.interpolate(x, size=(nh, nw), mode="bilinear",
                              align_corners=False, antialias=False)
            cw, ch = args.crop
            top, left = int(round((nh - ch) / 2.0)), \
                int(round((nw - cw) / 2.0))
            return x[:, :, top:top + ch, left:left + cw]
        return x

    def one_pass():
        batches, firsts = [], []
        for data in lists:
            imgs = decode_jpeg(data, mode=mode, device=device)
            firsts.append(imgs[0])
            if args.resize or args.resize_short:
                batch = torch.cat([resized(img) for img in imgs])
            else:
                batch = torch.stack(imgs).float()
            batch.div_(255)
            if not plain:
                batch.sub_(mean).div_(std)
            if not args.no_flip:
                batch = batch.flip(-1)
            batches.append(batch.half() if half else batch)
        torch.cuda.synchronize(device)
        return batches, firsts
    return one_pass


def checked(args, torch, decode_jpeg, mode, data, lists, size, out):
    """The problems with one pass's batches and first images."""
    batches, firsts = out
    c = 3 if args.color == "rgb" else 1
    bad = []
    for k, (batch, first) in enumerate(zip(batches, firsts)):
        w, h = args.crop or args.resize or (first.shape[2], first.shape[1])
        want = (len(lists[k]), c, h, w)
        if tuple(batch.shape) != want:
            bad.append(f"list {k}: shape {tuple(batch.shape)}, not {want}")
        ref = decode_jpeg(data[k * size], mode=mode)
        if tuple(first.shape) != tuple(ref.shape):
            bad.append(f"list {k}: decoded {tuple(first.shape)}, the CPU "
                       f"{tuple(ref.shape)}")
            continue
        diff = (first.cpu().int() - ref.int()).abs()
        if (c == 1 and diff.max().item() > 2) or \
                (c == 3 and diff.float().mean().item() > 2):
            bad.append(f"list {k}: the GPU decode differs from the CPU's "
                       f"(max {diff.max().item()}, mean "
                       f"{diff.float().mean().item():.2f} levels)")
    return bad


def main(argv):
    args = parse(argv)
    if not os.path.isdir(args.dir):
        print(f"bench_torchvision.py: {args.dir}: not a folder",
              file=sys.stderr)
        return 1
    try:
        import torch
        import torch.nn.functional as F
        import torchvision
        from torchvision.io import ImageReadMode, decode_jpeg
    except ImportError as e:
        print(f"PyTorch or torchvision not found ({e}): skipped",
              file=sys.stderr)
        return 77
    if not torch.cuda.is_available():
        print("no usable CUDA device (torch.cuda.is_available() is False): "
              "skipped", file=sys.stderr)
        return 77
    if args.device >= torch.cuda.device_count():
        print(f"no usable CUDA device: --device {args.device}, but "
              f"{torch.cuda.device_count()} device(s)", file=sys.stderr)
        return 77
    files = jpeg_files(args.dir)
    if not files:
        print(f"bench_torchvision.py: {args.dir}: no .jpg or .jpeg files",
              file=sys.stderr)
        return 1
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    if args.dataloader:
        try:
            import pil_loader
        except ImportError as e:
            print(f"PIL not found ({e}): skipped", file=sys.stderr)
            return 77
        return pil_loader.run(args, files, device, sig3)
    mode = ImageReadMode.RGB if args.color == "rgb" else ImageReadMode.GRAY
    data = []
    for f in files:
        with open(f, "rb") as fh:
            data.append(torch.frombuffer(bytearray(fh.read()),
                                         dtype=torch.uint8))
    print(f"torchvision {torchvision.__version__} (PyTorch "
          f"{torch.__version__}) on {torch.cuda.get_device_name(device)}: "
          f"{len(files)} files of {args.dir}, decode_jpeg(device='cuda', "
          f"mode={args.color.upper()}), {args.repeat} passes a list size")
    best, status = None, 0
    for size in args.lists:
        lists = [data[i:i + size] for i in range(0, len(data), size)]
        one_pass = make_pass(args, torch, F, decode_jpeg, mode, device,
                             lists)
        try:
            out = one_pass()  # also the first warm-up
        except RuntimeError as e:
            reason = " ".join(str(e).split())[:160]
            print(f"lists of {size}: torchvision refused: {reason}")
            continue
        bad = checked(args, torch, decode_jpeg, mode, data, lists, size, out)
        del out
        for _ in range(args.warmup - 1):
            one_pass()
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            one_pass()
            times.append(time.perf_counter() - start)
        med, lo, hi = statistics.median(times), min(times), max(times)
        ips = len(files) / med
        print(f"lists of {size}: {med * 1e3:.1f} ms a pass median (min "
              f"{lo * 1e3:.1f}, max {hi * 1e3:.1f}), {sig3(ips)} images/s "
              f"(min {sig3(len(files) / hi)}, max {sig3(len(files) / lo)})"
              f"{', check FAILED' if bad else ', checked ok'}")
        for line in bad[:5]:
            print(f"  {line}")
        status = 1 if bad else status
        if not bad and (best is None or ips > best[1]):
            best = (size, ips, len(files) / hi, len(files) / lo)
    if best is None:
        print("bench_torchvision.py: no list size could be timed",
              file=sys.stderr)
        return 1
    size, ips, lo, hi = best
    print(f"best: lists of {size}: {sig3(ips)} images/s median (min "
          f"{sig3(lo)}, max {sig3(hi)})")
    print(f"RESULT label={args.label or '-'} images={len(files)} "
          f"list={size} median={ips:.1f} min={lo:.1f} max={hi:.1f}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
