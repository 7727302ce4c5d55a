/* Tests for the shared key grid of a clip (clip_grid.c, sampling_grid.c,
 * sampling_avx512.c): which tracks go on it, that a joint sampled on the
 * grid gets the same floats bit for bit as when its track is sampled on
 * its own, and that the AVX2 and AVX-512 kernels give the scalar kernel's
 * floats bit for bit, on random trees with joints missing from paths (blocks
 * with gaps), partial blocks, keys far apart (the closed-form slerp) and
 * opposite (the shortest path), times on keys, between keys and outside
 * the clip, with and without joint orient. */
#include <check.h>

#include "core/clip_grid.h"
#include "test_skeleton_fixtures.h"

#define KEYS 31

typedef struct grid_case_s {
  tf_tree_t tree;
  anim_skeleton_t *sk;
  anim_raw_track_t *tracks;
  size_t track_count;
  float times[KEYS], other_times[2];
  float *values;
} grid_case_t;

/* n joints; joint i gets a translation track unless i % 3 == 1, a rotation
 * track unless i % 5 == 4 and a scale track when i % 2 == 0 (with full, all
 * three: blocks of consecutive joints), all LINEAR on one 30 fps grid. Rotation
 * keys take random steps of every size, some wider than 90 degrees, some
 * flipped in sign. */
static void grid_case_make(grid_case_t *g, uint32_t n, uint64_t seed,
                           bool orient, bool full) {
  tf_rng_t rng = {seed};
  tf_tree_make(&g->tree, n, &rng, 2);
  if (orient)
    for (uint32_t i = 0; i < n; i++)
      g->tree.joints[i].orient = tf_rand_quat(&rng);
  anim_raw_skeleton_t raw = {.joints = g->tree.joints, .joint_count = n};
  ck_assert_int_eq(anim_skeleton_build(&raw, NULL, &g->sk, NULL), ANIM_OK);
  for (int k = 0; k < KEYS; k++) g->times[k] = (float)k / 30.f;
  g->other_times[0] = 0.f;
  g->other_times[1] = 5.f;
  g->tracks = calloc(3 * (size_t)n + 1, sizeof *g->tracks);
  g->values = malloc(3 * (size_t)n * KEYS * 4 * sizeof(float));
  g->track_count = 0;
  float *v = g->values;
  for (uint32_t i = 0; i < n; i++) {
    for (int p = 0; p < 3; p++) {
      if (!full && ((p == 0 && i % 3 == 1) || (p == 1 && i % 5 == 4) ||
                    (p == 2 && i % 2 != 0)))
        continue;
      const int c = p == ANIM_PATH_ROTATION ? 4 : 3;
      anim_quat_t q = tf_rand_quat(&rng);
      for (int k = 0; k < KEYS; k++) {
        if (c == 4) {
          if (k % 7 == 3) q = tf_rand_quat(&rng);  /* A wide step. */
          const float s = k % 5 == 2 ? -1.f : 1.f; /* Opposite sign. */
          v[4 * k] = s * q.x, v[4 * k + 1] = s * q.y;
          v[4 * k + 2] = s * q.z, v[4 * k + 3] = s * q.w;
          /* A turn of random size for the next key, so that the slerp
           * uses every number of series terms. */
          const float amp = tf_range(&rng, 0.f, 0.45f);
          anim_quat_t d = {tf_range(&rng, -amp, amp), tf_range(&rng, -amp, amp),
                           tf_range(&rng, -amp, amp), 1.f};
          anim_quat_t r = {q.w * d.x + q.x * d.w + q.y * d.z - q.z * d.y,
                           q.w * d.y - q.x * d.z + q.y * d.w + q.z * d.x,
                           q.w * d.z + q.x * d.y - q.y * d.x + q.z * d.w,
                           q.w * d.w - q.x * d.x - q.y * d.y - q.z * d.z};
          float l = sqrtf(r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w);
          q = (anim_quat_t){r.x / l, r.y / l, r.z / l, r.w / l};
        } else {
          for (int e = 0; e < 3; e++) v[3 * k + e] = tf_range(&rng, -2.f, 2.f);
        }
      }
      g->tracks[g->track_count++] = (anim_raw_track_t){i,
                                                       (anim_path)p,
                                                       ANIM_INTERP_LINEAR,
                                                       g->times,
                                                       KEYS,
                                                       v,
                                                       (size_t)KEYS * c,
                                                       NULL};
      v += KEYS * c;
    }
  }
}

static void grid_case_free(grid_case_t *g) {
  anim_skeleton_free(g->sk);
  tf_tree_free(&g->tree);
  free(g->tracks);
  free(g->values);
}

static anim_clip_t *build(const anim_skeleton_t *sk,
                          const anim_raw_track_t *tracks, size_t n) {
  anim_raw_clip_t raw = {"grid", tracks, n, 0.f, NULL, 0, NULL, 0};
  anim_clip_t *c = NULL;
  anim_build_error_t err;
  anim_result r = anim_clip_build(&raw, sk, NULL, &c, &err);
  ck_assert_msg(r == ANIM_OK, "%s", err.message);
  return c;
}

typedef struct pose_buf_s {
  anim_vec3_t *t, *s;
  anim_quat_t *q;
  uint32_t n;
} pose_buf_t;

static void pose_buf_init(pose_buf_t *p, uint32_t n) {
  p->t = malloc(n * sizeof *p->t);
  p->s = malloc(n * sizeof *p->s);
  p->q = malloc(n * sizeof *p->q);
  p->n = n;
}

static void pose_buf_free(pose_buf_t *p) {
  free(p->t);
  free(p->s);
  free(p->q);
}

static void sample(const anim_skeleton_t *sk, const anim_clip_t *c, double t,
                   anim__isa isa, pose_buf_t *p) {
  /* Garbage first: every joint must be written. */
  memset(p->t, 0x7f, p->n * sizeof *p->t);
  memset(p->s, 0x7f, p->n * sizeof *p->s);
  memset(p->q, 0x7f, p->n * sizeof *p->q);
  anim_sampling_job_t job = {
      .skeleton = sk, .clip = c, .time = t, .output = {p->t, p->q, p->s, p->n}};
  ck_assert_int_eq(anim__sampling_job_run_isa(&job, isa), ANIM_OK);
}

static const double g_times[] = {-1.0,  0.0,    1.0 / 30, 0.0123, 0.101,
                                 0.25,  0.3333, 0.5,      0.61,   0.75,
                                 0.999, 1.0,    1.5};

/* Which tracks are on the grid: every LINEAR track on the shared times;
 * a clip whose first LINEAR track has other times keeps the rest off. */
START_TEST(test_grid_membership) {
  grid_case_t g;
  grid_case_make(&g, 50, 7, false, false);
  anim_clip_t *c = build(g.sk, g.tracks, g.track_count);
  ck_assert_ptr_nonnull(c->_grid);
  const anim__grid_t *gr = c->_grid;
  ck_assert_uint_eq(gr->path[0].count + gr->path[1].count + gr->path[2].count,
                    g.track_count);
  ck_assert_uint_eq(c->_other_count, 0);
  /* The memory figure covers the keys twice (track- and key-major). */
  size_t floats = 0;
  for (size_t i = 0; i < g.track_count; i++) floats += g.tracks[i].value_count;
  ck_assert_uint_ge(anim_clip_memory(c), 2 * floats * sizeof(float));
  ck_assert_uint_eq(anim_clip_memory(NULL), 0);
  /* Times are stored once for the whole run of tracks. */
  for (uint32_t i = 1; i < c->track_count; i++)
    ck_assert_ptr_eq(c->tracks[i].times, c->tracks[0].times);
  anim_clip_free(c);
  /* A STEP track stays off; the root's translation track on other times
   * becomes the grid alone. */
  const uint32_t root = g.sk->to_caller[0];
  size_t n = 0;
  for (size_t i = 0; i < g.track_count; i++)
    if (!(g.tracks[i].joint == root && g.tracks[i].path == 0))
      g.tracks[n++] = g.tracks[i];
  const float two[6] = {0, 0, 0, 1, 1, 1};
  g.tracks[n++] = (anim_raw_track_t){
      root, ANIM_PATH_TRANSLATION, ANIM_INTERP_LINEAR, g.other_times, 2, two, 6,
      NULL};
  c = build(g.sk, g.tracks, n);
  gr = c->_grid;
  ck_assert_ptr_nonnull(gr);
  ck_assert_uint_eq(gr->path[0].count, 1);
  ck_assert_uint_eq(gr->path[1].count + gr->path[2].count, 0);
  ck_assert_uint_eq(c->_other_count, n - 1);
  anim_clip_free(c);
  grid_case_free(&g);
}
END_TEST

/* Grid joints against the same tracks sampled one by one (kept off the
 * grid by a first LINEAR track on other times), and the AVX2 and AVX-512
 * kernels against the scalar one: identical floats. */
START_TEST(test_grid_bit_exact) {
  const uint32_t sizes[] = {1, 16, 17, 50, 300};
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
    for (int variant = 0; variant < 4; variant++) {
      const bool orient = variant & 1, full = variant & 2;
      const uint32_t n = sizes[z];
      grid_case_t g;
      grid_case_make(&g, n, 11 + z, orient, full);
      const uint32_t root = g.sk->to_caller[0];
      /* Off-grid variant: the root's translation moves to other times. */
      anim_raw_track_t *off = malloc((g.track_count + 1) * sizeof *off);
      size_t m = 0;
      for (size_t i = 0; i < g.track_count; i++)
        if (!(g.tracks[i].joint == root && g.tracks[i].path == 0))
          off[m++] = g.tracks[i];
      const float two[6] = {0, 0, 0, 1, 1, 1};
      off[m++] = (anim_raw_track_t){root,
                                    ANIM_PATH_TRANSLATION,
                                    ANIM_INTERP_LINEAR,
                                    g.other_times,
                                    2,
                                    two,
                                    6,
                                    NULL};
      anim_clip_t *on = build(g.sk, g.tracks, g.track_count);
      anim_clip_t *apart = build(g.sk, off, m);
      ck_assert_uint_eq(apart->_other_count, m - 1);
      pose_buf_t a, b, s, v;
      pose_buf_init(&a, n);
      pose_buf_init(&b, n);
      pose_buf_init(&s, n);
      pose_buf_init(&v, n);
      for (size_t i = 0; i < sizeof g_times / sizeof g_times[0]; i++) {
        sample(g.sk, on, g_times[i], ANIM__ISA_SCALAR, &s);
        sample(g.sk, on, g_times[i], ANIM__ISA_AVX2, &v);
        sample(g.sk, on, g_times[i], ANIM__ISA_AVX512, &a);
        sample(g.sk, apart, g_times[i], ANIM__ISA_AVX512, &b);
        ck_assert_mem_eq(v.q, s.q, n * sizeof *v.q);
        ck_assert_mem_eq(v.s, s.s, n * sizeof *v.s);
        ck_assert_mem_eq(v.t, s.t, n * sizeof *v.t);
        ck_assert_mem_eq(a.q, s.q, n * sizeof *a.q);
        ck_assert_mem_eq(a.s, s.s, n * sizeof *a.s);
        ck_assert_mem_eq(a.t, s.t, n * sizeof *a.t);
        ck_assert_mem_eq(a.q, b.q, n * sizeof *a.q);
        ck_assert_mem_eq(a.s, b.s, n * sizeof *a.s);
        for (uint32_t j = 1; j < n; j++) /* Storage 0: the moved track. */
          ck_assert_mem_eq(&a.t[j], &b.t[j], sizeof a.t[j]);
      }
      pose_buf_free(&a);
      pose_buf_free(&b);
      pose_buf_free(&s);
      pose_buf_free(&v);
      anim_clip_free(on);
      anim_clip_free(apart);
      free(off);
      grid_case_free(&g);
    }
  }
}
END_TEST

/* The grid's rotations against the closed-form slerp in double, keys far
 * apart and opposite included. */
START_TEST(test_grid_slerp_reference) {
  grid_case_t g;
  grid_case_make(&g, 40, 23, false, true);
  anim_clip_t *c = build(g.sk, g.tracks, g.track_count);
  pose_buf_t p;
  pose_buf_init(&p, 40);
  for (int isa = ANIM__ISA_SCALAR; isa <= ANIM__ISA_AVX512; isa++) {
    for (int step = 0; step < 90; step++) {
      const double t = step / 90.0;
      sample(g.sk, c, t, (anim__isa)isa, &p);
      const double f = t * 30.0;
      const int k = (int)f < KEYS - 1 ? (int)f : KEYS - 2;
      /* The sampler's clip time is a float. */
      const double u = ((double)(float)t - g.times[k]) /
                       ((double)g.times[k + 1] - g.times[k]);
      for (size_t i = 0; i < g.track_count; i++) {
        const anim_raw_track_t *tr = &g.tracks[i];
        if (tr->path != ANIM_PATH_ROTATION) continue;
        double qa[4], qb[4], dot = 0;
        for (int e = 0; e < 4; e++) {
          qa[e] = tr->values[4 * k + e];
          qb[e] = tr->values[4 * k + 4 + e];
          dot += qa[e] * qb[e];
        }
        if (dot < 0) {
          for (int e = 0; e < 4; e++) qb[e] = -qb[e];
          dot = -dot;
        }
        if (dot > 1) dot = 1;
        const double th = acos(dot);
        const double w0 = th < 1e-9 ? 1 - u : sin((1 - u) * th) / sin(th);
        const double w1 = th < 1e-9 ? u : sin(u * th) / sin(th);
        double want[4];
        for (int e = 0; e < 4; e++) want[e] = w0 * qa[e] + w1 * qb[e];
        const uint32_t j = g.sk->from_caller[tr->joint];
        ck_assert_msg(tf_quat_dist(p.q[j], want) <= 2e-6,
                      "isa %d t=%g joint %u: %g", isa, t, j,
                      tf_quat_dist(p.q[j], want));
      }
    }
  }
  pose_buf_free(&p);
  anim_clip_free(c);
  grid_case_free(&g);
}
END_TEST

Suite *sampling_grid_suite(void) {
  Suite *s = suite_create("sampling_grid");
  TCase *tc = tcase_create("grid");
  tcase_add_test(tc, test_grid_membership);
  tcase_add_test(tc, test_grid_bit_exact);
  tcase_add_test(tc, test_grid_slerp_reference);
  suite_add_tcase(s, tc);
  return s;
}
