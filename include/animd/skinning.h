/* animd core: skinned meshes and the skinning job (LBS and DQS).
 *
 * A mesh is built once from a raw form: joint indices are checked against
 * the skeleton and remapped to its storage order, weights are renormalized
 * to sum to 1, and streams are stored as flat float / uint16 arrays that the
 * job reads with SIMD (AVX2 + FMA when the CPU has it, chosen at run time,
 * with a scalar path that gives the same results within ANIM_EPS_SKIN).
 *
 * Conventions: positions are transformed by the weighted sum of skinning
 * matrices; normals by default by that sum's linear part (what GPU shaders
 * and three.js do), or by its inverse-transpose (exact under non-uniform
 * scale), and renormalized in both cases. Dual-quaternion skinning blends
 * the joints' rigid parts as dual quaternions (sign-aligned to the first
 * influence) and applies each joint's scale/shear first. */
#ifndef ANIMD_SKINNING_H
#define ANIMD_SKINNING_H

#include "animd/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ANIM_EPS_SKIN 1e-4f /* Relative tolerance SIMD vs scalar paths. */

typedef struct anim_raw_mesh_s {
  const char *name;        /* May be NULL. */
  size_t vertex_count;
  const float *positions;  /* 3 per vertex. */
  const float *normals;    /* 3 per vertex, or NULL. */
  uint32_t influences;     /* Per vertex: 1..8 (0 means 4). */
  /* influences entries per vertex: caller-order joint indices and weights
   * (any non-negative weights with a positive sum; renormalized). */
  const uint32_t *joints;
  const float *weights;
  const uint32_t *indices; /* Triangle indices, or NULL. */
  size_t index_count;
} anim_raw_mesh_t;

typedef struct anim_mesh_s {
  char *name;
  uint32_t vertex_count;
  uint32_t influences;     /* 4 or 8 after build (1..3 are padded to 4). */
  uint32_t joint_count;    /* Of the skeleton it was built for. */
  float *positions;        /* 3 per vertex, bind pose. */
  float *normals;          /* 3 per vertex, or NULL. */
  uint16_t *joints;        /* influences per vertex, storage order. */
  float *weights;          /* influences per vertex, summing to 1. */
  uint32_t *indices;       /* May be NULL. */
  uint32_t index_count;
  /* private */
  anim_allocator_t _alloc;
} anim_mesh_t;

anim_result anim_mesh_build(const anim_raw_mesh_t *raw,
                            const anim_skeleton_t *skeleton,
                            const anim_allocator_t *alloc, anim_mesh_t **out,
                            anim_build_error_t *err);
void anim_mesh_free(anim_mesh_t *mesh);

typedef enum anim_skin_method {
  ANIM_SKIN_LBS = 0, /* Linear blend skinning. */
  ANIM_SKIN_DQS      /* Dual-quaternion skinning. */
} anim_skin_method;

typedef enum anim_skin_normals {
  ANIM_NORMALS_NONE = 0,  /* Positions only. */
  ANIM_NORMALS_LINEAR,    /* Blended matrix's 3x3, renormalized. */
  ANIM_NORMALS_INVERSE_TRANSPOSE /* Its inverse-transpose, renormalized. */
} anim_skin_normals;

typedef struct anim_skinning_job_s {
  const anim_mesh_t *mesh;
  const anim_mat4_t *matrices; /* Skinning matrices, storage order. */
  size_t matrix_count;         /* >= mesh->joint_count. */
  anim_skin_method method;
  anim_skin_normals normals;   /* Requires mesh->normals unless NONE. */
  /* Vertex range [first, first + count); count 0 means all. Lets several
   * workers split one mesh. */
  uint32_t first_vertex;
  uint32_t vertex_count;
  float *out_positions;        /* 3 * vertex count floats. */
  float *out_normals;          /* 3 * vertex count floats, if normals. */
  /* DQS only: caller scratch of 8 floats per matrix. */
  float *scratch;
  size_t scratch_count;
  bool force_scalar;           /* Tests: skip the SIMD path. */
} anim_skinning_job_t;

anim_result anim_skinning_job_validate(const anim_skinning_job_t *job);
anim_result anim_skinning_job_run(const anim_skinning_job_t *job);

/* Which SIMD path the job uses on this CPU: "avx2" or "scalar". */
const char *anim_skinning_backend(void);

#ifdef __cplusplus
}
#endif
#endif
