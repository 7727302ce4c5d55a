/* server: pose evaluation and encoding shared by handlers and eval
 * (evaluate.h). */
#include "server/api/evaluate.h"

#include "store/store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int srv_scratch_init(srv_scratch_t *s, uint32_t joints, uint32_t tracks) {
  memset(s, 0, sizeof *s);
  s->joints = joints;
  size_t n = joints ? joints : 1;
  s->pose.translation = malloc(n * sizeof(anim_vec3_t));
  s->pose.rotation = malloc(n * sizeof(anim_quat_t));
  s->pose.scale = malloc(n * sizeof(anim_vec3_t));
  s->pose.joint_count = joints;
  s->model = malloc(n * sizeof(anim_mat4_t));
  s->skin = malloc(n * sizeof(anim_mat4_t));
  s->out = malloc(n * 16 * sizeof(float));
  s->cursor_count = tracks;
  s->cursors = calloc(tracks ? tracks : 1, sizeof(uint32_t));
  if (!s->pose.translation || !s->pose.rotation || !s->pose.scale ||
      !s->model || !s->skin || !s->out || !s->cursors) {
    srv_scratch_free(s);
    return -1;
  }
  return 0;
}

void srv_scratch_free(srv_scratch_t *s) {
  free(s->pose.translation);
  free(s->pose.rotation);
  free(s->pose.scale);
  free(s->model);
  free(s->skin);
  free(s->out);
  free(s->cursors);
  memset(s, 0, sizeof *s);
}

/* One scratch per thread, freed by the key's destructor when a worker
 * thread ends. */
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_destroy(void *p) {
  srv_scratch_free(p);
  free(p);
}

static void scratch_key_init(void) {
  pthread_key_create(&scratch_key, scratch_destroy);
}

srv_scratch_t *srv_scratch_thread(uint32_t joints, uint32_t tracks) {
  pthread_once(&scratch_once, scratch_key_init);
  srv_scratch_t *s = pthread_getspecific(scratch_key);
  if (s == NULL) {
    s = calloc(1, sizeof *s);
    if (s == NULL || pthread_setspecific(scratch_key, s) != 0) {
      free(s);
      return NULL;
    }
  }
  if (s->out == NULL || joints > s->joints || tracks > s->cursor_count) {
    uint32_t j = joints > s->joints ? joints : s->joints;
    uint32_t t = tracks > s->cursor_count ? tracks : s->cursor_count;
    srv_scratch_free(s);
    if (srv_scratch_init(s, j < 64 ? 64 : j, t < 64 ? 64 : t) != 0)
      return NULL;
  }
  s->pose.joint_count = joints;
  s->ctx_ready = false;
  return s;
}

size_t srv_pose_float_count(fmt_space space, uint32_t joints) {
  return (size_t)joints * (space == FMT_SPACE_LOCAL ? 10 : 16);
}

anim_result srv_sample(const anim_skeleton_t *sk, const anim_clip_t *clip,
                       float t, anim_wrap wrap, srv_scratch_t *s,
                       float *sampled) {
  if (clip == NULL) {
    *sampled = 0.0f;
    return anim_pose_set_rest(sk, &s->pose);
  }
  if (!s->ctx_ready && s->cursor_count >= clip->track_count) {
    if (anim_sampling_context_init(&s->ctx, clip, s->cursors,
                                   s->cursor_count) == ANIM_OK)
      s->ctx_ready = true;
  }
  anim_sampling_job_t job = {
      .skeleton = sk,
      .clip = clip,
      .time = t,
      .wrap = wrap,
      .context = s->ctx_ready && s->ctx.clip == clip ? &s->ctx : NULL,
      .output = s->pose,
      .sampled_time = sampled,
  };
  return anim_sampling_job_run(&job);
}

static anim_result to_model(const anim_skeleton_t *sk, srv_scratch_t *s) {
  anim_local_to_model_job_t job = {
      .skeleton = sk,
      .input = s->pose,
      .output = s->model,
      .output_count = sk->joint_count,
  };
  return anim_local_to_model_job_run(&job);
}

anim_result srv_skin_matrices(const anim_skeleton_t *sk, srv_scratch_t *s) {
  anim_result r = to_model(sk, s);
  if (r != ANIM_OK) return r;
  anim_skinning_matrices_job_t job = {
      .skeleton = sk,
      .model = s->model,
      .output = s->skin,
      .output_count = sk->joint_count,
  };
  return anim_skinning_matrices_job_run(&job);
}

anim_result srv_pose_output(const anim_skeleton_t *sk, fmt_space space,
                            srv_scratch_t *s) {
  size_t n = srv_pose_float_count(space, sk->joint_count);
  if (space == FMT_SPACE_LOCAL)
    return anim_pose_to_caller_trs10(sk, &s->pose, s->out, n);
  anim_result r;
  if (space == FMT_SPACE_MODEL) {
    r = to_model(sk, s);
    if (r != ANIM_OK) return r;
    return anim_mat4_to_caller(sk, s->model, s->out, n);
  }
  r = srv_skin_matrices(sk, s);
  if (r != ANIM_OK) return r;
  return anim_mat4_to_caller(sk, s->skin, s->out, n);
}

int srv_encode_pose(fmt_buf_t *b, bool binary, const fmt_pose_answer_t *a) {
  if (binary)
    return fmt_answer_floats_bin(
        b, a->data, srv_pose_float_count(a->space, a->joint_count));
  if (fmt_answer_pose_json(b, a) != 0) return -1;
  fmt_buf_putc(b, '\n');
  return b->failed ? -1 : 0;
}

int srv_wrap_parse(const char *s) {
  if (s == NULL || strcmp(s, "clamp") == 0) return ANIM_WRAP_CLAMP;
  if (strcmp(s, "loop") == 0) return ANIM_WRAP_LOOP;
  if (strcmp(s, "pingpong") == 0) return ANIM_WRAP_PINGPONG;
  return -1;
}

anim_result srv_pose_answer(fmt_buf_t *out, const store_asset_t *skel,
                            const store_asset_t *clip_asset, float t,
                            anim_wrap wrap, fmt_space space, bool binary) {
  const anim_skeleton_t *sk = skel->skeleton;
  const anim_clip_t *clip = clip_asset ? clip_asset->clip : NULL;
  srv_scratch_t *s =
      srv_scratch_thread(sk->joint_count, clip ? clip->track_count : 0);
  if (s == NULL) return ANIM_ERR_OUT_OF_MEMORY;
  float sampled = 0;
  anim_result r = srv_sample(sk, clip, t, wrap, s, &sampled);
  if (r == ANIM_OK) r = srv_pose_output(sk, space, s);
  if (r != ANIM_OK) return r;
  fmt_pose_answer_t a = {
      .skeleton = skel->id,
      .clip = clip_asset ? clip_asset->id : NULL,
      .t = sampled,
      .frame = -1,
      .joint_count = sk->joint_count,
      .space = space,
      .data = s->out,
  };
  return srv_encode_pose(out, binary, &a) == 0 ? ANIM_OK
                                               : ANIM_ERR_OUT_OF_MEMORY;
}
