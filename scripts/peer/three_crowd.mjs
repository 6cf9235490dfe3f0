// The three.js peer of the crowd_fox_N perf projects (tests/data/perf/make_projects.py): the
// same N Foxes in the same grid, each playing the same clip from the same offset, and per frame
// the CPU work three.js does to animate and pose a skinned crowd before drawing it. No drawing:
// the Sinew figure it is compared with (animation + transforms) does not include drawing either.
//   node three_crowd.mjs FOX_GLB N FRAMES
// 'three' resolves from the node_modules next to this file: scripts/bench.sh copies it into
// target/peer and installs the locked three there (npm ci), so run that copy.
// Prints one line: "three.js r187: N Foxes, median X.XXX ms/frame, mean Y.YYY ms/frame".
// Set THREE_CROWD_CHECK=1 to also print clip durations and a bone's world position over a few
// frames (a check that the crowd really animates; off by default so the timing line is alone).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';

const [foxPath, nArg, framesArg] = process.argv.slice(2);
if (!foxPath || !nArg || !framesArg) {
  console.error('usage: node three_crowd.mjs FOX_GLB N FRAMES');
  process.exit(2);
}
const N = parseInt(nArg, 10);
const FRAMES = parseInt(framesArg, 10);
const WARMUP = 60; // lets V8 optimise the hot paths before timing, as a browser would have after a second
const DT = 1 / 60; // the --fixed-dt of bench.sh's Sinew runs
const CHECK = process.env.THREE_CROWD_CHECK === '1';

// Node has no DOM, so the loader could not decode the Fox's PNG texture. Textures play no part
// in the CPU work measured here, so the GLB's JSON chunk is rewritten without images, textures,
// samplers or material texture references before parse; the binary chunk is kept as it is.
function glbWithoutTextures(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLen = view.getUint32(12, true);
  if (view.getUint32(0, true) !== 0x46546c67 || view.getUint32(16, true) !== 0x4e4f534a) {
    throw new Error(`${foxPath}: not a GLB with a leading JSON chunk`);
  }
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLen)));
  delete json.images;
  delete json.textures;
  delete json.samplers;
  for (const m of json.materials ?? []) {
    for (const k of ['normalTexture', 'occlusionTexture', 'emissiveTexture']) delete m[k];
    if (m.pbrMetallicRoughness) {
      delete m.pbrMetallicRoughness.baseColorTexture;
      delete m.pbrMetallicRoughness.metallicRoughnessTexture;
    }
    delete m.extensions; // extension textures (KHR_materials_*) would reference images too
  }
  // GLB chunks are 4-byte aligned; JSON chunks are padded with spaces.
  let text = new TextEncoder().encode(JSON.stringify(json));
  const padded = new Uint8Array((text.length + 3) & ~3).fill(0x20);
  padded.set(text);
  text = padded;
  const rest = bytes.subarray(20 + jsonLen);
  const out = new Uint8Array(12 + 8 + text.length + rest.length);
  const ov = new DataView(out.buffer);
  out.set(bytes.subarray(0, 12));
  ov.setUint32(8, out.length, true);
  ov.setUint32(12, text.length, true);
  ov.setUint32(16, 0x4e4f534a, true);
  out.set(text, 20);
  out.set(rest, 20 + text.length);
  return out.buffer;
}

const gltf = await new Promise((resolve, reject) =>
  new GLTFLoader().parse(glbWithoutTextures(readFileSync(foxPath)), '', resolve, reject));

// make_projects.py's fox.script picks clips by name (CLIPS = { "Walk", "Run", "Survey" },
// which = i % 3); the GLB stores them in another order, so look them up by name too.
const CLIPS = ['Walk', 'Run', 'Survey'].map((name) => {
  const clip = THREE.AnimationClip.findByName(gltf.animations, name);
  if (!clip) throw new Error(`${foxPath}: no clip named ${name}`);
  return clip;
});
if (CHECK) console.log('clips:', CLIPS.map((c) => `${c.name} ${c.duration.toFixed(4)} s`).join(', '));

const scene = new THREE.Scene();
const mixers = [];
const skinned = [];
// The same grid as make_projects.py's crowd_fox.
const side = Math.floor(Math.sqrt(N) + 0.999);
for (let i = 0; i < N; i++) {
  const fox = SkeletonUtils.clone(gltf.scene);
  fox.position.set((i % side - side / 2) * 150, 0, Math.floor(i / side) * -150);
  scene.add(fox);
  const mixer = new THREE.AnimationMixer(fox);
  const clip = CLIPS[i % 3];
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopRepeat, Infinity);
  action.play();
  // play_anim's offset is normalized (a fraction of the clip), as in Defold.
  action.time = ((i * 0.137) % 1) * clip.duration;
  mixers.push(mixer);
  fox.traverse((o) => { if (o.isSkinnedMesh) skinned.push(o); });
}
// WebGLObjects updates each skeleton once per frame however many meshes share it; with one
// skinned mesh per Fox that is one update per mesh, but dedupe anyway to mirror it exactly.
const skeletons = [...new Set(skinned.map((m) => m.skeleton))];

// One frame of what three.js does on the CPU before drawing: the app's mixer updates, then
// WebGLRenderer.render's scene.updateMatrixWorld() and, per skinned mesh, skeleton.update()
// (bone matrices into the boneMatrices array that is uploaded as the bone texture).
function frame() {
  for (let i = 0; i < mixers.length; i++) mixers[i].update(DT);
  scene.updateMatrixWorld();
  for (let i = 0; i < skeletons.length; i++) skeletons[i].update();
}

for (let f = 0; f < WARMUP; f++) frame();

if (CHECK) {
  // The world position of one bone of Fox 0 and of the last Fox over a few frames: it must move.
  for (const k of [0, N - 1]) {
    const bone = skeletons[k].bones.find((b) => b.name.includes('Head')) ?? skeletons[k].bones.at(-1);
    const seen = [];
    for (let f = 0; f < 4; f++) {
      frame();
      const p = new THREE.Vector3().setFromMatrixPosition(bone.matrixWorld);
      seen.push(`(${p.x.toFixed(2)}, ${p.y.toFixed(2)}, ${p.z.toFixed(2)})`);
    }
    console.log(`fox ${k} ${CLIPS[k % 3].name} bone ${bone.name}: ${seen.join(' ')}`);
    console.log(`fox ${k} boneMatrices[12..15]: ${Array.from(skeletons[k].boneMatrices.subarray(12, 15)).map((v) => v.toFixed(3)).join(' ')}`);
  }
}

const times = new Float64Array(FRAMES);
for (let f = 0; f < FRAMES; f++) {
  const t0 = performance.now();
  frame();
  times[f] = performance.now() - t0;
}
const sorted = Array.from(times).sort((a, b) => a - b);
const mid = sorted.length >> 1;
const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
console.log(`three.js r${THREE.REVISION}: ${N} Foxes, median ${median.toFixed(3)} ms/frame, mean ${mean.toFixed(3)} ms/frame`);
