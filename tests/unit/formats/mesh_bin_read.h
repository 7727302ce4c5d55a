/* Little-endian reads of the mesh block's fields for the tests of
 * formats/mesh_bin.h and of GET /v1/meshes/{id}?format=bin, written from
 * the byte layout of docs/api.md rather than with the encoder's
 * helpers. */
#ifndef ANIMD_TESTS_MESH_BIN_READ_H
#define ANIMD_TESTS_MESH_BIN_READ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t u32_at(const char *d, size_t at) {
  const unsigned char *p = (const unsigned char *)d + at;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static inline float f32_at(const char *d, size_t at) {
  uint32_t u = u32_at(d, at);
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static inline unsigned u16_at(const char *d, size_t at) {
  const unsigned char *p = (const unsigned char *)d + at;
  return (unsigned)p[0] | (unsigned)p[1] << 8;
}

#endif
