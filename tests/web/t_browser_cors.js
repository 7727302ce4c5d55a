// CORS and origins in headless Chromium. A page served from another origin
// (a second port) that the daemon allows loads the client from the daemon
// (a cross-origin module), reads a binary pose and skinned vertices with
// their X-Animd-* headers, reads every X-Animd-* header of docs/api.md's
// binary answers table (root motion, morph weights, several meshes) with the
// value Node reads, uploads an asset (a real preflight), and streams
// skinning matrices and skinned vertices; every number it reports equals
// GET /v1/pose and GET /v1/skin at the same clip time. A page from an origin
// that is not allowed can neither read an answer, nor pass a preflight, nor
// open a WebSocket, nor load the client.
import fs from 'node:fs';

import { check, floatsOf, launchBrowser, maxDiff, run, servePage, startDaemon } from './lib.js';

// A skeleton, a mesh with two morph targets and a clip with a weight track
// for it: poses of the clip carry X-Animd-Morph-Weights.
const MORPH_ASSET = {
  skeleton: { name: 'cors-mrig', joints: [{ name: 'root', parent: -1 }, { name: 'head', parent: 0, translation: [0, 1, 0] }] },
  meshes: [{ name: 'cors-mface', positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], influences: 1, joints: [0, 1, 1], weights: [1, 1, 1],
    targets: [{ positions: [0, 1, 0, 0, 1, 0, 0, 1, 0] }, { positions: [0, 0, 2, 0, 0, 2, 0, 0, 2] }] }],
  clips: [{ name: 'cors-mtalk', tracks: [{ joint: 'head', path: 'rotation', times: [0, 1], values: [0, 0, 0, 1, 0, 0, 0, 1] }],
    weights: [{ mesh: 'cors-mface', times: [0, 1], values: [0, 0, 1, 0.5] }] }],
};

// Answers that carry each X-Animd-* header of the binary answers table.
const HEADER_PATHS = [
  '/v1/pose?skeleton=demo-humanoid&clip=idle&t=0.5&root_motion=hips&format=bin',
  '/v1/pose?clip=cors-mtalk&t=0.25&format=bin',
  '/v1/skin?skeleton=demo-humanoid&clip=wave&t=0.5&format=bin',
  '/v1/skin?mesh=body&clip=wave&t=0.5&format=bin',
];

// The X-Animd-* headers docs/api.md lists for binary answers.
function documentedHeaders() {
  const api = fs.readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const names = [...api.matchAll(/^\| `(X-Animd-[A-Za-z-]+)` \|/gm)].map((m) => m[1]);
  check(names.length >= 6, 'docs/api.md lists ' + names.length + ' X-Animd-* headers');
  return names;
}

// Each X-Animd-* header of each answer, as a reader sees it (null: cannot).
const READ_HEADERS = `async (daemon, paths, names) => {
  const seen = {};
  for (const p of paths) {
    const r = await fetch(daemon + p);
    if (!r.ok) throw new Error(p + ': ' + r.status + ' ' + await r.text());
    await r.arrayBuffer();
    for (const n of names) { const v = r.headers.get(n); if (v !== null) seen[n] = v; }
  }
  return seen;
}`;

const ALLOWED_PAGE = (daemon, names) => `<!doctype html><title>allowed</title><script type="module">
const { Animd } = await import('${daemon}/client/animd.js');
const animd = new Animd({ url: '${daemon}' });
const out = {};
try {
  const pose = await animd.pose({ skeleton: 'demo-humanoid', clip: 'wave', t: 0.75, space: 'skin' });
  out.pose = { layout: pose.layout, joints: pose.joints, etag: pose.etag, data: [...pose.data] };
  const skin = await animd.skin({ mesh: 'body', clip: 'wave', t: 0.75, normals: true });
  out.skin = { layout: skin.layout, vertices: skin.vertices, data: [...skin.data] };
  out.upload = await animd.upload({ skeleton: { name: 'cors-stick', joints: [
    { name: 'root', parent: -1, translation: [0, 1, 0] }, { name: 'tip', parent: 0, translation: [0, 1, 0] }] } });
  const err = await animd.pose({ clip: 'wave', t: 'soon' }).catch((e) => e);
  out.error = { code: err.code, at: err.at, status: err.status };
  await animd.upload(${JSON.stringify(MORPH_ASSET)});
  out.headers = await (${READ_HEADERS})('${daemon}', ${JSON.stringify(HEADER_PATHS)}, ${JSON.stringify(names)});
  const conn = animd.connect();
  const frames = [];
  const s = await conn.play({ skeleton: 'demo-humanoid', clip: 'wave', space: 'skin', fps: 30 });
  await new Promise((resolve) => { s.onframe = (f) => { frames.push({ t: f.t, data: [...f.data] }); if (frames.length === 3) resolve(); }; });
  await s.stop();
  const m = await conn.play({ mesh: 'body', clip: 'wave', normals: true, fps: 30 });
  await new Promise((resolve) => { m.onframe = (f) => { frames.push({ t: f.t, mesh: true, layout: f.layout, data: [...f.data] }); if (frames.length === 5) resolve(); }; });
  await m.stop();
  out.frames = frames;
  conn.close();
} catch (e) {
  out.failure = String(e && e.stack || e);
}
window.result = out;
</script>`;

const REFUSED_PAGE = (daemon) => `<!doctype html><title>refused</title><script type="module">
const out = {};
const outcome = (p) => p.then(() => 'read', (e) => 'refused: ' + e.name);
out.get = await outcome(fetch('${daemon}/v1/pose?clip=wave&t=0.5&format=bin').then((r) => r.arrayBuffer()));
out.post = await outcome(fetch('${daemon}/v1/assets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }));
out.client = await outcome(import('${daemon}/client/animd.js'));
out.ws = await new Promise((resolve) => {
  const ws = new WebSocket('${daemon.replace('http', 'ws')}/v1/stream');
  ws.onopen = () => resolve('open');
  ws.onclose = (e) => resolve('closed ' + e.code);
});
window.result = out;
</script>`;

async function resultOf(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.result, null, { timeout: 30000 });
  return page.evaluate(() => window.result);
}

run(async () => {
  // Two page servers on loopback ports: only the first is listed.
  const allowed = await servePage();
  const refused = await servePage();
  const d = await startDaemon(['--allowed-origins', allowed.origin, '--access-log', '-']);
  const names = documentedHeaders();
  allowed.html = ALLOWED_PAGE(d.url, names);
  refused.html = REFUSED_PAGE(d.url);

  const browser = await launchBrowser();
  const page = await browser.newPage();
  const r = await resultOf(page, allowed.origin + '/');
  check(!r.failure, 'allowed page failed: ' + r.failure);
  const pose = await floatsOf(`${d.url}/v1/pose?skeleton=demo-humanoid&clip=wave&t=0.75&space=skin&format=bin`);
  check(maxDiff(Float32Array.from(r.pose.data), pose) === 0, 'pose differs');
  check(r.pose.layout === 'mat4' && r.pose.joints === 17 && /^"/.test(r.pose.etag), 'exposed headers: ' + JSON.stringify([r.pose.layout, r.pose.joints, r.pose.etag]));
  const skin = await floatsOf(`${d.url}/v1/skin?mesh=body&clip=wave&t=0.75&normals=1&format=bin`);
  check(maxDiff(Float32Array.from(r.skin.data), skin) === 0, 'skin differs');
  check(r.skin.layout === 'positions+normals' && r.skin.vertices === 512, 'skin headers');
  check(r.upload.skeletons[0].name === 'cors-stick', 'upload: ' + JSON.stringify(r.upload));
  // Every documented X-Animd-* header: exposed to the allowed origin, and
  // read by the page as Node reads it (Node's fetch is not bound by CORS).
  const direct = await eval(READ_HEADERS)(d.url, HEADER_PATHS, names);
  console.log('X-Animd-* headers read by the page:', JSON.stringify(r.headers));
  const expose = (await fetch(d.url + HEADER_PATHS[0], { headers: { Origin: allowed.origin } }))
    .headers.get('Access-Control-Expose-Headers') || '';
  for (const n of names) {
    check(expose.split(/,\s*/).includes(n), `${n} is not in Access-Control-Expose-Headers: ${expose}`);
    check(direct[n] !== undefined, `no answer of ${HEADER_PATHS.join(' ')} carries ${n}`);
    check(r.headers[n] === direct[n], `${n}: the page read ${r.headers[n]}, Node ${direct[n]}`);
  }
  check(direct['X-Animd-Answer'] === 'root=7' && direct['X-Animd-Morph-Weights'] === '2',
    'headers: ' + JSON.stringify(direct));
  check(r.error.code === 'bad_parameter' && r.error.at === 't' && r.error.status === 400, 'error: ' + JSON.stringify(r.error));
  for (const f of r.frames) {
    const ref = f.mesh
      ? await floatsOf(`${d.url}/v1/skin?mesh=body&clip=wave&t=${f.t}&normals=1&wrap=loop&format=bin`)
      : await floatsOf(`${d.url}/v1/pose?skeleton=demo-humanoid&clip=wave&t=${f.t}&space=skin&wrap=loop&format=bin`);
    check(maxDiff(Float32Array.from(f.data), ref) === 0, `stream frame at t=${f.t} differs`);
  }
  check(r.frames.length === 5 && r.frames[4].layout === 'positions+normals', 'frames: ' + r.frames.length);

  const x = await resultOf(page, refused.origin + '/');
  console.log('refused page:', JSON.stringify(x));
  check(x.get.startsWith('refused') && x.post.startsWith('refused') && x.client.startsWith('refused'), 'HTTP not refused');
  check(x.ws === 'closed 1006', 'WebSocket: ' + x.ws);

  // The daemon saw the preflights: 204 for the allowed page, 403 for the
  // other, and refused the other's upgrade (the access log is written by
  // its own thread: wait for the lines, 10 s at most).
  const seen = [/"OPTIONS \/v1\/assets HTTP\/1\.1" 204/, /"OPTIONS \/v1\/assets HTTP\/1\.1" 403/,
    /"GET \/v1\/stream HTTP\/1\.1" 403/];
  let log = '';
  for (const end = Date.now() + 10000; Date.now() < end;) {
    log = fs.readFileSync(d.log, 'utf8');
    if (seen.every((re) => re.test(log))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const re of seen) check(re.test(log), `not in the access log: ${re}`);
  console.log(`ok: ${r.frames.length} stream frames, pose (17 joints) and skin (512 vertices) equal the daemon's answers`);
});
