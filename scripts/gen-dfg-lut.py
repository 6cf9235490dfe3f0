#!/usr/bin/env python3
"""Computes the split-sum DFG table of the GGX BRDF (Karis 2013; the height-correlated Smith
visibility, as Filament and three.js r187 use) and writes it into shaders/model.fp between the
`DFG_LUT` markers. The standard shading model reads it for the multiple-scattering energy
compensation of direct light and the specular share taken from ambient light, as three.js's
MeshStandardMaterial does (docs/materials.md).

Texel (j, i) holds (scale, bias) for roughness (j + 0.5) / 16 and N.V (i + 0.5) / 16, each the
mean over 4,096 GGX-importance-sampled directions (Hammersley points). Needs numpy.

    python3 scripts/gen-dfg-lut.py
"""
import os
import re

import numpy as np

N = 16
SAMPLES = 4096
SHADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "shaders", "model.fp")


def hammersley(n):
    i = np.arange(n, dtype=np.uint64)
    b = i.copy()
    b = ((b << 16) | (b >> 16)) & 0xFFFFFFFF
    b = ((b & 0x55555555) << 1) | ((b & 0xAAAAAAAA) >> 1)
    b = ((b & 0x33333333) << 2) | ((b & 0xCCCCCCCC) >> 2)
    b = ((b & 0x0F0F0F0F) << 4) | ((b & 0xF0F0F0F0) >> 4)
    b = ((b & 0x00FF00FF) << 8) | ((b & 0xFF00FF00) >> 8)
    return i / n, b.astype(np.float64) / 2**32


def dfg(nov, roughness):
    a = roughness * roughness
    a2 = a * a
    u, v = hammersley(SAMPLES)
    phi = 2 * np.pi * u
    cos_t = np.sqrt((1 - v) / (1 + (a2 - 1) * v))
    sin_t = np.sqrt(1 - cos_t**2)
    h = np.stack([sin_t * np.cos(phi), sin_t * np.sin(phi), cos_t], 1)
    view = np.array([np.sqrt(1 - nov * nov), 0.0, nov])
    voh = h @ view
    nol = (2 * voh[:, None] * h - view)[:, 2]
    noh = h[:, 2]
    vis = 0.5 / (nol * np.sqrt(nov * nov * (1 - a2) + a2) + nov * np.sqrt(nol * nol * (1 - a2) + a2))
    g = np.where(nol > 0, vis * nol * voh / noh, 0.0)
    fc = (1 - voh) ** 5
    return 4 * np.mean(g * (1 - fc)), 4 * np.mean(g * fc)


def main():
    rows = []
    for i in range(N):
        cells = [dfg((i + 0.5) / N, (j + 0.5) / N) for j in range(N)]
        rows.append("    " + ", ".join("vec2(%.5f, %.5f)" % c for c in cells))
    block = (
        "// DFG_LUT begin: written by scripts/gen-dfg-lut.py, do not edit\n"
        "const vec2 DFG_LUT[%d] = vec2[%d](\n%s);\n// DFG_LUT end" % (N * N, N * N, ",\n".join(rows))
    )
    src = open(SHADER).read()
    out, n = re.subn(r"// DFG_LUT begin.*?// DFG_LUT end", lambda _: block, src, flags=re.S)
    if n != 1:
        raise SystemExit("shaders/model.fp has no DFG_LUT markers")
    open(SHADER, "w").write(out)
    print("wrote the DFG table into", os.path.normpath(SHADER))


if __name__ == "__main__":
    main()
