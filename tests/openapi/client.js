// A TypeScript client generated from docs/openapi.yaml compiles:
// openapi-typescript writes the document's types, and tsc --noEmit checks
// client/usage.ts (calls, bodies, answers, errors and WebSocket messages
// typed by them, and values the types must refuse) against them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadDocumentText } from './contract.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = (name) => path.join(here, 'node_modules/.bin', name);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'animd-openapi-ts-'));
try {
  const spec = path.join(dir, 'openapi.json');
  fs.writeFileSync(spec, loadDocumentText());
  execFileSync(bin('openapi-typescript'), [spec, '--default-non-nullable=false', '-o', path.join(dir, 'animd-api.ts')], { stdio: 'inherit' });
  fs.copyFileSync(path.join(here, 'client/usage.ts'), path.join(dir, 'usage.ts'));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', module: 'esnext',
      moduleResolution: 'bundler', lib: ['es2022', 'dom'], skipLibCheck: true,
      exactOptionalPropertyTypes: false, noUnusedLocals: true,
    },
    files: ['usage.ts', 'animd-api.ts'],
  }));
  execFileSync(bin('tsc'), ['-p', path.join(dir, 'tsconfig.json')], { stdio: 'inherit' });
  const lines = fs.readFileSync(path.join(dir, 'animd-api.ts'), 'utf8').split('\n').length;
  console.log(`client: openapi-typescript wrote ${lines} lines of types; usage.ts compiles with tsc --noEmit`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
