// A small client written against the TypeScript types openapi-typescript
// generates from docs/openapi.yaml (client.js generates them beside this
// file as animd-api.ts and runs tsc --noEmit). The @ts-expect-error lines
// hold the types to the document: a wrong value must not compile.
import type { components, paths } from './animd-api';

type Schemas = components['schemas'];
type PoseQuery = NonNullable<paths['/v1/pose']['get']['parameters']['query']>;
type PoseBody = paths['/v1/pose']['post']['requestBody']['content']['application/json'];
type PoseAnswer = Schemas['PoseAnswer'];
type UploadAnswer = paths['/v1/assets']['post']['responses']['201']['content']['application/json'];
type ErrorBody = Schemas['Error'];

export async function pose(base: string, q: PoseQuery): Promise<PoseAnswer> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, String(v));
  const r = await fetch(`${base}/v1/pose?${params}`);
  if (!r.ok) {
    const e = (await r.json()) as ErrorBody;
    throw new Error(`${e.error.code} at ${e.error.at ?? '-'}: ${e.error.message}`);
  }
  return (await r.json()) as PoseAnswer;
}

export async function blend(base: string, body: PoseBody): Promise<PoseAnswer> {
  const r = await fetch(`${base}/v1/pose`, { method: 'POST', body: JSON.stringify(body) });
  return (await r.json()) as PoseAnswer;
}

export function firstClip(u: UploadAnswer): string | undefined {
  return u.clips[0]?.id;
}

export function matrices(p: PoseAnswer): number[] {
  return p.matrices ?? [];
}

export function isRetryable(e: ErrorBody): boolean {
  const code: Schemas['ErrorCode'] = e.error.code;
  return code === 'overloaded' || code === 'store_unavailable';
}

export const query: PoseQuery = { clip: 'wave', t: 0.5, space: 'local', joints: 'hips,hand_r' };
export const body: PoseBody = {
  skeleton: 'demo-humanoid',
  layers: [{ clip: 'idle', t: 1, weight: 0.7 }, { clip: 'wave', t: 0.4, mask: ['hand_r'] }],
  ik: [{ type: 'aim', joint: 'head', target: [0, 1.6, 2] }],
};
export const play: Schemas['WsClientMessage'] = { op: 'play', id: 'w', clip: 'wave', fps: 30 };
export const suite: Schemas['TestSuite'] = {
  name: 'demo',
  cases: [{ name: 'loops', check: { clip: 'wave', loop: 1 } }],
};

// @ts-expect-error: no such space
export const badSpace: PoseQuery = { clip: 'wave', space: 'world' };
// @ts-expect-error: not an error code
export const badCode: Schemas['ErrorCode'] = 'no_such_code';
// @ts-expect-error: a layer needs its clip
export const badLayer: Schemas['Layer'] = { t: 1 };
