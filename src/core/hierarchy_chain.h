/* animd core (private): the dependent step of local-to-model, shared by the
 * AVX2 and AVX-512 kernels.
 *
 * M_model[j] = P * L, with P the parent's model matrix (in four column
 * registers) and L the joint's local matrix given as 12 floats in memory
 * (columns 0..2 of the scaled rotation, then the translation; the fourth
 * row is implied). Key design choice: this is the only part of the job
 * that waits for the previous joint, so it is kept short. L's entries are
 * broadcast straight from memory (loads, no shuffles), the three products
 * of a column are summed as a tree (a multiply, a fused multiply-add and
 * an add deep instead of three chained steps). The AVX-512 kernel keeps
 * the result in registers for the next joint when that joint is its child
 * (chain_parent); the AVX2 kernel reads every parent back from the output.
 * Include only from files compiled with AVX2 and FMA. */
#ifndef ANIMD_CORE_HIERARCHY_CHAIN_H
#define ANIMD_CORE_HIERARCHY_CHAIN_H

#include <immintrin.h>
#include <stddef.h>

#include "animd/hierarchy.h"

typedef struct chain_mat_s {
  __m128 c0, c1, c2, c3;
} chain_mat_t;

static inline __attribute__((always_inline)) chain_mat_t
chain_load(const float *m) {
  chain_mat_t r = {_mm_loadu_ps(m), _mm_loadu_ps(m + 4), _mm_loadu_ps(m + 8),
                   _mm_loadu_ps(m + 12)};
  return r;
}

static inline __attribute__((always_inline)) void chain_store(float *m,
                                                              chain_mat_t a) {
  _mm_storeu_ps(m, a.c0);
  _mm_storeu_ps(m + 4, a.c1);
  _mm_storeu_ps(m + 8, a.c2);
  _mm_storeu_ps(m + 12, a.c3);
}

static inline __attribute__((always_inline)) chain_mat_t chain_identity(void) {
  chain_mat_t r = {_mm_setr_ps(1, 0, 0, 0), _mm_setr_ps(0, 1, 0, 0),
                   _mm_setr_ps(0, 0, 1, 0), _mm_setr_ps(0, 0, 0, 1)};
  return r;
}

/* p * L, with L's 12 entries each broadcast over a register. With p the
 * identity the result is L exactly (every product by 0 or 1 is exact). */
static inline __attribute__((always_inline)) chain_mat_t
chain_mul(chain_mat_t p, const __m128 *e) {
  chain_mat_t r;
  r.c0 = _mm_add_ps(_mm_fmadd_ps(p.c0, e[0], _mm_mul_ps(p.c1, e[1])),
                    _mm_mul_ps(p.c2, e[2]));
  r.c1 = _mm_add_ps(_mm_fmadd_ps(p.c0, e[3], _mm_mul_ps(p.c1, e[4])),
                    _mm_mul_ps(p.c2, e[5]));
  r.c2 = _mm_add_ps(_mm_fmadd_ps(p.c0, e[6], _mm_mul_ps(p.c1, e[7])),
                    _mm_mul_ps(p.c2, e[8]));
  r.c3 = _mm_add_ps(_mm_fmadd_ps(p.c0, e[9], p.c3),
                    _mm_fmadd_ps(p.c1, e[10], _mm_mul_ps(p.c2, e[11])));
  return r;
}

/* The parent matrix of joint j: the registers of j - 1 when that is the
 * parent and was computed in this run (j > from), else from memory (an
 * earlier joint, or the root transform, or the identity). */
static inline __attribute__((always_inline)) chain_mat_t
chain_parent(int p, uint32_t j, uint32_t from, chain_mat_t prev,
             const anim_mat4_t *root, const anim_mat4_t *out) {
  if (p >= 0)
    return (uint32_t)p + 1 == j && j > from ? prev : chain_load(out[p].m);
  return root != NULL ? chain_load(root->m) : chain_identity();
}

#endif
