/* bench-thin's frame bench: what one skinned frame costs on the wire and
 * to decode, per encoding, for the frames of GET /v1/skin ranges saved by
 * scripts/bench-thin (one file per mesh of an asset, float32 positions and
 * normals, at the range's fps).
 *
 * Bytes per frame (summed over the asset's meshes, payloads without the
 * 32-byte stream header): float32; q16 (formats/q16.h); delta
 * (formats/q16_delta.h: a chain per mesh, a key frame every KEY_EVERY
 * frames, as a stream of key_every 30 sends them); and meshoptimizer's vertex
 * codec (meshopt_encodeVertexBuffer) on the same frames, one frame at a
 * time: the float32 vertices (24 bytes), the q16 values (u16 x, y, z and
 * i16 octahedral u, v, padded to 12 bytes) and the positions as u16 with
 * meshopt's octahedral filter on the normals (16-bit, 16 bytes a vertex).
 * Times are the thread's CPU time. Decode time per vertex of the C client's
 * decoder (clients/c/animd_frame.h): q16 to floats, delta to q16 to floats; and
 * meshopt_decodeVertexBuffer of the q16 layout (integers out, no
 * dequantization). Skinning matrices: a space=skin mat4 stream frame, 64 bytes
 * a joint.
 *
 * usage: thin_frames NAME JOINTS RANGE_FILE... */
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../clients/c/animd_frame.h"
#include "formats/q16.h"
#include "formats/q16_delta.h"
#include "bench_clock.h"

#define KEY_EVERY 30
#define MAX_MESHES 64
#define MAX_FRAMES 4096

typedef struct mesh_frames {
  uint32_t vertices, frames;
  float *f; /* frames x 6V floats: positions then normals. */
} mesh_frames;

static int load(const char *path, mesh_frames *m) {
  FILE *fp = fopen(path, "rb");
  if (fp == NULL) return -1;
  fseek(fp, 0, SEEK_END);
  long size = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)size);
  if (b == NULL || fread(b, 1, (size_t)size, fp) != (size_t)size) return -1;
  fclose(fp);
  m->frames = 0;
  m->f = NULL;
  size_t o = 0;
  while (o + 16 <= (size_t)size && m->frames < MAX_FRAMES) {
    uint32_t n = animd__u32(b + o + 4);
    if (o + 16 + 4 * (size_t)n > (size_t)size || n % 6 != 0) return -1;
    m->vertices = n / 6;
    m->f = realloc(m->f, sizeof(float) * n * (m->frames + 1));
    memcpy(m->f + (size_t)n * m->frames, b + o + 16, 4 * (size_t)n);
    m->frames++;
    o += 16 + 4 * (size_t)n;
  }
  free(b);
  return m->frames > 0 ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: thin_frames NAME JOINTS RANGE_FILE...\n");
    return 2;
  }
  const char *name = argv[1];
  unsigned joints = (unsigned)atoi(argv[2]);
  int nm = argc - 3;
  if (nm > MAX_MESHES) return 2;
  mesh_frames meshes[MAX_MESHES];
  uint32_t frames = UINT32_MAX, vertices = 0;
  for (int k = 0; k < nm; k++) {
    if (load(argv[3 + k], &meshes[k]) != 0) {
      fprintf(stderr, "thin_frames: cannot read %s\n", argv[3 + k]);
      return 1;
    }
    if (meshes[k].frames < frames) frames = meshes[k].frames;
    vertices += meshes[k].vertices;
  }
  double bytes_f32 = 0, bytes_q16 = 0, bytes_delta = 0, bytes_delta_only = 0,
         bytes_mo_f32 = 0, bytes_mo_q16 = 0, bytes_mo_oct = 0;
  unsigned deltas = 0;
  double ns_q16 = 0, ns_delta = 0, ns_mo = 0, ns_encode = 0, ns_parents = 0;
  for (int k = 0; k < nm; k++) {
    mesh_frames *m = &meshes[k];
    uint32_t v = m->vertices;
    size_t qn = fmt_q16_size(v, true);
    uint8_t *q = malloc(qn * frames);
    uint8_t *d = malloc(fmt_q16_delta_bound(v, true) * frames);
    size_t *dlen = malloc(sizeof *dlen * frames);
    size_t mbound = meshopt_encodeVertexBufferBound(v, 24);
    uint8_t *mo = malloc(mbound * frames);
    size_t *molen = malloc(sizeof *molen * frames);
    uint8_t *verts = malloc(24 * (size_t)v);
    size_t dpos = 0;
    /* The chain's parents, chosen from its first frame as a stream does. */
    uint32_t *parents = malloc(sizeof *parents * v);
    int32_t *scratch = malloc(sizeof *scratch * v);
    for (uint32_t f = 0; f < frames; f++) {
      const float *p = m->f + 6 * (size_t)v * f;
      fmt_q16_encode(p, p + 3 * (size_t)v, v, q + qn * f);
      if (f == 0 && fmt_q16_delta_parents(q, v, parents) != 0) return 1;
      bool key = f % KEY_EVERY == 0;
      const uint8_t *a = key ? NULL : q + qn * (f - 1);
      const uint8_t *b = key || f % KEY_EVERY == 1 ? NULL : q + qn * (f - 2);
      dlen[f] = fmt_q16_delta_encode(q + qn * f, a, b, parents, v, true, f,
                                     scratch, d + dpos);
      dpos += dlen[f];
      bytes_f32 += 24.0 * v;
      bytes_q16 += (double)qn;
      bytes_delta += (double)dlen[f];
      if (!key) {
        bytes_delta_only += (double)dlen[f];
        if (k == 0) deltas++;
      }
      /* meshopt, float32 vertices. */
      for (uint32_t i = 0; i < v; i++) {
        memcpy(verts + 24 * (size_t)i, p + 3 * (size_t)i, 12);
        memcpy(verts + 24 * (size_t)i + 12, p + 3 * ((size_t)v + i), 12);
      }
      uint8_t *fb = malloc(mbound);
      bytes_mo_f32 +=
          (double)meshopt_encodeVertexBuffer(fb, mbound, verts, v, 24);
      free(fb);
      /* meshopt, the q16 values (12-byte vertices). */
      const uint8_t *qp = q + qn * f;
      memset(verts, 0, 12 * (size_t)v);
      for (uint32_t i = 0; i < v; i++) {
        memcpy(verts + 12 * (size_t)i, qp + 24 + 6 * (size_t)i, 6);
        memcpy(verts + 12 * (size_t)i + 6, qp + 24 + 6 * (size_t)v + 4 * i, 4);
      }
      molen[f] =
          meshopt_encodeVertexBuffer(mo + mbound * f, mbound, verts, v, 12);
      bytes_mo_q16 += 24 + (double)molen[f];
      /* meshopt, u16 positions and its 16-bit octahedral filter. */
      uint8_t *oct = malloc(8 * (size_t)v);
      float *n4 = malloc(sizeof *n4 * 4 * (size_t)v); /* x, y, z, 0 */
      for (uint32_t i = 0; i < v; i++) {
        memcpy(n4 + 4 * (size_t)i, p + 3 * ((size_t)v + i), 12);
        n4[4 * (size_t)i + 3] = 0;
      }
      meshopt_encodeFilterOct(oct, v, 8, 16, n4);
      free(n4);
      uint8_t *pv = malloc(16 * (size_t)v);
      for (uint32_t i = 0; i < v; i++) {
        memcpy(pv + 16 * (size_t)i, qp + 24 + 6 * (size_t)i, 6);
        pv[16 * (size_t)i + 6] = pv[16 * (size_t)i + 7] = 0;
        memcpy(pv + 16 * (size_t)i + 8, oct + 8 * (size_t)i, 8);
      }
      uint8_t *ob = malloc(meshopt_encodeVertexBufferBound(v, 16));
      bytes_mo_oct +=
          24 + (double)meshopt_encodeVertexBuffer(
                   ob, meshopt_encodeVertexBufferBound(v, 16), pv, v, 16);
      free(oct);
      free(pv);
      free(ob);
    }
    /* Decode times, over every frame, repeated to about 50 ms each. */
    float *pos = malloc(sizeof *pos * 3 * v),
          *nrm = malloc(sizeof *nrm * 3 * v);
    uint8_t *state = malloc(animd_delta_buffer_bytes(v, 1));
    unsigned reps = 1 + (unsigned)(2000000 / ((double)frames * v + 1));
    double t0 = now_ns();
    for (unsigned r = 0; r < reps; r++)
      for (uint32_t f = 0; f < frames; f++)
        animd_q16_decode(q + qn * f, qn, v, 1, pos, nrm);
    ns_q16 += (now_ns() - t0) / reps;
    t0 = now_ns();
    for (unsigned r = 0; r < reps; r++) {
      animd_delta chain;
      animd_delta_init(&chain, state, v, 1);
      size_t o = 0;
      for (uint32_t f = 0; f < frames; f++) {
        const uint8_t *out;
        if (animd_delta_decode(&chain, d + o, dlen[f], &out) != 0 ||
            memcmp(out, q + qn * f, qn) != 0) {
          fprintf(stderr, "thin_frames: delta frame %u does not decode\n", f);
          return 1;
        }
        o += dlen[f];
        animd_q16_decode(out, qn, v, 1, pos, nrm);
      }
    }
    ns_delta += (now_ns() - t0) / reps;
    t0 = now_ns();
    for (unsigned r = 0; r < reps; r++)
      for (uint32_t f = 0; f < frames; f++)
        if (meshopt_decodeVertexBuffer(verts, v, 12, mo + mbound * f,
                                       molen[f]) != 0) {
          fprintf(stderr, "thin_frames: meshopt frame %u does not decode\n", f);
          return 1;
        }
    ns_mo += (now_ns() - t0) / reps;
    /* The daemon's side: a delta frame's encoding (per viewer and frame)
     * and the parents (once per stream). */
    t0 = now_ns();
    for (unsigned r = 0; r < reps; r++)
      for (uint32_t f = 0; f < frames; f++) {
        bool key = f % KEY_EVERY == 0;
        const uint8_t *a = key ? NULL : q + qn * (f - 1);
        const uint8_t *b = key || f % KEY_EVERY == 1 ? NULL : q + qn * (f - 2);
        fmt_q16_delta_encode(q + qn * f, a, b, parents, v, true, f, scratch, d);
      }
    ns_encode += (now_ns() - t0) / reps;
    t0 = now_ns();
    for (unsigned r = 0; r < reps; r++)
      if (fmt_q16_delta_parents(q, v, parents) != 0) return 1;
    ns_parents += (now_ns() - t0) / reps * frames;
    free(pos);
    free(nrm);
    free(state);
    free(q);
    free(d);
    free(dlen);
    free(mo);
    free(molen);
    free(verts);
    free(parents);
    free(scratch);
  }
  double fr = frames, per = 1.0 / (fr * vertices);
  double f32 = bytes_f32 / fr;
#define ROW(label, bytes, ns)                                                  \
  do {                                                                         \
    if ((ns) > 0)                                                              \
      printf("  %-34s %9.0f B %6.1f%%  %6.2f ns/vertex\n", label, bytes,       \
             100 * (bytes) / f32, (ns)*per);                                   \
    else                                                                       \
      printf("  %-34s %9.0f B %6.1f%%\n", label, bytes, 100 * (bytes) / f32);  \
  } while (0)
  printf("%s: %d mesh%s, %u vertices, %u joints, %u frames at 30 fps "
         "(positions+normals; bytes per frame, %% of float32)\n",
         name, nm, nm == 1 ? "" : "es", vertices, joints, frames);
  ROW("float32", f32, 0.0);
  ROW("q16", bytes_q16 / fr, ns_q16);
  ROW("delta (key every 30)", bytes_delta / fr, ns_delta);
  ROW("delta frames alone", bytes_delta_only / (deltas ? deltas : 1), 0.0);
  ROW("meshopt vertex codec, float32", bytes_mo_f32 / fr, 0.0);
  ROW("meshopt vertex codec, q16 values", bytes_mo_q16 / fr, ns_mo);
  ROW("meshopt, u16 + oct filter (16-bit)", bytes_mo_oct / fr, 0.0);
  ROW("skinning matrices (mat4, skin)", 64.0 * joints, 0.0);
  printf("  delta encoding %.2f ns/vertex a frame; parents %.2f ns/vertex "
         "once a stream\n",
         ns_encode * per, ns_parents * per);
  return 0;
}
