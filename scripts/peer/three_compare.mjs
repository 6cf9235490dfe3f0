// The three.js side of scripts/compare-three.sh (issue 41): draws every scene of OUT/scenes.json
// (written by three_compare.py) with three.js r187's MeshStandardMaterial in headless Chromium,
// and writes OUT/three/NAME.png and OUT/cameras.json (the camera, light and ground each scene
// used, which three_compare.py gives the Sinew projects, so both sides share one framing).
//   node three_compare.mjs OUT
// 'three' and 'playwright-core' resolve from the node_modules next to this file:
// compare-three.sh copies it into target/peer and installs the locked packages there (npm ci).
// Chromium: $CHROMIUM, else /usr/bin/chromium; WebGL on SwiftShader (no GPU needed).
import { createServer } from 'node:http';
import { readFileSync, writeFileSync, mkdirSync, existsSync, statSync, mkdtempSync, rmSync } from 'node:fs';
import { join, dirname, extname, resolve, sep } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error('usage: node three_compare.mjs OUT');
  process.exit(2);
}
const outDir = resolve(out);
const globals = JSON.parse(readFileSync(join(outDir, 'scenes.json'), 'utf8'));
const threeDir = join(here, 'node_modules', 'three');
const pageFile = existsSync(join(here, 'three_compare.html')) ? join(here, 'three_compare.html') : null;
if (!pageFile) {
  console.error(`three_compare.mjs: ${join(here, 'three_compare.html')} is missing`);
  process.exit(1);
}

const types = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json',
  '.glb': 'model/gltf-binary', '.gltf': 'model/gltf+json', '.png': 'image/png', '.jpg': 'image/jpeg',
  '.bin': 'application/octet-stream',
};
// Serves the page, three's files under /three/ and OUT's files under /out/, on 127.0.0.1 only.
function serveFrom(root, rel, res) {
  const p = resolve(root, '.' + sep + decodeURIComponent(rel));
  if (!(p === root || p.startsWith(root + sep)) || !existsSync(p) || !statSync(p).isFile()) {
    res.writeHead(404);
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': types[extname(p)] || 'application/octet-stream' });
  res.end(readFileSync(p));
}
const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost').pathname;
  if (url === '/' || url === '/index.html') return serveFrom(here, 'three_compare.html', res);
  if (url.startsWith('/three/')) return serveFrom(threeDir, url.slice(7), res);
  if (url.startsWith('/out/')) return serveFrom(outDir, url.slice(5), res);
  res.writeHead(404);
  res.end();
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const port = server.address().port;

const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const profile = mkdtempSync(join(tmpdir(), 'sinew-three-compare-'));
let browser;
let code = 0;
try {
  // launchPersistentContext gives the fresh profile folder as --user-data-dir.
  browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: globals.size, height: globals.size },
    deviceScaleFactor: 1,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
    ],
  });
  const page = browser.pages()[0] || (await browser.newPage());
  const logs = [];
  // SwiftShader's note that toDataURL waits for the GPU is not news.
  page.on('console', (m) => { if (!m.text().includes('GPU stall due to ReadPixels')) logs.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForFunction(() => window.pageReady === true, null, { timeout: 60000 }).catch((e) => {
    throw new Error(`the page did not load three.js: ${e.message}\n${logs.join('\n')}`);
  });
  const revision = await page.evaluate(() => window.threeRevision);
  const emulate = (process.env.THREE_COMPARE_EMULATE || '').split(/[ ,]+/).filter(Boolean);
  if (emulate.length) {
    await page.evaluate((t) => window.emulate(t), emulate);
    console.log(`three: DIAGNOSIS, not r187 as released: Sinew's terms replace r187's: ${emulate.join(', ')}`);
  }
  const gl = await page.evaluate(() => {
    const c = document.createElement('canvas').getContext('webgl2');
    if (!c) return 'no WebGL2';
    const d = c.getExtension('WEBGL_debug_renderer_info');
    return d ? c.getParameter(d.UNMASKED_RENDERER_WEBGL) : c.getParameter(c.RENDERER);
  });
  const browserVersion = browser.browser() ? browser.browser().version() : 'unknown';
  console.log(`three.js r${revision} in Chromium ${browserVersion}, WebGL: ${gl}`);
  mkdirSync(join(outDir, 'three'), { recursive: true });
  const cameras = { ...globals, three_revision: revision, emulate, chromium: browserVersion, webgl: gl, scenes: {} };
  for (const s of globals.scenes) {
    const before = logs.length;
    const r = await page.evaluate(([g, sc]) => window.drawScene(g, sc), [globals, s]);
    const png = Buffer.from(r.png.split(',')[1], 'base64');
    writeFileSync(join(outDir, 'three', s.name + '.png'), png);
    delete r.png;
    cameras.scenes[s.name] = r;
    console.log(`three: ${s.name}: ${r.info.calls} draws, ${r.info.triangles} triangles`);
    for (const l of logs.slice(before)) console.log(`  ${l}`);
  }
  writeFileSync(join(outDir, 'cameras.json'), JSON.stringify(cameras, null, 1));
} catch (e) {
  console.error(`three_compare.mjs: ${e.message}`);
  code = 1;
} finally {
  if (browser) await browser.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(code);
