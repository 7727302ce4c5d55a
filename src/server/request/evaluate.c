/* server: the evaluation pipeline and its scratch (evaluate.h). */
#include "server/request/evaluate.h"

#include "server/errors.h"
#include "server/request/fields.h"
#include "server/request/morph.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- scratch ---------------------------------------------------------------
 */

void srv_eval_scratch_free(srv_eval_scratch_t *s) {
  free(s->_pose.translation);
  free(s->_pose.rotation);
  free(s->_pose.scale);
  free(s->_layer_t);
  free(s->_layer_r);
  free(s->_layer_s);
  free(s->_blend);
  free(s->_model);
  free(s->_skin);
  free(s->_full);
  free(s->_dqs);
  free(s->_answer);
  free(s->_extra);
  free(s->_staged);
  free(s->_cursors);
  free(s->_morph);
  memset(s, 0, sizeof *s);
}

/* realloc that leaves *p alone on failure. */
static bool grow(void *pp, size_t bytes) {
  void **p = pp;
  void *q = realloc(*p, bytes ? bytes : 1);
  if (q == NULL) return false;
  *p = q;
  return true;
}

/* Sizes growing in steps, so a few different skeletons do not realloc on
 * every call. */
static size_t round_up(size_t n) { return n < 64 ? 64 : n; }

static bool reserve_joints(srv_eval_scratch_t *s, uint32_t joints) {
  if (joints <= s->_joints) return true;
  size_t n = round_up(joints);
  if (!grow(&s->_pose.translation, n * sizeof(anim_vec3_t)) ||
      !grow(&s->_pose.rotation, n * sizeof(anim_quat_t)) ||
      !grow(&s->_pose.scale, n * sizeof(anim_vec3_t)) ||
      !grow(&s->_model, n * sizeof(anim_mat4_t)) ||
      !grow(&s->_skin, n * sizeof(anim_mat4_t)) ||
      !grow(&s->_full, 16 * n * sizeof(float)) ||
      !grow(&s->_dqs, 8 * n * sizeof(float)))
    return false;
  s->_joints = (uint32_t)n;
  /* Layer poses are sized by joints too. */
  s->_layers = 0;
  return true;
}

static bool reserve_tracks(srv_eval_scratch_t *s, uint32_t tracks) {
  if (tracks <= s->_tracks) return true;
  size_t n = round_up(tracks);
  if (!grow(&s->_cursors, n * sizeof(uint32_t))) return false;
  s->_tracks = (uint32_t)n;
  s->_ctx_bound = false; /* The context pointed at the old cursors. */
  return true;
}

static bool reserve_layers(srv_eval_scratch_t *s, size_t layers) {
  if (layers <= s->_layers) return true;
  size_t n = (size_t)s->_joints * layers;
  if (!grow(&s->_layer_t, n * sizeof(anim_vec3_t)) ||
      !grow(&s->_layer_r, n * sizeof(anim_quat_t)) ||
      !grow(&s->_layer_s, n * sizeof(anim_vec3_t)) ||
      !grow(&s->_blend, 2 * layers * sizeof(anim_blend_layer_t)) ||
      !grow(&s->_staged, layers * sizeof(srv_eval_layer_t)))
    return false;
  s->_layers = layers;
  return true;
}

float *srv_eval_scratch_output(srv_eval_scratch_t *s, size_t count) {
  if (count > s->_out || s->_answer == NULL) {
    if (!grow(&s->_answer, count * sizeof(float))) return NULL;
    s->_out = count;
  }
  return s->_answer;
}

/* One scratch per thread, freed by the key's destructor when the thread
 * ends. */
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_destroy(void *p) {
  srv_eval_scratch_free(p);
  free(p);
}

static void scratch_key_init(void) {
  pthread_key_create(&scratch_key, scratch_destroy);
}

srv_eval_scratch_t *srv_eval_scratch_thread(void) {
  pthread_once(&scratch_once, scratch_key_init);
  srv_eval_scratch_t *s = pthread_getspecific(scratch_key);
  if (s == NULL) {
    s = calloc(1, sizeof *s);
    if (s == NULL || pthread_setspecific(scratch_key, s) != 0) {
      free(s);
      return NULL;
    }
  }
  s->_ctx_bound = false;
  return s;
}

/* ---- counts
 * ------------------------------------------------------------------ */

size_t srv_pose_float_count(fmt_space space, uint32_t joints) {
  return (size_t)joints * (space == FMT_SPACE_LOCAL ? 10 : 16);
}

uint32_t srv_eval_element_count(const srv_eval_job_t *job) {
  if (job->mesh != NULL) return job->mesh->vertex_count;
  return job->joints != NULL ? job->joint_count : job->skeleton->joint_count;
}

size_t srv_eval_answer_count(const srv_eval_job_t *job) {
  return job->fields != NULL ? srv_fields_answer_floats(job->fields) : 0;
}

size_t srv_eval_float_count(const srv_eval_job_t *job) {
  size_t n = srv_eval_element_count(job);
  if (job->mesh != NULL) return n * (job->normals != ANIM_NORMALS_NONE ? 6 : 3);
  return srv_pose_float_count(job->space, (uint32_t)n);
}

/* ---- the stages
 * ---------------------------------------------------------------- */

/* One clip into s->_pose, through the scratch's sampling context. */
static anim_result sample(const srv_eval_job_t *job, srv_eval_scratch_t *s,
                          float *sampled) {
  const anim_skeleton_t *sk = job->skeleton;
  if (job->clip == NULL) {
    *sampled = 0.0f;
    return anim_pose_set_rest(sk, &s->_pose);
  }
  if (!s->_ctx_bound || s->_ctx.clip != job->clip) {
    if (!reserve_tracks(s, job->clip->track_count))
      return ANIM_ERR_OUT_OF_MEMORY;
    s->_ctx_bound = anim_sampling_context_init(&s->_ctx, job->clip, s->_cursors,
                                               s->_tracks) == ANIM_OK;
  }
  anim_sampling_job_t sj = {
      .skeleton = sk,
      .clip = job->clip,
      .time = job->t,
      .wrap = job->wrap,
      .context = s->_ctx_bound ? &s->_ctx : NULL,
      .output = s->_pose,
      .sampled_time = sampled,
  };
  return anim_sampling_job_run(&sj);
}

/* The layers, each sampled into its own pose, blended into s->_pose. */
static anim_result blend(const anim_skeleton_t *sk,
                         const srv_eval_layer_t *layers, size_t count,
                         srv_eval_scratch_t *s, float *sampled) {
  uint32_t n = sk->joint_count;
  if (!reserve_layers(s, count)) return ANIM_ERR_OUT_OF_MEMORY;
  anim_blend_layer_t *normal = s->_blend, *additive = s->_blend + count;
  size_t nn = 0, na = 0;
  for (size_t i = 0; i < count; i++) {
    const srv_eval_layer_t *l = &layers[i];
    size_t at = i * (size_t)s->_joints;
    anim_pose_t pose = {s->_layer_t + at, s->_layer_r + at, s->_layer_s + at,
                        n};
    float t = 0;
    anim_sampling_job_t sj = {.skeleton = sk,
                              .clip = l->clip,
                              .time = l->t,
                              .wrap = l->wrap,
                              .output = pose,
                              .sampled_time = &t};
    anim_result r = anim_sampling_job_run(&sj);
    if (r != ANIM_OK) return r;
    if (i == 0) *sampled = t;
    anim_blend_layer_t bl = {
        .pose = pose, .weight = l->weight, .joint_weights = l->mask};
    if (l->additive)
      additive[na++] = bl;
    else
      normal[nn++] = bl;
  }
  memcpy(s->_staged, layers, count * sizeof *layers);
  s->_staged_count = count;
  anim_blend_job_t bj = {.skeleton = sk,
                         .layers = normal,
                         .layer_count = nn,
                         .additive_layers = additive,
                         .additive_count = na,
                         .output = s->_pose};
  return anim_blend_job_run(&bj);
}

static anim_result to_model(const anim_skeleton_t *sk, srv_eval_scratch_t *s) {
  anim_local_to_model_job_t job = {
      .skeleton = sk,
      .input = s->_pose,
      .output = s->_model,
      .output_count = sk->joint_count,
  };
  return anim_local_to_model_job_run(&job);
}

/* The model matrices, unless the fields' model stage made them. */
static anim_result model_of(const anim_skeleton_t *sk, srv_eval_scratch_t *s,
                            bool ready) {
  return ready ? ANIM_OK : to_model(sk, s);
}

static anim_result skin_matrices(const anim_skeleton_t *sk,
                                 srv_eval_scratch_t *s, bool ready) {
  anim_result r = model_of(sk, s, ready);
  if (r != ANIM_OK) return r;
  anim_skinning_matrices_job_t job = {
      .skeleton = sk,
      .model = s->_model,
      .output = s->_skin,
      .output_count = sk->joint_count,
  };
  return anim_skinning_matrices_job_run(&job);
}

static anim_result skin_mesh(const srv_eval_job_t *job, srv_eval_scratch_t *s,
                             bool ready) {
  const anim_skeleton_t *sk = job->skeleton;
  anim_result r = skin_matrices(sk, s, ready);
  if (r != ANIM_OK) return r;
  size_t v = job->mesh->vertex_count;
  const float *weights = NULL;
  const size_t chunk = 6 * (v < ANIM_MORPH_CHUNK ? v : ANIM_MORPH_CHUNK);
  if (job->mesh->target_count > 0) {
    size_t need = chunk + ANIM_MAX_MORPH_TARGETS;
    if (need > s->_morph_cap) {
      if (!grow(&s->_morph, need * sizeof(float)))
        return ANIM_ERR_OUT_OF_MEMORY;
      s->_morph_cap = need;
    }
    srv_morph_weights(job, job->mesh->name, job->mesh->target_count,
                      job->mesh->default_weights, s->_morph + chunk);
    weights = s->_morph + chunk;
  }
  anim_skinning_job_t sj = {
      .morph_weights = weights,
      .morph_scratch = s->_morph,
      .morph_scratch_count = chunk,
      .mesh = job->mesh,
      .matrices = s->_skin,
      .matrix_count = sk->joint_count,
      .method = job->method,
      .normals = job->normals,
      .out_positions = job->out,
      .out_positions_count = 3 * v,
      .out_normals =
          job->normals != ANIM_NORMALS_NONE ? job->out + 3 * v : NULL,
      .out_normals_count = job->normals != ANIM_NORMALS_NONE ? 3 * v : 0,
      .scratch = s->_dqs,
      .scratch_count = 8 * (size_t)sk->joint_count,
  };
  return anim_skinning_job_run(&sj);
}

/* The pose in job->space, caller order, then the listed joints only. */
static anim_result pose_floats(const srv_eval_job_t *job, srv_eval_scratch_t *s,
                               bool ready) {
  const anim_skeleton_t *sk = job->skeleton;
  size_t stride = job->space == FMT_SPACE_LOCAL ? 10 : 16;
  size_t n = stride * sk->joint_count;
  /* Without a list the caller-order floats go straight to the output. */
  float *dst = job->joints != NULL ? s->_full : job->out;
  anim_result r;
  if (job->space == FMT_SPACE_LOCAL) {
    r = anim_pose_to_caller_trs10(sk, &s->_pose, dst, n);
  } else if (job->space == FMT_SPACE_MODEL) {
    r = model_of(sk, s, ready);
    if (r == ANIM_OK) r = anim_mat4_to_caller(sk, s->_model, dst, n);
  } else {
    r = skin_matrices(sk, s, ready);
    if (r == ANIM_OK) r = anim_mat4_to_caller(sk, s->_skin, dst, n);
  }
  if (r != ANIM_OK || job->joints == NULL) return r;
  for (uint32_t i = 0; i < job->joint_count; i++) {
    if (job->joints[i] >= sk->joint_count) return ANIM_ERR_INVALID_ARGUMENT;
    memcpy(job->out + i * stride, s->_full + job->joints[i] * stride,
           stride * sizeof(float));
  }
  return ANIM_OK;
}

unsigned long srv_eval_cost(const srv_eval_job_t *job) {
  unsigned long joints = job->skeleton->joint_count;
  unsigned long cost =
      joints * (job->layer_count > 0 ? (unsigned long)job->layer_count + 1 : 1);
  if (job->mesh != NULL)
    cost += (unsigned long)job->mesh->vertex_count *
            ((job->mesh->influences ? job->mesh->influences : 4) +
             job->mesh->target_count);
  return cost;
}

/* Room for the fields' answer when the job keeps none. */
static float *extra_of(srv_eval_scratch_t *s, size_t count) {
  if (count > s->_extra_cap || s->_extra == NULL) {
    if (!grow(&s->_extra, count * sizeof(float))) return NULL;
    s->_extra_cap = count;
  }
  return s->_extra;
}

/* The pipeline, with the fields' stages when stages (srv_fields_stages)
 * is not zero. */
static anim_result run_stages(const srv_eval_job_t *job, srv_eval_scratch_t *s,
                              unsigned stages) {
  const anim_skeleton_t *sk = job->skeleton;
  if (!reserve_joints(s, sk->joint_count)) return ANIM_ERR_OUT_OF_MEMORY;
  s->_pose.joint_count = sk->joint_count;
  s->_staged_count = 0;
  float sampled = 0;
  srv_field_stage_t st = {
      .job = job, .skeleton = sk, .pose = s->_pose, ._scratch = s};
  float *answer = NULL;
  if (stages != 0) {
    size_t n = srv_eval_answer_count(job);
    answer = job->answer != NULL ? job->answer : extra_of(s, n);
    if (answer == NULL) return ANIM_ERR_OUT_OF_MEMORY;
    if (n > 0) memset(answer, 0, n * sizeof(float));
  }
  anim_result r;
  if (stages & 1u) {
    r = srv_fields_run_stage(job->fields, 0, &st, answer);
    /* The time sampled: the first layer the source blended. */
    const srv_eval_layer_t *l = s->_staged;
    if (s->_staged_count > 0 && l->clip != NULL)
      sampled = anim_wrap_time(l->t, l->clip->duration, l->wrap);
  } else if (job->layer_count > 0)
    r = blend(sk, job->layers, job->layer_count, s, &sampled);
  else
    r = sample(job, s, &sampled);
  if (r != ANIM_OK) return r;
  if (job->sampled != NULL) *job->sampled = sampled;
  if (stages & 2u) {
    r = srv_fields_run_stage(job->fields, 1, &st, answer);
    if (r != ANIM_OK) return r;
  }
  bool ready = false;
  if (stages & 4u) {
    r = to_model(sk, s);
    if (r != ANIM_OK) return r;
    st.model = s->_model;
    r = srv_fields_run_stage(job->fields, 2, &st, answer);
    if (r != ANIM_OK) return r;
    ready = true;
  }
  return job->mesh != NULL ? skin_mesh(job, s, ready)
                           : pose_floats(job, s, ready);
}

/* ---- the fields' stages (fields.h)
 * ------------------------------------------------------------------ */

anim_result srv_field_stage_refresh(srv_field_stage_t *st, uint32_t joint) {
  const anim_skeleton_t *sk = st->skeleton;
  if (st->model == NULL || joint >= sk->joint_count)
    return ANIM_ERR_INVALID_ARGUMENT;
  /* Storage order is depth first: a joint's descendants follow it, up to
   * the first joint whose depth is not greater. */
  uint32_t to = joint;
  for (uint32_t j = joint + 1; j < sk->joint_count; j++) {
    int32_t p = sk->parents[j];
    while (p >= 0 && (uint32_t)p > joint) p = sk->parents[p];
    if (p != (int32_t)joint) break;
    to = j;
  }
  anim_local_to_model_job_t job = {
      .skeleton = sk,
      .input = st->pose,
      .from = joint,
      .to = to,
      .output = st->model,
      .output_count = sk->joint_count,
  };
  if (joint == 0 && to == 0) { /* Both zero means all: one joint. */
    job.to = sk->joint_count - 1;
  }
  return anim_local_to_model_job_run(&job);
}

anim_result srv_field_stage_blend(srv_field_stage_t *st,
                                  const srv_eval_layer_t *layers,
                                  size_t count) {
  float sampled = 0;
  return blend(st->skeleton, layers, count, st->_scratch, &sampled);
}

size_t srv_field_stage_layers(const srv_field_stage_t *st,
                              const srv_eval_layer_t **layers) {
  *layers = st->_scratch->_staged;
  return st->_scratch->_staged_count;
}

anim_pose_t srv_field_stage_layer_pose(const srv_field_stage_t *st, size_t i) {
  const srv_eval_scratch_t *s = st->_scratch;
  size_t at = i * (size_t)s->_joints;
  anim_pose_t pose = {s->_layer_t + at, s->_layer_r + at, s->_layer_s + at,
                      st->skeleton->joint_count};
  return pose;
}

anim_result srv_eval_run(const srv_eval_job_t *job, srv_eval_scratch_t *s) {
  if (job == NULL || s == NULL || job->skeleton == NULL || job->out == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  const srv_fields_t *fields = job->fields;
  if (fields != NULL && fields->present != 0) {
    srv_eval_job_t honoured = *job;
    honoured.fields = NULL;
    srv_fields_apply(fields, &honoured);
    unsigned stages = srv_fields_stages(fields);
    if (stages == 0) {
      /* Rows that answer without a hook answer zeros. */
      size_t n = srv_eval_answer_count(job);
      if (job->answer != NULL && n > 0)
        memset(job->answer, 0, n * sizeof(float));
    }
    honoured.fields = fields; /* The morph step reads "weights" (morph.c). */
    if (stages == 0) return run_stages(&honoured, s, 0);
    job = &honoured;
    if (!srv_fields_resolved(fields, job->skeleton)) {
      srv_error_t err;
      if (srv_fields_resolve(fields, job->skeleton, NULL, &err) != 0)
        return err.code == SRV_ERR_OUT_OF_MEMORY ? ANIM_ERR_OUT_OF_MEMORY
                                                 : ANIM_ERR_INVALID_ARGUMENT;
    }
    return run_stages(job, s, stages);
  }
  return run_stages(job, s, 0);
}
