// The Vite example's page script: animd-client from npm, talking to the
// page's own origin, which the dev server proxies to the daemon
// (vite.config.js). It fetches one pose (model-space matrices) of the
// first clip, shows its numbers, then plays that clip as a stream and
// draws each frame's joints. window.animdExample holds what it got (for
// tests/web/t_example_vite.js).
import { Animd } from 'animd-client';

const out = { pose: null, stream: { frames: 0, lastFrame: null, lastT: null, floats: 0 }, error: null };
window.animdExample = out;
const $ = (id) => document.getElementById(id);

/** Joint positions: the translation column of each model-space matrix. */
function positions(matrices) {
  const p = [];
  for (let j = 0; 16 * j + 15 < matrices.length; j++) p.push([matrices[16 * j + 12], matrices[16 * j + 13]]);
  return p;
}

/** Draws the bones (joint to parent) seen from the front, fitted to the canvas. */
function draw(joints, parents, fit) {
  const canvas = $('view');
  const g = canvas.getContext('2d');
  g.clearRect(0, 0, canvas.width, canvas.height);
  g.strokeStyle = '#7fd0ff';
  g.lineWidth = 3;
  const px = ([x, y]) => [canvas.width / 2 + (x - fit.cx) * fit.scale, canvas.height / 2 - (y - fit.cy) * fit.scale];
  parents.forEach((parent, j) => {
    if (parent < 0) return;
    g.beginPath();
    g.moveTo(...px(joints[j]));
    g.lineTo(...px(joints[parent]));
    g.stroke();
  });
}

async function main() {
  const animd = new Animd(); // the page's origin: the dev server
  const list = await animd.assets();
  const clip = list.clips[0];
  const rig = await animd.skeleton(clip.skeleton);
  const parents = rig.joints.map((j) => j.parent);

  const pose = await animd.pose({ skeleton: rig.id, clip: clip.id, t: 0.5, space: 'model' });
  const joints = positions(pose.data);
  const xs = joints.map((p) => p[0]), ys = joints.map((p) => p[1]);
  const fit = {
    cx: (Math.min(...xs) + Math.max(...xs)) / 2,
    cy: (Math.min(...ys) + Math.max(...ys)) / 2,
    scale: 0.6 * Math.min(480 / (Math.max(...xs) - Math.min(...xs) || 1), 360 / (Math.max(...ys) - Math.min(...ys) || 1)),
  };
  draw(joints, parents, fit);
  out.pose = { skeleton: rig.name, clip: clip.name, t: 0.5, joints: pose.joints, matrices: Array.from(pose.data) };
  $('pose').textContent = rig.joints.map((j, i) =>
    `${j.name.padEnd(16)} ${joints[i].map((x) => x.toFixed(4).padStart(8)).join(' ')}`).join('\n');

  const conn = animd.connect();
  await conn.play({
    skeleton: rig.id, clip: clip.id, space: 'model', fps: 30,
    onframe: (f) => {
      out.stream.frames++;
      out.stream.lastFrame = f.frame;
      out.stream.lastT = f.t;
      out.stream.floats = f.data.length;
      draw(positions(f.data), parents, fit);
      $('status').textContent = `${rig.name} / ${clip.name}: frame ${f.frame}, t = ${f.t.toFixed(3)} s`;
    },
  });
}

main().catch((e) => {
  out.error = { code: e.code || 'error', message: e.message || String(e) };
  $('status').textContent = `${out.error.code}: ${out.error.message}`;
});
