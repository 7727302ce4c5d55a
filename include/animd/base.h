/* animd core: result codes, allocator hooks and shared enums.
 *
 * Every core function that can fail returns an anim_result (0 = OK), in the
 * style of cgltf_result. Builders (skeleton, clip, mesh) take an optional
 * anim_allocator_t; a NULL allocator (or one with both hooks NULL) means
 * malloc/free, and one with only one hook is refused with
 * ANIM_ERR_INVALID_ARGUMENT (error field "allocator"). Jobs never allocate:
 * their scratch space is owned and sized by the caller. */
#ifndef ANIMD_BASE_H
#define ANIMD_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum anim_result {
  ANIM_OK = 0,
  ANIM_ERR_INVALID_ARGUMENT, /* A NULL pointer or a count that does not fit. */
  ANIM_ERR_BUFFER_TOO_SMALL, /* An output or scratch buffer is too short. */
  ANIM_ERR_OUT_OF_MEMORY,    /* The allocator returned NULL. */
  ANIM_ERR_NOT_FINITE,       /* A NaN or an infinity in the input. */
  ANIM_ERR_ZERO_QUATERNION,  /* A rotation of (near) zero length. */
  ANIM_ERR_PARENT_RANGE,     /* A parent index outside [-1, joint_count). */
  ANIM_ERR_CYCLE,            /* The parent links form a cycle. */
  ANIM_ERR_NAME_EMPTY,       /* A joint without a name. */
  ANIM_ERR_NAME_DUPLICATE,   /* Two joints with the same name. */
  ANIM_ERR_TOO_MANY_JOINTS,  /* More than ANIM_MAX_JOINTS joints. */
  ANIM_ERR_JOINT_RANGE, /* A track or vertex names a joint that is not there. */
  ANIM_ERR_NO_KEYS,     /* A track with no keys. */
  ANIM_ERR_TIMES_ORDER, /* Key times not strictly increasing. */
  ANIM_ERR_TIME_NEGATIVE,   /* A key time below zero. */
  ANIM_ERR_VALUE_COUNT,     /* Values do not match keys x components. */
  ANIM_ERR_BEZIER_RANGE,    /* A Bezier control value outside [0, 1]. */
  ANIM_ERR_DUPLICATE_TRACK, /* Two tracks animate the same joint and path. */
  ANIM_ERR_WEIGHT,          /* Vertex weights negative or summing to zero. */
  ANIM_ERR_INFLUENCES,      /* Influence count not 1..8. */
  ANIM_ERR_SINGULAR,        /* A matrix that cannot be inverted. */
  ANIM_ERR_MISMATCH,        /* Objects built for different skeletons. */
  ANIM_RESULT_COUNT_
} anim_result;

/* A stable, human-readable name for a result ("ok", "cycle", ...). */
const char *anim_result_str(anim_result r);

/* Allocation hooks: both or neither. user_data is passed back unchanged.
 * Blocks must be aligned as malloc's are. */
typedef struct anim_allocator_s {
  void *(*alloc)(size_t size, void *user_data);
  void (*free)(void *ptr, void *user_data);
  void *user_data;
} anim_allocator_t;

/* The largest skeleton the core accepts; parents are stored as int16. */
#define ANIM_MAX_JOINTS 32767

/* Where a build step found its first problem. Indices are in the caller's
 * order (the raw form's), -1 where they do not apply. field names the member
 * of the raw form at fault ("parent", "name", "times", "values", ...). */
typedef struct anim_build_error_s {
  anim_result code;
  int32_t joint;     /* Joint index, or -1. */
  int32_t track;     /* Track index, or -1. */
  int32_t key;       /* Key (or vertex, or frame) index, or -1. */
  int32_t component; /* Component within the key or vertex, or -1. */
  const char *field; /* Static string, never NULL after a failed build. */
  char message[160]; /* A full sentence for people. */
} anim_build_error_t;

/* The widest SIMD instruction set the core's kernels use on this CPU,
 * detected once (CPUID and the OS's saving of the wide registers): other
 * layers with kernels of their own pick theirs from it. */
typedef enum anim_simd {
  ANIM_SIMD_SCALAR = 0, /* Portable C (SSE2 where the compiler targets it). */
  ANIM_SIMD_AVX2,       /* AVX2 + FMA. */
  ANIM_SIMD_AVX512      /* x86-64-v4: AVX-512 F, VL, DQ, BW and CD. */
} anim_simd;
anim_simd anim_simd_level(void);

/* Most morph targets a mesh or a clip's weight track may have. */
#define ANIM_MAX_MORPH_TARGETS 256u

#ifdef __cplusplus
}
#endif
#endif
