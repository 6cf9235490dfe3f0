#!/usr/bin/env python3
"""Renders every example of Defold's examples repository (github.com/defold/examples, checked
out at EXAMPLES) from its own folder at its display size after 120 frames, and lays each
picture beside the example's own screenshot (its `thumbnail`, else the first image its
example.md shows) on contact sheets of six, so a person can see which examples do not look as
in Defold. Needs a built binary (cargo build --release) and Pillow (apt-get install
python3-pil).

    scripts/defold-sheets.py EXAMPLES OUT [SINEW]

Writes OUT/<example>.png, OUT/<example>.log and OUT/sheet_NN.png, and prints one line per
example with the run's exit status.
"""
import os
import re
import subprocess
import sys

from PIL import Image, ImageDraw

HEIGHT = 220


def display_size(project):
    text = open(project, encoding="utf-8", errors="replace").read()
    size = []
    for key, default in (("width", 960), ("height", 640)):
        m = re.search(rf"^{key}\s*=\s*(\d+)", text, re.M)
        size.append(int(m.group(1)) if m else default)
    return size


def reference(folder):
    md = open(os.path.join(folder, "example.md"), encoding="utf-8", errors="replace").read()
    for pattern in (r"thumbnail:\s*(\S+)", r"!\[[^\]]*\]\(([^)]+)\)"):
        m = re.search(pattern, md)
        if m and os.path.exists(os.path.join(folder, m.group(1))):
            return os.path.join(folder, m.group(1))
    return None


def fit(path):
    im = Image.open(path).convert("RGB")
    width = min(2 * HEIGHT, max(1, im.width * HEIGHT // im.height))
    return im.resize((width, HEIGHT))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, out = sys.argv[1].rstrip("/"), sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    sinew = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "..", "target", "release", "sinew")
    os.makedirs(out, exist_ok=True)
    tiles = []
    projects = sorted(
        os.path.join(d, "game.project") for d, _, files in os.walk(root) if "game.project" in files
    )
    for project in projects:
        folder = os.path.dirname(project)
        name = os.path.relpath(folder, root)
        flat = name.replace("/", "__")
        w, h = display_size(project)
        shot = os.path.join(out, flat + ".png")
        args = [sinew, "run", folder, "--headless", "--no-watch", "--frames", "120", "--fixed-dt",
                "0.016666668", "--size", f"{w}x{h}", "--screenshot", shot]
        with open(os.path.join(out, flat + ".log"), "w") as log:
            try:
                status = subprocess.run(args, stdout=log, stderr=log, timeout=60).returncode
            except subprocess.TimeoutExpired:
                status = "timeout"
        print(status, name)
        if not os.path.exists(shot):
            continue
        ours, ref = fit(shot), reference(folder)
        theirs = fit(ref) if ref else Image.new("RGB", (HEIGHT, HEIGHT), (80, 0, 80))
        tile = Image.new("RGB", (ours.width + theirs.width + 6, HEIGHT + 16), (255, 255, 255))
        tile.paste(ours, (0, 16))
        tile.paste(theirs, (ours.width + 6, 16))
        ImageDraw.Draw(tile).text((2, 2), f"{name}: Sinew | Defold's picture", fill=(0, 0, 0))
        tiles.append(tile)
    for n in range(0, len(tiles), 6):
        group = tiles[n:n + 6]
        column = max(t.width for t in group[0::2]) + 10
        width = column + max([t.width for t in group[1::2]] or [0])
        sheet = Image.new("RGB", (width, (len(group) + 1) // 2 * (HEIGHT + 20)), (200, 200, 200))
        for k, t in enumerate(group):
            sheet.paste(t, ((k % 2) * column, (k // 2) * (HEIGHT + 20)))
        sheet.save(os.path.join(out, f"sheet_{n // 6:02d}.png"))


if __name__ == "__main__":
    main()
