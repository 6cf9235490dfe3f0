#!/usr/bin/env python3
"""Writes Sinew's own files at the paths of Defold's built-in assets that projects name
(docs/porting-from-defold.md, "Built-ins"): primitive meshes, the particle blob tile source and
a logo picture. They are made here, not copied: Defold's files are Defold's. Shapes and sizes
follow Defold's (a 2x2 quad facing +Z, a unit cube and a sphere of radius 0.5 about the
origin), so a scene that scales them lands where Defold draws it.

    python3 scripts/gen-builtins.py    # rewrites builtins/assets/... and builtins/graphics/...
"""
import base64
import json
import math
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "builtins")


def write(rel, data):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    print("wrote", os.path.normpath(path))


def gltf(name, positions, normals, uvs, indices, double_sided=False):
    """One mesh, one primitive, positions/normals/uvs/u16 indices in one embedded buffer."""
    def pack(fmt, rows):
        return b"".join(struct.pack(fmt, *r) for r in rows)

    parts = [pack("<3f", positions), pack("<3f", normals), pack("<2f", uvs), struct.pack("<%dH" % len(indices), *indices)]
    views, offset = [], 0
    for i, p in enumerate(parts):
        views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(p), "target": 34963 if i == 3 else 34962})
        offset += len(p)
        offset += (-offset) % 4
    blob = b"".join(p + b"\0" * ((-len(p)) % 4) for p in parts)
    lo = [min(p[k] for p in positions) for k in range(3)]
    hi = [max(p[k] for p in positions) for k in range(3)]
    doc = {
        "asset": {"version": "2.0", "generator": "Sinew builtins (scripts/gen-builtins.py)"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "name": name}],
        "meshes": [{"name": name, "primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": len(positions), "type": "VEC3", "min": lo, "max": hi},
            {"bufferView": 1, "componentType": 5126, "count": len(normals), "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": len(uvs), "type": "VEC2"},
            {"bufferView": 3, "componentType": 5123, "count": len(indices), "type": "SCALAR"},
        ],
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
    }
    if double_sided:
        doc["materials"] = [
            {"name": "default", "doubleSided": True, "pbrMetallicRoughness": {"metallicFactor": 0.0, "roughnessFactor": 0.5}}
        ]
        doc["meshes"][0]["primitives"][0]["material"] = 0
    return (json.dumps(doc, indent=1) + "\n").encode()


def quad_2x2():
    # glTF's texture origin is the top left: the top edge (y = 1) reads v = 0.
    p = [(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)]
    return gltf("quad_2x2", p, [(0, 0, 1)] * 4, [(0, 1), (1, 1), (1, 0), (0, 0)], [0, 1, 2, 0, 2, 3])


def cube():
    pos, nor, uv, idx = [], [], [], []
    # Each face: its normal and two axes spanning it (right, up as seen from outside).
    faces = [((1, 0, 0), (0, 0, -1), (0, 1, 0)), ((-1, 0, 0), (0, 0, 1), (0, 1, 0)),
             ((0, 1, 0), (1, 0, 0), (0, 0, -1)), ((0, -1, 0), (1, 0, 0), (0, 0, 1)),
             ((0, 0, 1), (1, 0, 0), (0, 1, 0)), ((0, 0, -1), (-1, 0, 0), (0, 1, 0))]
    for n, r, u in faces:
        base = len(pos)
        for (a, b), t in zip([(-1, -1), (1, -1), (1, 1), (-1, 1)], [(0, 1), (1, 1), (1, 0), (0, 0)]):
            pos.append(tuple(0.5 * (n[k] + a * r[k] + b * u[k]) for k in range(3)))
            nor.append(n)
            uv.append(t)
        idx += [base, base + 1, base + 2, base, base + 2, base + 3]
    return gltf("cube", pos, nor, uv, idx)


def sphere(segments=32, rings=16, radius=0.5):
    pos, nor, uv, idx = [], [], [], []
    for j in range(rings + 1):
        v = j / rings
        theta = v * math.pi
        for i in range(segments + 1):
            u = i / segments
            phi = u * 2 * math.pi
            n = (math.sin(theta) * math.sin(phi), math.cos(theta), math.sin(theta) * math.cos(phi))
            pos.append(tuple(radius * c for c in n))
            nor.append(n)
            uv.append((u, v))
    w = segments + 1
    for j in range(rings):
        for i in range(segments):
            a, b = j * w + i, (j + 1) * w + i
            if j != 0:
                idx += [a, b, a + 1]
            if j != rings - 1:
                idx += [a + 1, b, b + 1]
    # Double-sided, as Defold's: a camera inside it (a sky sphere) sees its inside.
    return gltf("sphere", pos, nor, uv, idx, double_sided=True)


def png(width, height, pixel):
    """An RGBA PNG from pixel(x, y) -> (r, g, b, a) in 0..255."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows.extend(pixel(x, y))

    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    head = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b"")


def blob(size=32):
    """A white disc fading out to its edge: a particle or a soft light."""
    def pixel(x, y):
        d = math.hypot(x + 0.5 - size / 2, y + 0.5 - size / 2) / (size / 2)
        a = max(0.0, 1.0 - d) ** 2 * (3 - 2 * max(0.0, 1.0 - d))
        return (255, 255, 255, round(255 * a))
    return png(size, size, pixel)


def logo(size=256, ring=(232, 178, 60, 255)):
    """Sinew's mark: a ring (gold; blue for Defold's `logo_blue_*` paths) on a dark disc,
    transparent around it."""
    def pixel(x, y):
        d = math.hypot(x + 0.5 - size / 2, y + 0.5 - size / 2) / (size / 2)
        if d > 1:
            return (0, 0, 0, 0)
        if 0.55 < d < 0.8:
            return ring
        return (24, 26, 34, 255)
    return png(size, size, pixel)


TILESOURCE = """image: "/builtins/graphics/particle_blob.png"
tile_width: 32
tile_height: 32
tile_margin: 0
tile_spacing: 0
animations {
  id: "anim"
  start_tile: 1
  end_tile: 1
  playback: PLAYBACK_NONE
  fps: 30
}
extrude_borders: 0
inner_padding: 0
"""

if __name__ == "__main__":
    write("assets/gltf/quad_2x2.gltf", quad_2x2())
    write("assets/gltf/cube.gltf", cube())
    write("assets/gltf/sphere.gltf", sphere())
    write("graphics/particle_blob.png", blob())
    write("graphics/particle_blob.tilesource", TILESOURCE.encode())
    write("assets/images/logo/logo_256.png", logo())
    for size in (256, 512, 1024):
        write(f"assets/images/logo/logo_blue_{size}.png", logo(size, (60, 130, 232, 255)))
