/* formats: the binary form of a skinned mesh (mesh_bin.h): the header is
 * filled in one pass over the section sizes, then each section is appended
 * after zero padding to its offset. */
#include "formats/mesh_bin.h"

#include <float.h>
#include <string.h>

static void put_u32(unsigned char *h, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++) h[at + (size_t)i] = (unsigned char)(v >> (8 * i));
}

static void put_f32(unsigned char *h, size_t at, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  put_u32(h, at, u);
}

/* Places a section of bytes after *end: returns its offset. */
static uint64_t place(uint64_t *end, uint64_t bytes) {
  uint64_t at =
      (*end + FMT_MESH_BIN_ALIGN - 1) / FMT_MESH_BIN_ALIGN * FMT_MESH_BIN_ALIGN;
  *end = at + bytes;
  return at;
}

static void pad_to(fmt_buf_t *b, size_t start, uint64_t at) {
  static const unsigned char zero[FMT_MESH_BIN_ALIGN];
  fmt_buf_append(b, zero, (size_t)(at - (b->len - start)));
}

int fmt_mesh_bin(fmt_buf_t *b, const anim_mesh_t *mesh,
                 const anim_skeleton_t *skeleton, const float *texcoords) {
  uint64_t v = mesh->vertex_count, k = mesh->influences;
  uint64_t end = FMT_MESH_BIN_HEADER;
  uint64_t at_pos = place(&end, 12 * v);
  uint64_t at_nrm = mesh->normals ? place(&end, 12 * v) : 0;
  uint64_t at_uv = texcoords ? place(&end, 8 * v) : 0;
  uint64_t at_jnt = place(&end, 2 * k * v);
  uint64_t at_wgt = place(&end, 4 * k * v);
  uint64_t at_idx =
      mesh->indices ? place(&end, 4 * (uint64_t)mesh->index_count) : 0;
  uint64_t nt = mesh->target_count;
  uint64_t at_tgt =
      nt ? place(&end, nt * (12 * v * (mesh->target_normals ? 2 : 1) + 4)) : 0;
  end = place(&end, 0); /* The block's length is a multiple of 16 too. */
  if (end > UINT32_MAX) return -1;

  unsigned char h[FMT_MESH_BIN_HEADER];
  memset(h, 0, sizeof h);
  memcpy(h, FMT_MESH_BIN_MAGIC, 4);
  put_u32(h, FMT_MESH_BIN_AT_VERSION, fmt_mesh_bin_version(mesh));
  put_u32(h, FMT_MESH_BIN_AT_HEADER_BYTES, FMT_MESH_BIN_HEADER);
  put_u32(h, FMT_MESH_BIN_AT_FLAGS,
          (mesh->normals ? FMT_MESH_BIN_NORMALS : 0) |
              (texcoords ? FMT_MESH_BIN_TEXCOORDS : 0) |
              (mesh->indices ? FMT_MESH_BIN_INDICES : 0) |
              (nt ? FMT_MESH_BIN_TARGETS : 0) |
              (mesh->target_normals ? FMT_MESH_BIN_TARGET_NORMALS : 0));
  put_u32(h, FMT_MESH_BIN_AT_TARGETS, (uint32_t)nt);
  put_u32(h, FMT_MESH_BIN_AT_TARGETS_OFFSET, (uint32_t)at_tgt);
  put_u32(h, FMT_MESH_BIN_AT_VERTICES, (uint32_t)v);
  put_u32(h, FMT_MESH_BIN_AT_INDICES, mesh->indices ? mesh->index_count : 0);
  put_u32(h, FMT_MESH_BIN_AT_INFLUENCES, (uint32_t)k);
  put_u32(h, FMT_MESH_BIN_AT_JOINTS, skeleton->joint_count);
  put_u32(h, FMT_MESH_BIN_AT_INDICES_OFFSET, (uint32_t)at_idx);
  put_u32(h, FMT_MESH_BIN_AT_POSITIONS_OFFSET, (uint32_t)at_pos);
  put_u32(h, FMT_MESH_BIN_AT_NORMALS_OFFSET, (uint32_t)at_nrm);
  put_u32(h, FMT_MESH_BIN_AT_TEXCOORDS_OFFSET, (uint32_t)at_uv);
  put_u32(h, FMT_MESH_BIN_AT_JOINTS_OFFSET, (uint32_t)at_jnt);
  put_u32(h, FMT_MESH_BIN_AT_WEIGHTS_OFFSET, (uint32_t)at_wgt);
  put_u32(h, FMT_MESH_BIN_AT_BYTE_LENGTH, (uint32_t)end);
  float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX};
  float hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
  for (size_t i = 0; i < v; i++)
    for (int c = 0; c < 3; c++) {
      float p = mesh->positions[3 * i + (size_t)c];
      if (p < lo[c]) lo[c] = p;
      if (p > hi[c]) hi[c] = p;
    }
  for (int c = 0; c < 3; c++) {
    put_f32(h, FMT_MESH_BIN_AT_BOUNDS_MIN + 4 * (size_t)c, lo[c]);
    put_f32(h, FMT_MESH_BIN_AT_BOUNDS_MAX + 4 * (size_t)c, hi[c]);
  }

  size_t start = b->len;
  if (!fmt_buf_reserve(b, (size_t)end)) return -1;
  fmt_buf_append(b, h, sizeof h);
  pad_to(b, start, at_pos);
  fmt_buf_f32le(b, mesh->positions, 3 * v);
  if (mesh->normals) {
    pad_to(b, start, at_nrm);
    fmt_buf_f32le(b, mesh->normals, 3 * v);
  }
  if (texcoords) {
    pad_to(b, start, at_uv);
    fmt_buf_f32le(b, texcoords, 2 * v);
  }
  pad_to(b, start, at_jnt);
  for (size_t i = 0; i < k * v; i++) {
    uint16_t j = mesh->joints[i];
    uint32_t c = j < skeleton->joint_count ? skeleton->to_caller[j] : 0;
    unsigned char le[2] = {(unsigned char)c, (unsigned char)(c >> 8)};
    fmt_buf_append(b, le, 2);
  }
  pad_to(b, start, at_wgt);
  fmt_buf_f32le(b, mesh->weights, k * v);
  if (mesh->indices) {
    pad_to(b, start, at_idx);
    for (size_t i = 0; i < mesh->index_count; i++)
      fmt_buf_u32le(b, mesh->indices[i]);
  }
  if (nt) {
    pad_to(b, start, at_tgt);
    fmt_buf_f32le(b, mesh->target_positions, 3 * v * nt);
    if (mesh->target_normals)
      fmt_buf_f32le(b, mesh->target_normals, 3 * v * nt);
    fmt_buf_f32le(b, mesh->default_weights, nt);
  }
  pad_to(b, start, end);
  return b->failed ? -1 : 0;
}
