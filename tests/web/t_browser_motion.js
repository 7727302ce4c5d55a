// The viewer's motion panel in headless Chromium: the demo's clips as a 1D
// blend space on the speed slider, with root motion on a grid floor, at a
// fixed time. The page's weights match the blend space's closed form (the
// slider at 0, 0.5 and 1 between the demo's two clips), its "root" equals
// what POST /v1/pose answers Node for the same body, and the picture
// changes as the slider moves (the waving clip's arm comes in).
import { VIEW, check, launchBrowser, openViewer, run, startDaemon } from './lib.js';

/** Pixels of the canvas' rectangle that differ clearly between two screenshots. */
function changedPixels(a, b, { left, top, width, height }) {
  let n = 0;
  for (let y = top; y < top + height; y++) {
    for (let x = left; x < left + width; x++) {
      const i = 4 * (y * a.width + x);
      if (Math.abs(a.rgba[i] - b.rgba[i]) + Math.abs(a.rgba[i + 1] - b.rgba[i + 1]) +
        Math.abs(a.rgba[i + 2] - b.rgba[i + 2]) > 40) n++;
    }
  }
  return n;
}

/** Sets the panel's controls (id: value; a checkbox takes a boolean), then
 * waits for the frame that shows them. */
async function slide(page, v, look = {}) {
  await page.evaluate(([x, l]) => {
    for (const [id, value] of Object.entries({ ...l, blend: x })) {
      const el = document.getElementById(id);
      if (typeof value === 'boolean') el.checked = value;
      else el.value = String(value);
      el.dispatchEvent(new Event('input'));
    }
  }, [v, look]);
  await page.waitForFunction((x) => {
    const s = window.animdViewer;
    return s.error || (s.ready && s.motion && s.motion.param === x);
  }, v, { timeout: 20000 });
  const state = await page.evaluate(() => JSON.parse(JSON.stringify(window.animdViewer)));
  check(!state.error, 'page error: ' + JSON.stringify(state.error));
  const { decodePng } = await import('./lib.js');
  const img = decodePng(await page.screenshot());
  return { state, img };
}

run(async () => {
  const d = await startDaemon();
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: VIEW });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));

  const first = await openViewer(page, `${d.url}/viewer?skeleton=demo-humanoid&mesh=body&mode=fat&motion=1&t=0.5&blend=0`);
  check(!first.state.error, 'error: ' + JSON.stringify(first.state.error));
  check(first.state.motion && first.state.motion.weights.length === 2, 'motion state: ' + JSON.stringify(first.state.motion));
  const names = first.state.motion.weights.map((w) => w.clip);
  const shots = {};
  for (const v of [0, 0.5, 1]) {
    shots[v] = await slide(page, v);
    const w = shots[v].state.motion.weights.map((x) => x.weight);
    // 1D: clip 0 at 0, clip 1 at 1: weights 1 - v and v.
    check(Math.abs(w[0] - (1 - v)) < 1e-6 && Math.abs(w[1] - v) < 1e-6, `slider ${v}: weights ${w}`);
  }
  // The root the page applied is the daemon's for the same body.
  const body = {
    skeleton: 'demo-humanoid', space: 'skin', t: 0.5, wrap: 'loop', root_motion: 'hips',
    blend_space: { param: [0.5], sync: true, clips: names.map((c, i) => ({ clip: c, at: [i] })) },
  };
  const res = await fetch(`${d.url}/v1/pose`, { method: 'POST', body: JSON.stringify(body) });
  check(res.ok, 'POST /v1/pose: ' + res.status);
  const answer = await res.json();
  const root = [...answer.root.translation, ...answer.root.rotation];
  const pageRoot = shots[0.5].state.motion.root;
  check(root.every((x, i) => Math.abs(x - pageRoot[i]) < 1e-6), `root ${pageRoot} vs ${root}`);
  const changed = changedPixels(shots[0].img, shots[1].img, shots[0].state.canvas);
  const half = changedPixels(shots[0].img, shots[0.5].img, shots[0].state.canvas);
  console.log(JSON.stringify({ clips: names, changed, half, root: pageRoot }));
  check(changed > 500, `only ${changed} pixels changed between the slider at 0 and 1`);
  check(half > 100, `only ${half} pixels changed between the slider at 0 and 0.5`);
  // The look-at target: the head aims at it (aim IK, error 0), and the
  // picture changes as the target moves.
  const a = await slide(page, 0, { look: true, lookx: 0.8, looky: 0.5 });
  const b = await slide(page, 0, { look: true, lookx: -0.8, looky: -0.2 });
  for (const s of [a, b]) {
    const ik = s.state.motion.ik;
    check(ik && ik.length === 2 && ik[0] === 1 && ik[1] < 1e-4, 'aim: ' + JSON.stringify(ik));
  }
  const moved = changedPixels(a.img, b.img, a.state.canvas);
  console.log(JSON.stringify({ lookChanged: moved, ik: b.state.motion.ik }));
  check(moved > 100, `only ${moved} pixels changed as the target moved`);
  check(errors.length === 0, 'page errors: ' + errors.join('; '));
});
