"""train_example.py DIR - imgbatch feeding PyTorch, one model step a
batch: class folders, RGB 64 x 64, shuffled each epoch."""
import argparse
import sys

import imgbatch

parser = argparse.ArgumentParser(description="imgbatch feeding PyTorch")
parser.add_argument("folder", help="a folder of class folders")
parser.add_argument("--steps", type=int, default=0, help="0: one epoch")
args = parser.parse_args()
try:
    import torch
    loader = imgbatch.Loader(args.folder, class_folders=True, shuffle=True,
                             seed=0, color="rgb", resize=64,
                             mean=(0.485, 0.456, 0.406),
                             std=(0.229, 0.224, 0.225), batch_size=32)
except (ModuleNotFoundError, imgbatch.NoDeviceError) as e:
    print("train_example.py: skipped:", e, file=sys.stderr)
    sys.exit(77)  # no PyTorch, or no usable GPU

model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3, stride=2), torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
    torch.nn.Linear(16, len(loader.classes))).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
with loader:  # closed at the end: its GPU memory and reader threads
    for step, batch in enumerate(loader, 1):
        # A view of the loader's buffer, no copy: valid in this step only.
        x = torch.as_tensor(batch, device="cuda")
        y = torch.tensor(batch.labels, device="cuda")
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: {batch.count} images, loss {loss.item():.4f}")
        if step == args.steps:
            break
