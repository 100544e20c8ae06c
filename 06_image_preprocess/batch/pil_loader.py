"""pil_loader.py - the loader most PyTorch code uses, timed for
bench_torchvision.py --dataloader: torch.utils.data.DataLoader over the
folder's JPEGs read as ImageFolder reads them (PIL), torchvision's
transforms for imgbatch's options, each batch pinned, moved to the GPU,
flipped and typed there.

    status = run(args, files, device, sig3)

PIL's Resize is not imgbatch's arithmetic: on a PIL image it
antialiases (its bilinear filter widens with the scale), as
torchvision's transforms on PIL images do. This is the loader as it is
used, timed; bench_torchvision.py's GPU rows do imgbatch's arithmetic.
"""
import statistics
import time

import PIL
import torch
from PIL import Image
from torchvision import transforms


class Files(torch.utils.data.Dataset):
    """ImageFolder's reading of a list of files (its pil_loader: open,
    Image.open, convert), every one of label 0."""

    def __init__(self, files, mode, transform):
        self.files, self.mode, self.transform = files, mode, transform

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        with open(self.files[i], "rb") as f:
            img = Image.open(f)
            img = img.convert(self.mode)
        return self.transform(img), 0


def transform_of(args):
    """Resize(S) and CenterCrop, or Resize((H, W)); ToTensor, Normalize."""
    steps = []
    if args.resize:
        w, h = args.resize
        steps.append(transforms.Resize((h, w)))
    elif args.resize_short:
        w, h = args.crop
        steps += [transforms.Resize(args.resize_short),
                  transforms.CenterCrop((h, w))]
    c = 3 if args.color == "rgb" else 1
    mean = args.mean * (c if len(args.mean) == 1 else 1)
    std = args.std * (c if len(args.std) == 1 else 1)
    steps += [transforms.ToTensor(), transforms.Normalize(mean, std)]
    return transforms.Compose(steps)


def on_gpu(x, args, device):
    """A batch (or image) from the loader as imgbatch's tensor holds it:
    on the GPU, flipped left to right unless --no-flip, typed."""
    x = x.to(device, non_blocking=True)
    if not args.no_flip:
        x = x.flip(-1)
    return x.half() if args.dtype == "float16" else x


def one_epoch(loader, args, device):
    """Every batch, kept on the GPU until the epoch ends (as the other
    rows keep theirs), then a synchronize: the host clock stops after."""
    batches = [on_gpu(x, args, device) for x, _ in loader]
    torch.cuda.synchronize(device)
    return batches


def checked(args, data, batches, device):
    """The problems with one epoch: the batches' shapes and count, and
    the first image against the same transforms in this process."""
    c = 3 if args.color == "rgb" else 1
    bad = []
    total = sum(b.shape[0] for b in batches)
    if total != len(data):
        bad.append(f"{total} images, not {len(data)}")
    w, h = args.crop or args.resize or (None, None)
    for k, b in enumerate(batches):
        if b.shape[1] != c or (h and tuple(b.shape[2:]) != (h, w)):
            bad.append(f"batch {k}: shape {tuple(b.shape)}")
            break
    ref = on_gpu(data[0][0].unsqueeze(0), args, device)
    if batches and not torch.equal(batches[0][:1], ref):
        bad.append("the first image is not its transforms' output")
    return bad


def run(args, files, device, sig3):
    """Warm-up epochs (the first checked), then --repeat timed ones;
    a line for each, the best of nothing to choose, and RESULT."""
    mode = "RGB" if args.color == "rgb" else "L"
    data = Files(files, mode, transform_of(args))
    workers = args.workers
    loader = torch.utils.data.DataLoader(
        data, batch_size=args.batch_size, shuffle=False,
        num_workers=workers, pin_memory=True,
        persistent_workers=workers > 0)
    print(f"DataLoader: {len(files)} files of {args.dir}, PIL "
          f"{PIL.__version__} (Image.open, convert {mode}), "
          f"{workers} workers, batches of {args.batch_size}, pin_memory, "
          f"{args.repeat} epochs after {args.warmup}")
    bad = checked(args, data, one_epoch(loader, args, device), device)
    for _ in range(args.warmup - 1):
        one_epoch(loader, args, device)
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        batches = one_epoch(loader, args, device)
        times.append(time.perf_counter() - start)
        del batches
    med, lo, hi = statistics.median(times), min(times), max(times)
    n = len(files)
    print(f"DataLoader+PIL: {med * 1e3:.1f} ms an epoch median (min "
          f"{lo * 1e3:.1f}, max {hi * 1e3:.1f}), {sig3(n / med)} images/s "
          f"(min {sig3(n / hi)}, max {sig3(n / lo)})"
          f"{', check FAILED' if bad else ', checked ok'}")
    for line in bad[:5]:
        print(f"  {line}")
    if bad:
        return 1
    print(f"RESULT label={args.label or '-'} images={n} workers={workers} "
          f"median={n / med:.1f} min={n / hi:.1f} max={n / lo:.1f}")
    return 0
