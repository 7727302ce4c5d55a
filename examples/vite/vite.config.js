// The Vite dev server in front of the animd daemon: the page's /v1
// requests, its /v1/stream WebSocket and /client/animd.js go to the daemon
// (ANIMD_URL, default http://127.0.0.1:8080), so the page talks to its own
// origin and the client needs no url.
import { defineConfig } from 'vite';

const daemon = process.env.ANIMD_URL || 'http://127.0.0.1:8080';

export default defineConfig({
  server: {
    host: '127.0.0.1',
    proxy: {
      '/v1': { target: daemon, ws: true },
      '/client': { target: daemon },
    },
  },
});
