/* The blending job against a joint-by-joint reference written here (the
 * job's documented rules, one joint at a time, in float) on random
 * skeletons, poses, weights (zero, below the threshold, large), masks
 * (with values outside [0, 1] and NaN), additive layers with and without
 * a reference pose, and outputs that alias a layer's pose; on every
 * instruction set the CPU has, the portable and AVX2 passes giving the
 * same bits. */
#include <check.h>

#include "core/blend_simd.h"
#include "core/cpu.h"
#include "test_skeleton_fixtures.h"

#define MAX_LAYERS 4
#define MAX_ADD 2

static anim_quat_t qmul(anim_quat_t a, anim_quat_t b) {
  anim_quat_t r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                   a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
  return r;
}

static float qdot(anim_quat_t a, anim_quat_t b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

static anim_quat_t qnorm(anim_quat_t q) {
  float l2 = qdot(q, q);
  if (!(l2 > 1e-24f)) return (anim_quat_t){0, 0, 0, 1};
  float k = 1.f / sqrtf(l2);
  return (anim_quat_t){q.x * k, q.y * k, q.z * k, q.w * k};
}

/* slerp(I, q, w) along the shortest arc. */
static anim_quat_t qpow(anim_quat_t q, float w) {
  if (q.w < 0.f) q = (anim_quat_t){-q.x, -q.y, -q.z, -q.w};
  float s = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
  if (!(s > 1e-12f)) return (anim_quat_t){0, 0, 0, 1};
  float h = atan2f(s, q.w) * w, k = sinf(h) / s;
  return (anim_quat_t){q.x * k, q.y * k, q.z * k, cosf(h)};
}

static float mweight(const anim_blend_layer_t *l, uint32_t j) {
  if (l->joint_weights == NULL) return l->weight;
  float m = l->joint_weights[j];
  if (!(m > 0.f)) m = 0.f;
  if (m > 1.f) m = 1.f;
  return l->weight * m;
}

static float ratio_or_1(float p, float r) {
  return fabsf(r) > 1e-12f ? p / r : 1.f;
}

/* Joint j of the blend, from the rules in animd/blend.h. */
static void reference_joint(const anim_blend_job_t *job, uint32_t j,
                            anim_vec3_t *ot, anim_quat_t *oq, anim_vec3_t *os) {
  const anim_skeleton_t *sk = job->skeleton;
  float th = job->threshold > 0.f ? job->threshold : 0.1f;
  anim_quat_t rest_q = qmul(sk->orient[j], sk->rest[j].rotation);
  anim_vec3_t t = {0, 0, 0}, s = {0, 0, 0};
  anim_quat_t q = {0, 0, 0, 0}, first = {0, 0, 0, 0};
  bool have = false;
  float total = 0.f;
  for (size_t i = 0; i <= job->layer_count; i++) {
    bool rest = i == job->layer_count;
    float w = rest ? th - total : mweight(&job->layers[i], j);
    if (!(w > 0.f)) continue;
    anim_vec3_t lt =
        rest ? sk->rest[j].translation : job->layers[i].pose.translation[j];
    anim_vec3_t ls = rest ? sk->rest[j].scale : job->layers[i].pose.scale[j];
    anim_quat_t lq = rest ? rest_q : job->layers[i].pose.rotation[j];
    float sw = w;
    if (!have) {
      first = lq;
      have = true;
    } else if (qdot(first, lq) < 0.f) {
      sw = -w;
    }
    t.x += w * lt.x;
    t.y += w * lt.y;
    t.z += w * lt.z;
    s.x += w * ls.x;
    s.y += w * ls.y;
    s.z += w * ls.z;
    q.x += sw * lq.x;
    q.y += sw * lq.y;
    q.z += sw * lq.z;
    q.w += sw * lq.w;
    total += w;
  }
  t = (anim_vec3_t){t.x / total, t.y / total, t.z / total};
  s = (anim_vec3_t){s.x / total, s.y / total, s.z / total};
  q = qnorm(q);
  for (size_t i = 0; i < job->additive_count; i++) {
    const anim_blend_layer_t *l = &job->additive_layers[i];
    float w = mweight(l, j);
    if (!(w > 0.f)) continue;
    bool ref = l->reference.translation != NULL;
    anim_vec3_t pt = l->pose.translation[j], ps = l->pose.scale[j];
    anim_vec3_t rt =
        ref ? l->reference.translation[j] : sk->rest[j].translation;
    anim_vec3_t rs = ref ? l->reference.scale[j] : sk->rest[j].scale;
    anim_quat_t rq = ref ? l->reference.rotation[j] : rest_q;
    t.x += w * (pt.x - rt.x);
    t.y += w * (pt.y - rt.y);
    t.z += w * (pt.z - rt.z);
    anim_quat_t rc = {-rq.x, -rq.y, -rq.z, rq.w};
    anim_quat_t d = qnorm(qmul(l->pose.rotation[j], rc));
    q = qnorm(qmul(qpow(d, w), q));
    s.x *= 1.f + (ratio_or_1(ps.x, rs.x) - 1.f) * w;
    s.y *= 1.f + (ratio_or_1(ps.y, rs.y) - 1.f) * w;
    s.z *= 1.f + (ratio_or_1(ps.z, rs.z) - 1.f) * w;
  }
  *ot = t;
  *oq = q;
  *os = s;
}

typedef struct pose_buf_s {
  anim_vec3_t *t, *s;
  anim_quat_t *q;
} pose_buf_t;

static pose_buf_t pose_new(uint32_t n) {
  pose_buf_t p = {malloc(n * sizeof(anim_vec3_t)),
                  malloc(n * sizeof(anim_vec3_t)),
                  malloc(n * sizeof(anim_quat_t))};
  return p;
}

static void pose_free(pose_buf_t *p) {
  free(p->t);
  free(p->s);
  free(p->q);
}

static void pose_random(pose_buf_t *p, uint32_t n, tf_rng_t *r) {
  for (uint32_t j = 0; j < n; j++) {
    p->t[j] = (anim_vec3_t){tf_range(r, -2, 2), tf_range(r, -2, 2),
                            tf_range(r, -2, 2)};
    p->s[j] = (anim_vec3_t){tf_range(r, 0.5f, 2), tf_range(r, 0.5f, 2),
                            tf_range(r, 0.5f, 2)};
    p->q[j] = tf_rand_quat(r);
  }
}

static anim_pose_t view(pose_buf_t *p, uint32_t n) {
  anim_pose_t v = {p->t, p->q, p->s, n};
  return v;
}

/* 0, below the threshold, around 1, or large. */
static float random_weight(tf_rng_t *r) {
  switch (tf_next(r) % 5) {
  case 0: return 0.f;
  case 1: return tf_range(r, 0.f, 0.1f);
  case 2: return tf_range(r, 0.5f, 1.5f);
  case 3: return tf_range(r, 1.f, 20.f);
  default: return tf_range(r, 0.f, 1.f);
  }
}

/* Mostly in [0, 1]; some 0, some outside, some NaN. */
static void random_mask(float *m, uint32_t n, tf_rng_t *r) {
  for (uint32_t j = 0; j < n; j++) {
    uint64_t k = tf_next(r) % 10;
    m[j] = k == 0   ? 0.f
           : k == 1 ? tf_range(r, -1.f, 0.f)
           : k == 2 ? tf_range(r, 1.f, 3.f)
           : k == 3 ? NAN
                    : tf_range(r, 0.f, 1.f);
  }
}

static float close_tol(float want) { return 1e-6f * fmaxf(1.f, fabsf(want)); }

/* Random jobs on skeletons of 1 to 200 joints (partial and several
 * 64-joint chunks). */
START_TEST(test_random_against_reference) {
  tf_rng_t rng = {0x9e3779b97f4a7c15ull};
  const uint32_t sizes[] = {1, 3, 8, 9, 64, 67, 130, 200};
  int checked = 0;
  for (int round = 0; round < 240; round++) {
    uint32_t n = sizes[round % 8];
    tf_tree_t tree;
    tf_tree_make(&tree, n, &rng, 1);
    for (uint32_t j = 0; j < n; j++)
      if (tf_next(&rng) % 3 == 0) tree.joints[j].orient = tf_rand_quat(&rng);
    anim_raw_skeleton_t raw = {.joints = tree.joints, .joint_count = n};
    anim_skeleton_t *sk = NULL;
    ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &sk, NULL), ANIM_OK);

    pose_buf_t lp[MAX_LAYERS], ap[MAX_ADD], rp[MAX_ADD], out, ref;
    float masks[MAX_LAYERS + MAX_ADD][200];
    anim_blend_layer_t layers[MAX_LAYERS], adds[MAX_ADD];
    memset(layers, 0, sizeof layers);
    memset(adds, 0, sizeof adds);
    size_t nl = (size_t)(tf_next(&rng) % (MAX_LAYERS + 1));
    size_t na = (size_t)(tf_next(&rng) % (MAX_ADD + 1));
    for (size_t i = 0; i < MAX_LAYERS; i++) {
      lp[i] = pose_new(n);
      pose_random(&lp[i], n, &rng);
      layers[i].pose = view(&lp[i], n);
      layers[i].weight = random_weight(&rng);
      if (tf_next(&rng) % 3 == 0) {
        random_mask(masks[i], n, &rng);
        layers[i].joint_weights = masks[i];
      }
    }
    for (size_t i = 0; i < MAX_ADD; i++) {
      ap[i] = pose_new(n);
      rp[i] = pose_new(n);
      pose_random(&ap[i], n, &rng);
      pose_random(&rp[i], n, &rng);
      adds[i].pose = view(&ap[i], n);
      adds[i].weight = random_weight(&rng) * 0.1f;
      if (tf_next(&rng) % 2) adds[i].reference = view(&rp[i], n);
      if (tf_next(&rng) % 3 == 0) {
        random_mask(masks[MAX_LAYERS + i], n, &rng);
        adds[i].joint_weights = masks[MAX_LAYERS + i];
      }
    }
    out = pose_new(n);
    ref = pose_new(n);
    anim_blend_job_t job = {
        .skeleton = sk,
        .layers = layers,
        .layer_count = nl,
        .additive_layers = adds,
        .additive_count = na,
        .threshold = tf_next(&rng) % 2 ? 0.f : tf_range(&rng, 0.f, 2.f),
        .output = view(&out, n)};
    for (uint32_t j = 0; j < n; j++)
      reference_joint(&job, j, &ref.t[j], &ref.q[j], &ref.s[j]);
    /* Where the output goes: its own arrays, or a layer's pose (saved
     * and restored around each run). */
    int alias = (int)(tf_next(&rng) % 3);
    pose_buf_t *target = alias == 1 && nl > 0   ? &lp[0]
                         : alias == 2 && na > 0 ? &ap[na - 1]
                                                : &out;
    pose_buf_t saved = pose_new(n);
    memcpy(saved.t, target->t, n * sizeof(anim_vec3_t));
    memcpy(saved.s, target->s, n * sizeof(anim_vec3_t));
    memcpy(saved.q, target->q, n * sizeof(anim_quat_t));
    job.output = view(target, n);
    pose_buf_t first_run = pose_new(n);
    for (int isa = ANIM__ISA_SCALAR; isa <= (int)anim__cpu_isa(); isa++) {
      memcpy(target->t, saved.t, n * sizeof(anim_vec3_t));
      memcpy(target->s, saved.s, n * sizeof(anim_vec3_t));
      memcpy(target->q, saved.q, n * sizeof(anim_quat_t));
      ck_assert_int_eq(anim__blend_job_run_isa(&job, (anim__isa)isa), ANIM_OK);
      for (uint32_t j = 0; j < n; j++) {
        const float *g = &target->t[j].x, *w = &ref.t[j].x;
        const float *gs = &target->s[j].x, *ws = &ref.s[j].x;
        const float *gq = &target->q[j].x, *wq = &ref.q[j].x;
        for (int c = 0; c < 3; c++) {
          ck_assert_msg(fabsf(g[c] - w[c]) <= close_tol(w[c]),
                        "round %d isa %d joint %u t[%d]: %.9g vs %.9g", round,
                        isa, j, c, g[c], w[c]);
          ck_assert_msg(fabsf(gs[c] - ws[c]) <= close_tol(ws[c]),
                        "round %d isa %d joint %u s[%d]: %.9g vs %.9g", round,
                        isa, j, c, gs[c], ws[c]);
        }
        for (int c = 0; c < 4; c++)
          ck_assert_msg(fabsf(gq[c] - wq[c]) <= 1e-6f,
                        "round %d isa %d joint %u q[%d]: %.9g vs %.9g", round,
                        isa, j, c, gq[c], wq[c]);
      }
      if (isa == ANIM__ISA_SCALAR) {
        memcpy(first_run.t, target->t, n * sizeof(anim_vec3_t));
        memcpy(first_run.s, target->s, n * sizeof(anim_vec3_t));
        memcpy(first_run.q, target->q, n * sizeof(anim_quat_t));
      } else { /* The same bits on every instruction set. */
        ck_assert(memcmp(first_run.t, target->t, n * sizeof(anim_vec3_t)) == 0);
        ck_assert(memcmp(first_run.s, target->s, n * sizeof(anim_vec3_t)) == 0);
        ck_assert(memcmp(first_run.q, target->q, n * sizeof(anim_quat_t)) == 0);
      }
      checked++;
    }
    pose_free(&first_run);
    pose_free(&saved);
    pose_free(&out);
    pose_free(&ref);
    for (size_t i = 0; i < MAX_LAYERS; i++) pose_free(&lp[i]);
    for (size_t i = 0; i < MAX_ADD; i++) {
      pose_free(&ap[i]);
      pose_free(&rp[i]);
    }
    anim_skeleton_free(sk);
    tf_tree_free(&tree);
  }
  ck_assert_int_ge(checked, 240);
}
END_TEST

Suite *blend_reference_suite(void) {
  Suite *s = suite_create("blend_reference");
  TCase *tc = tcase_create("random");
  tcase_add_test(tc, test_random_against_reference);
  suite_add_tcase(s, tc);
  return s;
}
