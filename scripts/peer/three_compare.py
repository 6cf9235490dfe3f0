#!/usr/bin/env python3
"""Sinew against three.js r187, picture by picture (issue 41). Driven by scripts/compare-three.sh:

  three_compare.py scenes OUT    # OUT/assets: the sample glTFs, the generated sphere grid and
                                 # ground; OUT/scenes.json: what to draw (read by three_compare.mjs)
  three_compare.py sinew OUT     # OUT/sinew-projects/NAME: one Sinew project per scene, with the
                                 # camera and light three_compare.mjs wrote to OUT/cameras.json
  three_compare.py compare OUT   # OUT/sinew/NAME.png against OUT/three/NAME.png: figures
                                 # (OUT/results.json, OUT/results.md) and pictures (OUT/side/)
  three_compare.py attribution OUT RUN...  # one table of OUT's and the emulated RUNs' figures

The figures, per scene, on the 512x512 sRGB pictures as both programs write them:
- silhouette: pixels whose colour differs from the known background by more than 2 (of 255) in
  some channel; `iou` is |sinew & three| / |sinew | three| of the two silhouettes;
- `mad`: mean absolute difference of R, G and B (0-255) over the union of the silhouettes;
- `ssim`: SSIM (Wang et al. 2004) on luma (Rec. 601 Y of the sRGB bytes, 0-255), Gaussian window
  11x11 with sigma 1.5, K1 0.01, K2 0.03, averaged over the union of the silhouettes
  (`ssim_img`: the same map averaged over the whole picture, background included).
"""
import json
import math
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ASSETS = os.path.join(ROOT, 'tests', 'data', 'assets')

SIZE = 512
FOV_DEG = 40.0
# sRGB bytes of the background, the same on both sides (Sinew writes clear_color as it is given,
# three.js gets the colour in SRGBColorSpace), chosen unlike any model's colour.
BACKGROUND = [64, 72, 96]
AMBIENT = 0.25          # Sinew's ambient; three.js AmbientLight intensity 0.25 * pi
LIGHT = 1.0             # Sinew's directional light; three.js DirectionalLight intensity pi
LIGHT_FROM = [0.45, 0.8, 0.6]   # towards the light, world space (before normalising)
VIEW_FROM = [0.55, 0.35, 1.0]   # from the target towards the camera, world space

# The scenes: every sample of tests/data/assets with a mesh worth looking at (the two single
# triangles are left out), the generated sphere grid, and one scene with shadows on a ground.
SCENES = [
    {'name': 'Fox', 'file': 'Fox.glb'},
    {'name': 'RiggedSimple', 'file': 'RiggedSimple.glb'},
    {'name': 'BoxAnimated', 'file': 'BoxAnimated.gltf'},
    {'name': 'AnimatedMorphCube', 'file': 'AnimatedMorphCube.glb'},
    {'name': 'MorphPrimitivesTest', 'file': 'MorphPrimitivesTest.glb'},
    {'name': 'SimpleSkin', 'file': 'SimpleSkin.gltf'},
    {'name': 'Spheres', 'file': 'spheres.gltf'},
    {'name': 'Fox_shadows', 'file': 'Fox.glb', 'shadows': True},
    # Diagnosis, not in the means: SimpleSkin with glTF's default material written out
    # ({"pbrMetallicRoughness": {}}: white, metallic 1, roughness 1). three.js draws it exactly as
    # SimpleSkin; Sinew does not (a primitive without a material gets MaterialData::default(),
    # metallic 0).
    {'name': 'SimpleSkin_default_written', 'file': 'SimpleSkin_default_written.gltf', 'extra': True},
]


# ---------------------------------------------------------------------------------------------
# Generated glTFs

def _gltf(positions, normals, indices, meshes_nodes, materials):
    """A self-contained .gltf (one data-URI buffer) of one indexed geometry drawn by several
    nodes, each with its own material."""
    import base64
    pos = b''.join(struct.pack('<3f', *p) for p in positions)
    nor = b''.join(struct.pack('<3f', *n) for n in normals)
    idx = b''.join(struct.pack('<H', i) for i in indices)
    while len(idx) % 4:
        idx += b'\0'
    buf = pos + nor + idx
    mins = [min(p[k] for p in positions) for k in range(3)]
    maxs = [max(p[k] for p in positions) for k in range(3)]
    doc = {
        'asset': {'version': '2.0', 'generator': 'sinew scripts/peer/three_compare.py'},
        'buffers': [{'byteLength': len(buf),
                     'uri': 'data:application/octet-stream;base64,' + base64.b64encode(buf).decode()}],
        'bufferViews': [
            {'buffer': 0, 'byteOffset': 0, 'byteLength': len(pos), 'target': 34962},
            {'buffer': 0, 'byteOffset': len(pos), 'byteLength': len(nor), 'target': 34962},
            {'buffer': 0, 'byteOffset': len(pos) + len(nor), 'byteLength': len(indices) * 2, 'target': 34963},
        ],
        'accessors': [
            {'bufferView': 0, 'componentType': 5126, 'count': len(positions), 'type': 'VEC3', 'min': mins, 'max': maxs},
            {'bufferView': 1, 'componentType': 5126, 'count': len(normals), 'type': 'VEC3'},
            {'bufferView': 2, 'componentType': 5123, 'count': len(indices), 'type': 'SCALAR'},
        ],
        'materials': materials,
        'meshes': [{'primitives': [{'attributes': {'POSITION': 0, 'NORMAL': 1}, 'indices': 2, 'material': m}]}
                   for m in range(len(materials))],
        'nodes': [dict(n) for n in meshes_nodes],
        'scenes': [{'nodes': list(range(len(meshes_nodes)))}],
        'scene': 0,
    }
    return doc


def sphere_grid():
    """5 x 5 spheres of radius 1, 2.5 apart: metallic 0 to 1 left to right, roughness 0 to 1
    bottom to top, base colour a warm orange (the idea of Khronos's MetalRoughSpheres, without
    its textures)."""
    rings, segs = 32, 48
    positions, normals, indices = [], [], []
    for i in range(rings + 1):
        th = math.pi * i / rings
        for j in range(segs + 1):
            ph = 2 * math.pi * j / segs
            n = (math.sin(th) * math.sin(ph), math.cos(th), math.sin(th) * math.cos(ph))
            positions.append(n)
            normals.append(n)
    for i in range(rings):
        for j in range(segs):
            a = i * (segs + 1) + j
            b = a + segs + 1
            if i != 0:
                indices += [a, b, a + 1]
            if i != rings - 1:
                indices += [a + 1, b, b + 1]
    materials, nodes = [], []
    for r in range(5):
        for m in range(5):
            materials.append({'name': f'metal{m}_rough{r}',
                              'pbrMetallicRoughness': {'baseColorFactor': [0.9, 0.45, 0.15, 1.0],
                                                       'metallicFactor': m / 4, 'roughnessFactor': r / 4}})
            nodes.append({'mesh': len(nodes), 'translation': [(m - 2) * 2.5, (r - 2) * 2.5, 0.0]})
    return _gltf(positions, normals, indices, nodes, materials)


def ground():
    """A 1 x 1 square in the XZ plane facing +Y, light grey, rough, dielectric: scaled and placed
    under the model by both sides from its bounds."""
    positions = [(-0.5, 0, -0.5), (0.5, 0, -0.5), (0.5, 0, 0.5), (-0.5, 0, 0.5)]
    normals = [(0, 1, 0)] * 4
    indices = [0, 2, 1, 0, 3, 2]
    materials = [{'name': 'ground', 'pbrMetallicRoughness': {'baseColorFactor': [0.6, 0.6, 0.6, 1.0],
                                                             'metallicFactor': 0.0, 'roughnessFactor': 1.0}}]
    return _gltf(positions, normals, indices, [{'mesh': 0}], materials)


def cmd_scenes(out):
    adir = os.path.join(out, 'assets')
    os.makedirs(adir, exist_ok=True)
    for s in SCENES:
        src = os.path.join(ASSETS, s['file'])
        if os.path.exists(src):
            shutil.copyfile(src, os.path.join(adir, s['file']))
    with open(os.path.join(adir, 'spheres.gltf'), 'w') as f:
        json.dump(sphere_grid(), f)
    with open(os.path.join(adir, 'ground.gltf'), 'w') as f:
        json.dump(ground(), f)
    with open(os.path.join(ASSETS, 'SimpleSkin.gltf')) as f:
        skin = json.load(f)
    skin['materials'] = [{'pbrMetallicRoughness': {}}]
    for mesh in skin['meshes']:
        for prim in mesh['primitives']:
            prim['material'] = 0
    with open(os.path.join(adir, 'SimpleSkin_default_written.gltf'), 'w') as f:
        json.dump(skin, f)
    scenes = {
        'size': SIZE, 'fov_deg': FOV_DEG, 'background': BACKGROUND, 'ambient': AMBIENT, 'light': LIGHT,
        'light_from': LIGHT_FROM, 'view_from': VIEW_FROM,
        'scenes': [s for s in SCENES if os.path.exists(os.path.join(adir, s['file']))],
    }
    with open(os.path.join(out, 'scenes.json'), 'w') as f:
        json.dump(scenes, f, indent=1)


# ---------------------------------------------------------------------------------------------
# Sinew projects

def cmd_sinew(out):
    with open(os.path.join(out, 'cameras.json')) as f:
        cams = json.load(f)
    pdir = os.path.join(out, 'sinew-projects')
    shutil.rmtree(pdir, ignore_errors=True)
    for name, c in cams['scenes'].items():
        d = os.path.join(pdir, name)
        os.makedirs(os.path.join(d, 'main'))
        os.makedirs(os.path.join(d, 'models'))
        shutil.copyfile(os.path.join(out, 'assets', c['file']), os.path.join(d, 'models', c['file']))
        bg = [b / 255 for b in cams['background']] + [1]
        project = {
            'title': f'three compare {name}', 'main_collection': '/main/main.collection',
            'clear_color': bg, 'ambient': [cams['ambient']] * 3, 'shading': 'standard',
            'tone_mapping': 'none', 'exposure': 1,
        }
        cam = c['camera']
        objects = [
            {'id': 'model', 'components': [{'id': 'model', 'type': 'model', 'mesh': '/models/' + c['file']}]},
            {'id': 'eye', 'position': cam['position'], 'rotation': cam['quaternion'],
             'components': [{'id': 'camera', 'type': 'camera', 'fov': math.radians(cam['fov_deg']),
                             'near': cam['near'], 'far': cam['far']}]},
            {'id': 'sun', 'position': c['light']['position'], 'rotation': c['light']['quaternion'],
             'components': [{'id': 'light', 'type': 'light', 'kind': 'directional', 'intensity': cams['light']}]},
        ]
        if c.get('shadows'):
            project['shadows'] = True
            project['shadow_map_size'] = c['shadow_map_size']
            # The default 60 would leave a model hundreds of units away (the Fox) unshadowed.
            project['shadow_distance'] = cam['far']
            shutil.copyfile(os.path.join(out, 'assets', 'ground.gltf'), os.path.join(d, 'models', 'ground.gltf'))
            g = c['ground']
            objects.insert(1, {'id': 'ground', 'position': g['position'], 'scale': g['scale'],
                               'components': [{'id': 'model', 'type': 'model', 'mesh': '/models/ground.gltf',
                                               'cast_shadows': False}]})
        with open(os.path.join(d, 'project.json'), 'w') as f:
            json.dump(project, f, indent=1)
        with open(os.path.join(d, 'main', 'main.collection'), 'w') as f:
            json.dump({'name': 'main', 'objects': objects}, f, indent=1)


# ---------------------------------------------------------------------------------------------
# Figures

def _gauss_filter(img, size=11, sigma=1.5):
    import numpy as np
    x = np.arange(size) - (size - 1) / 2
    k = np.exp(-x * x / (2 * sigma * sigma))
    k /= k.sum()
    pad = size // 2
    # 'valid' filtering would shrink the map; reflect at the borders instead (background there).
    p = np.pad(img, pad, mode='reflect')
    tmp = sum(k[i] * p[:, i:i + img.shape[1]] for i in range(size))
    return sum(k[i] * tmp[i:i + img.shape[0], :] for i in range(size))


def ssim_map(a, b):
    """SSIM map of two luma images (float, 0-255)."""
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mu_a, mu_b = _gauss_filter(a), _gauss_filter(b)
    saa = _gauss_filter(a * a) - mu_a * mu_a
    sbb = _gauss_filter(b * b) - mu_b * mu_b
    sab = _gauss_filter(a * b) - mu_a * mu_b
    return ((2 * mu_a * mu_b + c1) * (2 * sab + c2)) / ((mu_a ** 2 + mu_b ** 2 + c1) * (saa + sbb + c2))


def luma(rgb):
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


def figures(a, b, bg):
    """a, b: HxWx3 float arrays (sRGB bytes); the figures described at the top of this file."""
    import numpy as np
    bg = np.array(bg, dtype=np.float64)
    sa = (np.abs(a - bg) > 2).any(axis=2)
    sb = (np.abs(b - bg) > 2).any(axis=2)
    union = sa | sb
    inter = sa & sb
    n = max(int(union.sum()), 1)
    diff = np.abs(a - b)
    m = ssim_map(luma(a), luma(b))
    return {
        'ssim': float(m[union].mean()) if union.any() else 1.0,
        'ssim_img': float(m.mean()),
        'mad': float(diff[union].mean()) if union.any() else 0.0,
        'mad_inter': float(diff[inter].mean()) if inter.any() else 0.0,
        'iou': float(inter.sum()) / n,
        'pixels_sinew': int(sa.sum()), 'pixels_three': int(sb.sum()),
        # signed mean over the common silhouette, per channel: > 0 when Sinew is brighter
        'bias_rgb': [float(v) for v in (a - b)[inter].mean(axis=0)] if inter.any() else [0, 0, 0],
        'max_diff': float(diff[union].max()) if union.any() else 0.0,
    }


def cmd_compare(out):
    import numpy as np
    from PIL import Image, ImageDraw
    with open(os.path.join(out, 'cameras.json')) as f:
        cams = json.load(f)
    bg = cams['background']
    side = os.path.join(out, 'side')
    os.makedirs(side, exist_ok=True)
    results = {}
    tiles = []
    for name in cams['scenes']:
        ps, pt = os.path.join(out, 'sinew', name + '.png'), os.path.join(out, 'three', name + '.png')
        if not (os.path.exists(ps) and os.path.exists(pt)):
            print(f'compare: {name}: a picture is missing ({ps} or {pt})', file=sys.stderr)
            results[name] = None
            continue
        ia, ib = Image.open(ps).convert('RGB'), Image.open(pt).convert('RGB')
        if ia.size != ib.size:
            print(f'compare: {name}: sizes differ: {ia.size} and {ib.size}', file=sys.stderr)
            results[name] = None
            continue
        a, b = np.asarray(ia, dtype=np.float64), np.asarray(ib, dtype=np.float64)
        r = figures(a, b, bg)
        results[name] = r
        # Side by side: Sinew, three.js, |difference| x 4 (grey where the silhouettes disagree).
        d = np.clip(np.abs(a - b) * 4, 0, 255).astype(np.uint8)
        w, h = ia.size
        sheet = Image.new('RGB', (w * 3, h + 20), (0, 0, 0))
        sheet.paste(ia, (0, 20))
        sheet.paste(ib, (w, 20))
        sheet.paste(Image.fromarray(d), (2 * w, 20))
        dr = ImageDraw.Draw(sheet)
        dr.text((4, 4), f'{name}: Sinew', fill=(255, 255, 255))
        dr.text((w + 4, 4), 'three.js r187', fill=(255, 255, 255))
        dr.text((2 * w + 4, 4), f'|diff| x4  SSIM {r["ssim"]:.4f}  MAD {r["mad"]:.2f}  IoU {r["iou"]:.4f}',
                fill=(255, 255, 255))
        sheet.save(os.path.join(side, name + '.png'))
        tiles.append(sheet)
    if tiles:
        w, h = tiles[0].size
        scale = 0.5
        allp = Image.new('RGB', (int(w * scale), int(h * scale) * len(tiles)))
        for i, t in enumerate(tiles):
            allp.paste(t.resize((int(w * scale), int(h * scale))), (0, int(h * scale) * i))
        allp.save(os.path.join(out, 'all.png'))
    with open(os.path.join(out, 'results.json'), 'w') as f:
        json.dump(results, f, indent=1)

    plain = [n for n, r in results.items()
             if r and not cams['scenes'][n].get('shadows') and not cams['scenes'][n].get('extra')]
    lines = ['| scene | SSIM (silhouettes) | SSIM (whole picture) | mean abs diff (0-255) | IoU | Sinew - three.js, R G B |',
             '| --- | --- | --- | --- | --- | --- |']
    for n, r in results.items():
        if r is None:
            lines.append(f'| {n} | missing | | | | |')
            continue
        bias = ' '.join(f'{v:+.1f}' for v in r['bias_rgb'])
        lines.append(f'| {n} | {r["ssim"]:.4f} | {r["ssim_img"]:.4f} | {r["mad"]:.2f} | {r["iou"]:.4f} | {bias} |')
    ok = True
    if plain:
        ms = sum(results[n]['ssim'] for n in plain) / len(plain)
        mi = sum(results[n]['ssim_img'] for n in plain) / len(plain)
        mm = sum(results[n]['mad'] for n in plain) / len(plain)
        mu = sum(results[n]['iou'] for n in plain) / len(plain)
        lines.append(f'| **mean** (no shadows, {len(plain)} scenes) | **{ms:.4f}** | {mi:.4f} | **{mm:.2f}** | {mu:.4f} | |')
        lines.append(f'| target (issue 41) | >= 0.985 | | <= 3 | | |')
        ok = ms >= 0.985 and mm <= 3
    shadow = [n for n, r in results.items() if r and cams['scenes'][n].get('shadows')]
    for n in shadow:
        lines.append(f'| target with shadows ({n}) | >= 0.97 | | | | |')
    for n in [n for n in results if cams['scenes'][n].get('extra')]:
        lines.append(f'| ({n}: a diagnosis, not in the mean) | | | | | |')
    table = '\n'.join(lines)
    with open(os.path.join(out, 'results.md'), 'w') as f:
        f.write(table + '\n')
    print(table)
    print(f'\nmeans {"meet" if ok else "miss"} the targets (SSIM >= 0.985, mean abs diff <= 3)')
    for n in shadow:
        print(f'{n}: SSIM {results[n]["ssim"]:.4f} ({"meets" if results[n]["ssim"] >= 0.97 else "misses"} >= 0.97)')


def cmd_attribution(base, runs):
    """One table: SSIM / mean abs diff per scene, for the run as released and each emulated run."""
    def load(d):
        with open(os.path.join(d, 'results.json')) as f:
            res = json.load(f)
        with open(os.path.join(d, 'cameras.json')) as f:
            return res, ' + '.join(json.load(f)['emulate']) or 'r187 as released'
    cols = [load(base)] + [load(d) for d in runs]
    lines = ['| scene | ' + ' | '.join(name for _, name in cols) + ' |', '| --- ' * (len(cols) + 1) + '|']
    for n in cols[0][0]:
        cells = []
        for res, _ in cols:
            r = res.get(n)
            cells.append(f'{r["ssim"]:.4f} / {r["mad"]:.2f}' if r else 'missing')
        lines.append(f'| {n} | ' + ' | '.join(cells) + ' |')
    print('SSIM over the silhouettes / mean abs diff (0-255); three.js with the named terms of its shader')
    print("replaced by Sinew's (scripts/peer/three_compare.html, EMULATE)\n")
    print('\n'.join(lines))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == 'attribution':
        cmd_attribution(sys.argv[2], sys.argv[3:])
        return
    if len(sys.argv) != 3 or sys.argv[1] not in ('scenes', 'sinew', 'compare'):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    {'scenes': cmd_scenes, 'sinew': cmd_sinew, 'compare': cmd_compare}[sys.argv[1]](sys.argv[2])


if __name__ == '__main__':
    main()
