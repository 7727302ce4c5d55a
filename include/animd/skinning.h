/* animd core: skinned meshes and the skinning job (LBS and DQS).
 *
 * A mesh is built once from a raw form: joint indices are checked against
 * the skeleton and remapped to its storage order, weights are renormalized
 * to sum to 1, and streams are stored as flat float / uint16 arrays that the
 * job reads with SIMD (AVX-512 or AVX2 + FMA when the CPU has them, chosen
 * at run time, with a scalar path; all agree within ANIM_EPS_SKIN).
 *
 * Linear blend skinning (LBS), for a vertex with influences (j_i, w_i):
 *   B  = sum_i w_i * M[j_i]            (the blended 4x4 skinning matrix)
 *   p' = B * (p, 1)
 *   n' = normalize(L * n)              ANIM_NORMALS_LINEAR (default), where
 *        L is B's upper 3x3: what GPU skinning shaders and three.js do;
 *   n' = normalize(inverse(L)^T * n)   ANIM_NORMALS_INVERSE_TRANSPOSE:
 *        stays perpendicular to transformed tangents under non-uniform
 *        scale. Computed as sign(det L) * cofactor(L) * n, so a singular L
 *        still gives a finite result.
 * A normal whose transformed length is zero is written as (0, 0, 0).
 *
 * Dual-quaternion skinning (DQS): each skinning matrix M = [A | t] is split
 * into a rigid part and a non-rigid part, M = [R | t] * [S | 0], where R is
 * the rotation of the polar decomposition of A (A = R * P, P symmetric; for
 * det A < 0 the polar rotation of A * diag(-1, 1, 1)) and S = R^T * A. The
 * rigid parts become unit dual quaternions (q_i, d_i = 0.5 * t_i * q_i;
 * R is the identity when A is singular), sign-aligned to the influence with
 * the largest weight q_m (w_i is negated where dot(q_i, q_m) < 0, so the
 * blend never cancels), blended and divided by the length of the blended
 * real part. The vertex is first moved by the linear blend of the non-rigid
 * parts, p_s = sum_i w_i * S_i * p, then by the blended dual quaternion:
 * p' = q p_s q* + t. Normals use S_blend = sum_i w_i * S_i the same way as
 * LBS uses L (linear part or inverse-transpose), then the blended rotation.
 * For rigid matrices (S_i = I) this is classic DQS; with one influence it
 * equals LBS. A matrix whose 3x3 part is orthonormal within 1e-5
 * (|a_i . a_j - delta_ij| <= 1e-5, det > 0) counts as rigid and its S_i is
 * taken as I (a relative error of at most about 1e-5); when all are rigid
 * the non-rigid blend is skipped (and AVX2 is used when available). */
#ifndef ANIMD_SKINNING_H
#define ANIMD_SKINNING_H

#include "animd/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tolerance between the SIMD and scalar paths, relative to the magnitude of
 * the result (|p'| + 1 for positions; normals are unit length). */
#define ANIM_EPS_SKIN 1e-4f

/* Vertices a skinning job morphs, then skins, per step (morph_scratch). */
#define ANIM_MORPH_CHUNK 512u

/* Scratch floats per skinning matrix that a DQS job needs. */
#define ANIM_DQS_SCRATCH_PER_MATRIX 8

/* The raw form, as importers fill it in. Build checks, in this order:
 * vertex_count in 1..INT32_MAX and positions given (field "positions"),
 * influences in 0..8 ("influences", ANIM_ERR_INFLUENCES), joints and
 * weights given; then per vertex (err->key = vertex index): finite
 * positions and normals ("positions", "normals", component = x/y/z),
 * joint indices < skeleton joint count ("joints", ANIM_ERR_JOINT_RANGE,
 * component = influence slot, err->joint = the bad index), finite,
 * non-negative weights with a positive sum ("weights", ANIM_ERR_NOT_FINITE
 * or ANIM_ERR_WEIGHT; component = slot, or -1 for a zero sum); then
 * indices: index_count a multiple of 3 and every index < vertex_count
 * ("indices", ANIM_ERR_INVALID_ARGUMENT, key = position in indices); then
 * finite texture coordinates ("texcoords", key = vertex, component = u/v)
 * and image bytes given when their size is not zero ("material"). */
/* What a renderer needs to texture a mesh, as its importer found it: the
 * core only carries it (copied into the mesh's block at build). Every
 * member is optional; zero-initialized means none. */
typedef struct anim_mesh_material_s {
  const char *name; /* glTF material name or MD5 shader, or NULL. */
  bool has_texture;
  uint32_t texture;       /* glTF base-color texture index. */
  const char *image_uri;  /* The texture image's URI (not data:), or NULL. */
  const char *image_type; /* mimeType of embedded image bytes, or NULL. */
  const void *image;      /* Embedded image bytes, or NULL. */
  size_t image_size;
} anim_mesh_material_t;

typedef struct anim_raw_mesh_s {
  const char *name; /* May be NULL. */
  size_t vertex_count;
  const float *positions; /* 3 per vertex. */
  const float *normals;   /* 3 per vertex, or NULL. */
  uint32_t influences;    /* Per vertex: 1..8 (0 means 4). */
  /* influences entries per vertex: caller-order joint indices and weights
   * (any non-negative weights with a positive sum; renormalized). */
  const uint32_t *joints;
  const float *weights;
  const uint32_t *indices; /* Triangle indices, or NULL. */
  size_t index_count;
  const float *texcoords; /* 2 per vertex (u, v), or NULL; finite. */
  anim_mesh_material_t material;
  /* Morph targets (glTF mesh targets), target-major: target i's delta of
   * vertex v is at (i * vertex_count + v) * 3. target_normals requires
   * normals (field "targets"). default_weights: target_count weights, or
   * NULL for zeros. All finite (field "targets" / "weights_default"). */
  uint32_t target_count; /* 0..ANIM_MAX_MORPH_TARGETS */
  const float *target_positions;
  const float *target_normals; /* Or NULL. */
  const float *default_weights;
} anim_raw_mesh_t;

typedef struct anim_mesh_s {
  char *name;
  uint32_t vertex_count;
  uint32_t influences;  /* 4 or 8 after build (1..3 are padded to 4). */
  uint32_t joint_count; /* Of the skeleton it was built for. */
  float *positions;     /* 3 per vertex, bind pose. */
  float *normals;       /* 3 per vertex (unit length, or zero), or NULL. */
  /* influences per vertex, storage order; padding slots hold joint 0 with
   * weight 0. The slots of a vertex may be reordered (the largest weight
   * last) so that the weights, added in slot order in float, give exactly
   * 1: skinning with identity matrices then returns the bind pose exactly. */
  uint16_t *joints;
  float *weights;    /* influences per vertex, summing to 1. */
  uint32_t *indices; /* May be NULL. */
  uint32_t index_count;
  float *texcoords; /* 2 per vertex, or NULL. */
  /* Strings and image bytes point into the mesh's block. */
  anim_mesh_material_t material;
  /* Morph targets as in the raw form (NULL when target_count is 0);
   * target_normals NULL when the targets have no NORMAL deltas. Normal
   * deltas are added to the stored (unit) normals. */
  uint32_t target_count;
  float *target_positions;
  float *target_normals;
  float *default_weights; /* target_count entries. */
  /* private */
  anim_allocator_t _alloc;
  void *_block; /* The one allocation holding all of the above. */
} anim_mesh_t;

/* Validates raw against skeleton and builds a mesh (one allocation through
 * alloc, NULL for malloc/free). Normals are normalized (zero stays zero).
 * On failure *out is NULL and err (optional) says where and why. */
anim_result anim_mesh_build(const anim_raw_mesh_t *raw,
                            const anim_skeleton_t *skeleton,
                            const anim_allocator_t *alloc, anim_mesh_t **out,
                            anim_build_error_t *err);
void anim_mesh_free(anim_mesh_t *mesh); /* NULL is allowed. */

typedef enum anim_skin_method {
  ANIM_SKIN_LBS = 0, /* Linear blend skinning. */
  ANIM_SKIN_DQS      /* Dual-quaternion skinning. */
} anim_skin_method;

typedef enum anim_skin_normals {
  ANIM_NORMALS_NONE = 0,         /* Positions only. */
  ANIM_NORMALS_LINEAR,           /* Blended matrix's 3x3, renormalized. */
  ANIM_NORMALS_INVERSE_TRANSPOSE /* Its inverse-transpose, renormalized. */
} anim_skin_normals;

/* One skinning pass over a vertex range. The caller owns every array; run()
 * reads the mesh and matrices, writes the outputs, never allocates (it may
 * copy a palette of up to 256 matrices that is not 64-byte aligned to 16
 * KiB of stack: align the matrices to 64 bytes to spare the copy), and may
 * run on any thread (jobs over disjoint ranges may run concurrently, each
 * with its own DQS scratch). Zero-initialized fields mean the defaults. */
typedef struct anim_skinning_job_s {
  const anim_mesh_t *mesh;
  const anim_mat4_t *matrices; /* Skinning matrices, storage order. */
  size_t matrix_count;         /* >= mesh->joint_count. */
  anim_skin_method method;     /* Default LBS. */
  anim_skin_normals normals;   /* Requires mesh->normals unless NONE. */
  /* Vertex range [first_vertex, first_vertex + vertex_count); vertex_count
   * 0 means every vertex from first_vertex to the end (which may be none).
   * Lets several workers split one mesh. */
  uint32_t first_vertex;
  uint32_t vertex_count;
  /* Outputs, relative to the range: out_positions[0..2] is vertex
   * first_vertex. 3 floats per vertex of the range each. The counts are
   * the arrays' sizes in floats: a count below 3 * range gives
   * ANIM_ERR_BUFFER_TOO_SMALL; 0 (a zero-initialized field) means the
   * caller vouches for the size, as in the first form of this job, which
   * callers written against it still use. */
  float *out_positions;
  size_t out_positions_count;
  float *out_normals; /* Required unless normals is NONE. */
  size_t out_normals_count;
  /* DQS only: caller scratch of ANIM_DQS_SCRATCH_PER_MATRIX floats per
   * joint of the mesh (scratch_count >= 8 * mesh->joint_count), overwritten
   * by run(). */
  float *scratch;
  size_t scratch_count;
  /* Morph targets (animd/morph.h), applied before skinning as glTF orders
   * it: with morph_weights (mesh->target_count weights) and a mesh that
   * has targets, each vertex of the range is first moved to
   * p + sum_i w_i * dp_i (normals n + sum_i w_i * dn_i) in morph_scratch:
   * run() morphs and skins ANIM_MORPH_CHUNK vertices at a time (so the
   * morphed copy is still in cache when it is skinned), and needs 3 floats
   * (6 when normals are skinned) per vertex of min(range, chunk)
   * (morph_scratch_count, checked: ANIM_ERR_BUFFER_TOO_SMALL). NULL
   * weights, or a mesh without targets: plain skinning. */
  const float *morph_weights;
  float *morph_scratch;
  size_t morph_scratch_count;
} anim_skinning_job_t;

/* ANIM_OK, or: ANIM_ERR_INVALID_ARGUMENT for a NULL job, mesh, matrices or
 * output, an unknown method or normals mode, normals asked of a mesh without
 * them, or a range outside the mesh; ANIM_ERR_BUFFER_TOO_SMALL for
 * matrix_count < mesh->joint_count, a nonzero output count below 3 floats
 * per vertex of the range, or DQS scratch that is missing or too small. */
anim_result anim_skinning_job_validate(const anim_skinning_job_t *job);
/* Validates, then skins. Matrices are not checked for NaN (garbage in,
 * garbage out, never a crash). */
anim_result anim_skinning_job_run(const anim_skinning_job_t *job);

/* Which SIMD path the LBS job uses (animd/kernels.h): "avx512", "avx2" or
 * "scalar". */
const char *anim_skinning_backend(void);

#ifdef __cplusplus
}
#endif
#endif
