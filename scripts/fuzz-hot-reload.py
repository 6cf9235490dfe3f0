#!/usr/bin/env python3
"""Hot reload under hostile saves: runs a project headless with its watcher on while its text
files are overwritten, many times a second, by mutants of themselves (bytes flipped, cut,
repeated, numbers made huge or NaN), and at the end by their originals again.

A broken save must be reported with its path and position while the previous version keeps
running (README: "a save shows up at once without losing state"; docs/reliability.md). This
fails when the run panics, exits with an error, or never reloads.

    python3 scripts/fuzz-hot-reload.py [PROJECT] [--seconds S] [--seed N] [--sinew BIN]

PROJECT defaults to the demo's folder, content/; it is copied, never written.
"""
import argparse
import os
import random
import shutil
import subprocess
import tempfile
import threading
import time

KINDS = (".collection", ".go", ".gui", ".gui_script", ".script", ".particlefx", ".model", ".json", ".lua", ".atlas",
         ".tilemap", ".tilesource", ".collisionobject", ".material", ".fp", ".vp")
NUMBERS = [b"0", b"-1", b"1e39", b"NaN", b"65536", b"4294967296", b"1e-45", b"99999999"]


def mutate(rng, data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if r < 0.3 and b:
            b[rng.randrange(len(b))] = rng.choice(b'{}[]",:0-9e\x00x')
        elif r < 0.5 and b:
            i = rng.randrange(len(b))
            del b[i:i + rng.randint(1, 64)]
        elif r < 0.7 and b:
            i = rng.randrange(len(b))
            b[i:i] = b[i:min(len(b), i + rng.randint(1, 200))] * rng.randint(1, 8)
        else:
            digits = [i for i, c in enumerate(b) if 48 <= c <= 57]
            if digits:
                i = rng.choice(digits)
                b[i:i + 1] = rng.choice(NUMBERS)
    return bytes(b)


def save(path, data):
    # Written whole and renamed, as editors save.
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("project", nargs="?", default=os.path.join(here, "..", "content"))
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sinew", default=os.path.join(here, "..", "target", "release", "sinew"))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="sinew-reload-fuzz-")
    try:
        project = os.path.join(work, "project")
        shutil.copytree(a.project, project)
        files = sorted(os.path.join(d, f) for d, _, fs in os.walk(project) for f in fs if f.endswith(KINDS))
        originals = {f: open(f, "rb").read() for f in files}
        frames = int((a.seconds + 3) * 60)
        run = subprocess.Popen([a.sinew, "run", project, "--headless", "--frames", str(frames)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = []
        reader = threading.Thread(target=lambda: out.append(run.stdout.read()))
        reader.start()
        time.sleep(1.5)  # the first load is not this test's subject
        saves, end = 0, time.time() + a.seconds
        while time.time() < end and run.poll() is None:
            f = rng.choice(files)
            save(f, originals[f] if rng.random() < 0.25 else mutate(rng, originals[f]))
            saves += 1
            time.sleep(rng.uniform(0.01, 0.06))
        for f in files:
            save(f, originals[f])
        rc = run.wait(timeout=120)
        reader.join()
        text = out[0].decode("utf-8", "replace") if out else ""
        lines = text.splitlines()
        reloads = sum("reloaded" in l for l in lines)
        errors = sum(l.startswith("ERROR") for l in lines)
        panics = sum("panicked" in l for l in lines)
        print(f"hot reload fuzz: {saves} saves of {len(files)} files, {reloads} reloads, {errors} errors "
              f"reported, {panics} panics, exit status {rc}")
        if panics or rc != 0 or reloads == 0:
            print("\n".join(lines[-40:]))
            raise SystemExit(1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
