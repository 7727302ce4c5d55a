/* formats: the binary form of a skinned mesh (GET /v1/meshes/{id}
 * ?format=bin): one little-endian block a renderer uploads to the GPU as it
 * is, documented in docs/api.md.
 *
 * Key design choice: a fixed header of counts, byte offsets and bounds,
 * then each stream in its own section starting on a 16-byte boundary, so a
 * browser views every section in place (new Float32Array(buf, offset, n))
 * and a block's byte length lets several blocks follow one another (a
 * future answer with several meshes). Joint indices are in the skeleton's
 * caller order, the order of every pose and skin answer. Pure function:
 * no state, any thread. */
#ifndef ANIMD_FORMATS_MESH_BIN_H
#define ANIMD_FORMATS_MESH_BIN_H

#include <stdint.h>

#include "animd/skinning.h"
#include "formats/buf.h"

#define FMT_MESH_BIN_MAGIC "AMSH"
#define FMT_MESH_BIN_VERSION 1u
/* The version of a block whose mesh has morph targets: version 1 plus the
 * targets section (flag 8, header fields at 88 and 92); a mesh without
 * targets keeps version 1, byte for byte. */
#define FMT_MESH_BIN_VERSION_TARGETS 2u
#define FMT_MESH_BIN_HEADER 96u /* Bytes; sections start after it. */
#define FMT_MESH_BIN_ALIGN 16u  /* Every section starts on a multiple. */

/* Header flags: which optional sections the block has. */
enum {
  FMT_MESH_BIN_NORMALS = 1u,
  FMT_MESH_BIN_TEXCOORDS = 2u,
  FMT_MESH_BIN_INDICES = 4u,
  FMT_MESH_BIN_TARGETS = 8u,        /* Version 2: morph targets. */
  FMT_MESH_BIN_TARGET_NORMALS = 16u /* Their normal deltas too. */
};

/* Header field byte offsets (u32 unless said). */
enum {
  FMT_MESH_BIN_AT_VERSION = 4,
  FMT_MESH_BIN_AT_HEADER_BYTES = 8,
  FMT_MESH_BIN_AT_FLAGS = 12,
  FMT_MESH_BIN_AT_VERTICES = 16,
  FMT_MESH_BIN_AT_INDICES = 20,
  FMT_MESH_BIN_AT_INFLUENCES = 24,
  FMT_MESH_BIN_AT_JOINTS = 28,
  FMT_MESH_BIN_AT_INDICES_OFFSET = 32,
  FMT_MESH_BIN_AT_POSITIONS_OFFSET = 36,
  FMT_MESH_BIN_AT_NORMALS_OFFSET = 40,
  FMT_MESH_BIN_AT_TEXCOORDS_OFFSET = 44,
  FMT_MESH_BIN_AT_JOINTS_OFFSET = 48,
  FMT_MESH_BIN_AT_WEIGHTS_OFFSET = 52,
  FMT_MESH_BIN_AT_BYTE_LENGTH = 56,
  FMT_MESH_BIN_AT_BOUNDS_MIN = 64, /* f32 x 3 */
  FMT_MESH_BIN_AT_BOUNDS_MAX = 76, /* f32 x 3 */
  FMT_MESH_BIN_AT_TARGETS = 88,    /* Version 2: T, morph targets. */
  FMT_MESH_BIN_AT_TARGETS_OFFSET = 92
};

/* The layout version of mesh's block. */
static inline uint32_t fmt_mesh_bin_version(const anim_mesh_t *mesh) {
  return mesh->target_count > 0 ? FMT_MESH_BIN_VERSION_TARGETS
                                : FMT_MESH_BIN_VERSION;
}

/* Appends the block of mesh (built for skeleton) to b: header, positions
 * (f32 x 3V), normals (f32 x 3V, when the mesh has them), texcoords
 * (f32 x 2V when given: 2 per vertex, or NULL), joint indices (u16 x KV,
 * caller order), weights (f32 x KV), triangle indices (u32 x I, when the
 * mesh has them), and with morph targets (version 2) the targets section:
 * position deltas (f32 x 3V per target, target after target), normal
 * deltas likewise when the targets have them, default weights (f32 x T).
 * Returns 0, or -1 when b failed or the block would pass
 * 4 GiB. */
int fmt_mesh_bin(fmt_buf_t *b, const anim_mesh_t *mesh,
                 const anim_skeleton_t *skeleton, const float *texcoords);

#endif
