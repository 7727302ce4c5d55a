/* The C client's decoder (clients/c/animd_frame.h) as a program for the
 * end-to-end tests: reads binary stream messages saved by a test (each a
 * u32 little-endian length, then the message) from argv[1] and writes, for
 * each q16 or delta frame it decodes, u64 frame, f64 t, u32 vertices, then
 * the positions and the normals as float32, to argv[2]. A delta frame the
 * chain cannot decode is reported on stdout ("gap FRAME") and skipped. One
 * stream of at most 100,000 vertices with normals. Exit status 1 on a
 * malformed message. */
#include <stdio.h>
#include <stdlib.h>

#include "animd_frame.h"

#define MAX_VERTICES 100000u

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: frame_decode MESSAGES OUT\n");
    return 2;
  }
  FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "wb");
  if (in == NULL || out == NULL) return 2;
  size_t cap = 16 + 24 * (size_t)MAX_VERTICES + 64;
  uint8_t *msg = malloc(cap);
  uint8_t *state = malloc(animd_delta_buffer_bytes(MAX_VERTICES, 1));
  float *pos = malloc(sizeof *pos * 3 * MAX_VERTICES);
  float *nrm = malloc(sizeof *nrm * 3 * MAX_VERTICES);
  if (msg == NULL || state == NULL || pos == NULL || nrm == NULL) return 2;
  animd_delta delta = {0};
  uint32_t delta_vertices = 0;
  int delta_normals = -1;
  uint8_t lenb[4];
  while (fread(lenb, 1, 4, in) == 4) {
    uint32_t len = animd__u32(lenb);
    if (len > cap || fread(msg, 1, len, in) != len) return 1;
    animd_frame_header h;
    if (animd_frame_header_read(msg, len, &h) != 0) return 1;
    if (h.layout < 4 || h.elements > MAX_VERTICES) return 1;
    int normals = h.layout == 5 || h.layout == 7;
    const uint8_t *q16 = msg + 32;
    size_t q16_len = 4 * (size_t)h.count;
    if (h.layout >= 6) {
      if (h.elements != delta_vertices || normals != delta_normals) {
        animd_delta_init(&delta, state, h.elements, normals);
        delta_vertices = h.elements;
        delta_normals = normals;
      }
      int r = animd_delta_decode(&delta, msg + 32, 4 * (size_t)h.count, &q16);
      if (r == ANIMD_FRAME_EGAP) {
        printf("gap %llu\n", (unsigned long long)h.frame);
        continue;
      }
      if (r != 0) return 1;
      q16_len = animd_q16_bytes(h.elements, normals);
    }
    if (animd_q16_decode(q16, q16_len, h.elements, normals, pos, nrm) != 0)
      return 1;
    uint64_t frame = h.frame;
    fwrite(&frame, 8, 1, out);
    fwrite(&h.t, 8, 1, out);
    fwrite(&h.elements, 4, 1, out);
    fwrite(pos, sizeof *pos, 3 * (size_t)h.elements, out);
    if (normals) fwrite(nrm, sizeof *nrm, 3 * (size_t)h.elements, out);
  }
  fclose(in);
  return fclose(out) == 0 ? 0 : 2;
}
