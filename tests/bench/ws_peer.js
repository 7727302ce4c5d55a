// ws_peer: the peer of `make bench-ws`, a pose streamer written the way a
// web developer would write one in Node.js with the `ws` library (npm,
// tests/e2e/node_modules), serving the load client (ws_load.c) the same
// bytes animd serves.
//
// It evaluates nothing: every frame is one precomputed 67-joint model-space
// payload (4,288 bytes) behind animd's 32-byte binary header, so what it
// costs is only scheduling and sending, a floor for any such server in
// Node. Like animd it has one timer for all streams (a min-heap of due
// times; Node's timers have 1 ms resolution), sends each stream's latest
// due frame and skips the ones it is too late for, and drops frames to a
// client whose unsent bytes pass 1 MiB. It answers ws_load's "stats"
// message with the frames it dropped, and GET /metrics with the frames it
// sent (animd's counter name), which bench-ws turns into CPU per frame.
//
// Usage: node ws_peer.js READY_FILE   (listens on 127.0.0.1, a free port,
// and writes "127.0.0.1:PORT" to READY_FILE once listening). Loopback
// only; stopped by its PID (SIGTERM).
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { WebSocketServer } = require(
  path.join(__dirname, '..', 'e2e', 'node_modules', 'ws'));

const JOINTS = 67;
const HEADER = 32;
const HIGH_WATER = 1 << 20;
const WINDOW_MS = 0.25; // Streams due this soon share a wake-up, as in animd.

// One model-space pose: identity rotations, joint j at (0, j * 0.1, 0).
const payload = Buffer.alloc(JOINTS * 16 * 4);
for (let j = 0; j < JOINTS; j++) {
  const m = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, j * 0.1, 0, 1];
  for (let k = 0; k < 16; k++) payload.writeFloatLE(m[k], 64 * j + 4 * k);
}

let framesSent = 0;

// Streams ordered by due time (ms, performance.now()).
const heap = [];
function less(a, b) { return heap[a].due < heap[b].due; }
function swap(a, b) { const t = heap[a]; heap[a] = heap[b]; heap[b] = t; }
function push(s) {
  heap.push(s);
  for (let i = heap.length - 1; i > 0;) {
    const p = (i - 1) >> 1;
    if (!less(i, p)) break;
    swap(i, p);
    i = p;
  }
}
function down(i) {
  for (;;) {
    const l = 2 * i + 1, r = l + 1;
    let m = i;
    if (l < heap.length && less(l, m)) m = l;
    if (r < heap.length && less(r, m)) m = r;
    if (m === i) return;
    swap(i, m);
    i = m;
  }
}
function pop() {
  const top = heap[0], last = heap.pop();
  if (heap.length > 0) {
    heap[0] = last;
    down(0);
  }
  return top;
}

let timer = null;
function arm() {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  if (heap.length === 0) return;
  timer = setTimeout(tick, Math.max(0, heap[0].due - performance.now()));
}

function send(s, n) {
  if (s.ws.bufferedAmount > HIGH_WATER) {
    s.dropped++;
    return;
  }
  const frame = Buffer.allocUnsafe(HEADER + payload.length);
  // animd's header: stream index, layout, frame number, clip time (f64),
  // 32-bit words that follow, elements (docs/api.md).
  frame.writeUInt32LE(s.index, 0);
  frame.writeUInt32LE(1, 4); // mat4
  frame.writeBigUInt64LE(BigInt(n), 8);
  frame.writeDoubleLE(Math.fround((n / s.fps) % 2), 16);
  frame.writeUInt32LE(JOINTS * 16, 24);
  frame.writeUInt32LE(JOINTS, 28);
  payload.copy(frame, HEADER);
  s.ws.send(frame, { binary: true });
  framesSent++;
}

function tick() {
  timer = null;
  const now = performance.now();
  while (heap.length > 0 && heap[0].due <= now + WINDOW_MS) {
    const s = pop();
    if (s.closed) continue;
    // The latest frame due by the window's end; the ones before it are
    // skipped.
    const n = Math.max(s.next,
      Math.floor((now + WINDOW_MS - s.start) * s.fps / 1000));
    s.skipped += n - s.next;
    send(s, n);
    s.next = n + 1;
    s.due = s.start + s.next * 1000 / s.fps;
    push(s);
  }
  arm();
}

const server = http.createServer((req, res) => {
  if (req.url === '/metrics') {
    res.end(`animd_ws_frames_sent_total ${framesSent}\n`);
    return;
  }
  res.statusCode = 404;
  res.end();
});
const wss = new WebSocketServer({ server, perMessageDeflate: false });
wss.on('connection', (ws) => {
  const streams = [];
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    let m;
    try {
      m = JSON.parse(data.toString());
    } catch (e) {
      ws.send(JSON.stringify({ op: 'error', error: 'not JSON' }));
      return;
    }
    if (m.op === 'play') {
      const fps = Number(m.fps) > 0 ? Number(m.fps) : 60;
      const s = { ws, index: streams.length, fps, start: performance.now(),
                  next: 0, due: 0, dropped: 0, skipped: 0, closed: false };
      s.due = s.start;
      streams.push(s);
      push(s);
      arm();
    } else if (m.op === 'stats') {
      let dropped = 0, skipped = 0;
      for (const s of streams) { dropped += s.dropped; skipped += s.skipped; }
      ws.send(JSON.stringify({ op: 'stats', skipped, dropped }));
    }
  });
  ws.on('close', () => { for (const s of streams) s.closed = true; });
  ws.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(process.argv[2], `127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => process.exit(0));
