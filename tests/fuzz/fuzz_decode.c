/* fuzz: the asset decoders through fmt_decode, then the core jobs on what
 * they produce.
 *
 * One source, one program per Content-Type: FUZZ_CONTENT_TYPE is set at
 * compile time, so each program's corpus holds plain files of its format
 * (the shared assets seed them as they are). md5anim and BVH-onto-a-rig
 * inputs are decoded against a small fixed skeleton built once. When a
 * decode succeeds, every clip is sampled at ordinary and hostile times
 * (negative, huge, NaN, infinite) with every wrap mode, the poses go
 * through local-to-model and skinning matrices, and every mesh is skinned
 * with LBS and DQS: nothing may crash, hang, leak or trip UBSan. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animd/animd.h"
#include "core/skinning_internal.h"
#include "formats/bundle.h"

#ifndef FUZZ_CONTENT_TYPE
#error "FUZZ_CONTENT_TYPE must name the decoder's Content-Type"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Three joints: root, spine (child of root), head (child of spine). */
static const char fixed_md5mesh[] = "MD5Version 10\n"
                                    "commandline \"\"\n"
                                    "numJoints 3\n"
                                    "numMeshes 1\n"
                                    "joints {\n"
                                    "\t\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n"
                                    "\t\"spine\"\t0 ( 0 1 0 ) ( 0 0 0 )\n"
                                    "\t\"head\"\t1 ( 0 2 0 ) ( 0 0 0 )\n"
                                    "}\n"
                                    "mesh {\n"
                                    "\tshader \"skin\"\n"
                                    "\tnumverts 3\n"
                                    "\tvert 0 ( 0 0 ) 0 1\n"
                                    "\tvert 1 ( 0 0 ) 1 1\n"
                                    "\tvert 2 ( 0 0 ) 2 1\n"
                                    "\tnumtris 1\n"
                                    "\ttri 0 0 1 2\n"
                                    "\tnumweights 3\n"
                                    "\tweight 0 0 1 ( 1 0 0 )\n"
                                    "\tweight 1 1 1 ( 1 0 0 )\n"
                                    "\tweight 2 2 1 ( 1 0 0 )\n"
                                    "}\n";

static fmt_bundle_t fixed;
static int fixed_ready;

static const anim_skeleton_t *fixed_skeleton(void) {
  if (!fixed_ready) {
    fmt_error_t err;
    if (fmt_decode_md5mesh(fixed_md5mesh, sizeof fixed_md5mesh - 1, NULL,
                           &fixed, &err) != 0 ||
        fixed.skeleton_count != 1)
      abort();
    fixed_ready = 1;
  }
  return fixed.skeletons[0];
}

static const anim_skeleton_t *resolve(const char *id_or_name, void *user) {
  (void)user;
  const anim_skeleton_t *s = fixed_skeleton();
  return strcmp(id_or_name, s->name) == 0 || strcmp(id_or_name, "fixed") == 0
             ? s
             : NULL;
}

static const anim_skeleton_t *skeleton_of(const fmt_bundle_t *b,
                                          uint32_t index) {
  if (index == FMT_EXTERNAL_SKELETON) return fixed_skeleton();
  if (index >= b->skeleton_count) abort(); /* A decoder bug. */
  return b->skeletons[index];
}

typedef struct scratch_s {
  anim_vec3_t *t, *s;
  anim_quat_t *r;
  anim_mat4_t *model, *skin;
  uint32_t n;
} scratch_t;

static int scratch_init(scratch_t *w, uint32_t n) {
  memset(w, 0, sizeof *w);
  size_t m = n ? n : 1;
  w->t = calloc(m, sizeof *w->t);
  w->s = calloc(m, sizeof *w->s);
  w->r = calloc(m, sizeof *w->r);
  w->model = calloc(m, sizeof *w->model);
  w->skin = calloc(m, sizeof *w->skin);
  w->n = n;
  return w->t && w->s && w->r && w->model && w->skin ? 0 : -1;
}

static void scratch_free(scratch_t *w) {
  free(w->t);
  free(w->s);
  free(w->r);
  free(w->model);
  free(w->skin);
}

/* Pose, model matrices and skinning matrices of skeleton k in w. */
static void run_hierarchy(const anim_skeleton_t *k, scratch_t *w) {
  anim_local_to_model_job_t l2m = {0};
  l2m.skeleton = k;
  l2m.input.translation = w->t;
  l2m.input.rotation = w->r;
  l2m.input.scale = w->s;
  l2m.input.joint_count = k->joint_count;
  l2m.output = w->model;
  l2m.output_count = k->joint_count;
  if (anim_local_to_model_job_run(&l2m) != ANIM_OK) return;
  anim_skinning_matrices_job_t sm = {0};
  sm.skeleton = k;
  sm.model = w->model;
  sm.output = w->skin;
  sm.output_count = k->joint_count;
  (void)anim_skinning_matrices_job_run(&sm);
}

static void run_clip(const anim_clip_t *c, const anim_skeleton_t *k) {
  scratch_t w;
  if (scratch_init(&w, k->joint_count) == 0) {
    const float d = c->duration;
    const float times[] = {0.0f,   d * 0.5f, d,        d * 1.37f, -0.25f,
                           -1e30f, 1e30f,    NAN,      INFINITY,  -INFINITY,
                           3e38f,  1e-40f,   d + 1e-6f};
    uint32_t *cursors =
        calloc(c->track_count ? c->track_count : 1, sizeof *cursors);
    anim_sampling_context_t ctx;
    bool have_ctx =
        cursors != NULL &&
        anim_sampling_context_init(&ctx, c, cursors, c->track_count) == ANIM_OK;
    for (int wrap = 0; wrap < ANIM_WRAP_COUNT_; wrap++) {
      for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        float out_t = 0;
        anim_sampling_job_t job = {0};
        job.skeleton = k;
        job.clip = c;
        job.time = times[i];
        job.wrap = (anim_wrap)wrap;
        job.context = (i & 1) && have_ctx ? &ctx : NULL;
        job.output.translation = w.t;
        job.output.rotation = w.r;
        job.output.scale = w.s;
        job.output.joint_count = k->joint_count;
        job.sampled_time = &out_t;
        if (anim_sampling_job_run(&job) == ANIM_OK && i < 3)
          run_hierarchy(k, &w);
      }
    }
    free(cursors);
  }
  scratch_free(&w);
}

static void run_mesh(const anim_mesh_t *m, const anim_skeleton_t *k) {
  scratch_t w;
  if (scratch_init(&w, k->joint_count) != 0) {
    scratch_free(&w);
    return;
  }
  if (anim_pose_set_rest(k, &(anim_pose_t){w.t, w.r, w.s, k->joint_count}) ==
      ANIM_OK)
    run_hierarchy(k, &w);
  size_t nv = m->vertex_count ? m->vertex_count : 1;
  float *pos = calloc(3 * nv, sizeof *pos);
  float *nrm = calloc(3 * nv, sizeof *nrm);
  float *dqs =
      calloc(ANIM_DQS_SCRATCH_PER_MATRIX * (size_t)(w.n + 1), sizeof *dqs);
  if (pos && nrm && dqs) {
    for (int method = 0; method < 2; method++) {
      for (int normals = 0; normals < 3; normals++) {
        if (normals && m->normals == NULL) continue;
        anim_skinning_job_t job = {0};
        job.mesh = m;
        job.matrices = w.skin;
        job.matrix_count = k->joint_count;
        job.method = (anim_skin_method)method;
        job.normals = (anim_skin_normals)normals;
        job.out_positions = pos;
        job.out_positions_count = 3 * nv;
        job.out_normals = normals ? nrm : NULL;
        job.out_normals_count = normals ? 3 * nv : 0;
        job.scratch = dqs;
        job.scratch_count = ANIM_DQS_SCRATCH_PER_MATRIX * (size_t)(w.n + 1);
        (void)anim__skinning_job_run_isa(&job, normals == 1 ? ANIM__ISA_SCALAR
                                                            : anim__cpu_isa());
      }
    }
  }
  free(pos);
  free(nrm);
  free(dqs);
  scratch_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fmt_decode_options_t opts;
  memset(&opts, 0, sizeof opts);
  /* BVH reads motion onto an existing rig only when given one: inputs
   * whose size is 3 mod 4 do. */
  bool bvh = strcmp(FUZZ_CONTENT_TYPE, "application/x-bvh") == 0;
  opts.skeleton = !bvh || size % 4 == 3 ? fixed_skeleton() : NULL;
  opts.resolve = resolve;
  /* Small bounds keep single inputs fast; odd sizes try the BVH options. */
  opts.max_joints = 256;
  opts.max_keys = 1u << 16;
  opts.max_vertices = 1u << 16;
  if (size & 1) {
    opts.unit_scale = 0.01f;
    opts.z_up = true;
  }
  fmt_bundle_t b;
  memset(&b, 0, sizeof b);
  fmt_error_t err;
  memset(&err, 0, sizeof err);
  int rc = fmt_decode(FUZZ_CONTENT_TYPE, data, size, &opts, &b, &err);
  static int verbose = -1;
  if (verbose < 0) verbose = getenv("FUZZ_VERBOSE") != NULL;
  if (verbose)
    fprintf(stderr, "decode: %s at %s: %s\n", fmt_error_name(err.code), err.at,
            err.message);
  if (rc != 0) {
    /* A failure always says what and where, with a code of bad input (a
     * 4xx of the table). */
    int status = fmt_error_status(err.code);
    if (status < 400 || status > 499 || err.code >= FMT_ERR_COUNT_ ||
        memchr(err.message, '\0', sizeof err.message) == NULL ||
        memchr(err.at, '\0', sizeof err.at) == NULL)
      abort();
    if (b.skeleton_count || b.clip_count || b.mesh_count) abort();
    return 0;
  }
  for (size_t i = 0; i < b.clip_count; i++) {
    const anim_skeleton_t *k = skeleton_of(&b, b.clips[i].skeleton);
    if (b.clips[i].clip->joint_count != k->joint_count) abort();
    run_clip(b.clips[i].clip, k);
  }
  for (size_t i = 0; i < b.mesh_count; i++) {
    const anim_skeleton_t *k = skeleton_of(&b, b.meshes[i].skeleton);
    if (b.meshes[i].mesh->joint_count != k->joint_count) abort();
    run_mesh(b.meshes[i].mesh, k);
  }
  for (size_t i = 0; i < b.skeleton_count; i++) {
    scratch_t w;
    const anim_skeleton_t *k = b.skeletons[i];
    if (scratch_init(&w, k->joint_count) == 0 &&
        anim_pose_set_rest(k, &(anim_pose_t){w.t, w.r, w.s, k->joint_count}) ==
            ANIM_OK)
      run_hierarchy(k, &w);
    scratch_free(&w);
  }
  fmt_bundle_free(&b);
  return 0;
}
