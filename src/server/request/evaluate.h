/* server: the one evaluation pipeline of the API: sample (one clip, or
 * weighted and additive layers blended) -> local to model -> skinning
 * matrices -> the answer's floats in the caller's joint order (all joints
 * or a list of them) -> or the skinned vertices of a mesh.
 *
 * Every answer that carries numbers goes through srv_eval_run: GET and
 * POST /v1/pose, GET /v1/skin (one frame and ranges), WebSocket frames
 * and their prefetch jobs, and `animd eval`; the same core jobs in the
 * same order, so all of them are equal bit for bit.
 *
 * Key design choice: one scratch type, grown on demand and kept between
 * calls (each thread has its own, srv_eval_scratch_thread), so a frame
 * costs no allocation once the thread has seen a skeleton that large.
 * srv_eval_run touches only its job, its scratch and the immutable
 * assets, so it runs on any thread. */
#ifndef ANIMD_SERVER_EVALUATE_H
#define ANIMD_SERVER_EVALUATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animd/animd.h"
#include "formats/answer.h"

/* Memory of the core jobs. Zero-initialized it is empty and valid; grown
 * by srv_eval_run, freed by srv_eval_scratch_free. */
typedef struct srv_eval_scratch_s {
  /* private */
  uint32_t _joints;      /* Capacity of the per-joint arrays. */
  uint32_t _tracks;      /* Capacity of the sampling cursors. */
  size_t _layers;        /* Capacity of the layer poses. */
  size_t _out;           /* Capacity of _answer, floats. */
  anim_pose_t _pose;     /* The sampled or blended pose. */
  anim_vec3_t *_layer_t; /* _layers * _joints each. */
  anim_quat_t *_layer_r;
  anim_vec3_t *_layer_s;
  anim_blend_layer_t *_blend; /* 2 * _layers: normal, then additive. */
  anim_mat4_t *_model;
  anim_mat4_t *_skin;
  float *_full;   /* 16 * _joints: caller order before a list. */
  float *_dqs;    /* 8 * _joints: DQS scratch. */
  float *_answer; /* srv_eval_scratch_output. */
  float *_extra;  /* The fields' answer when the job has no place for it. */
  /* The layers last blended (a copy, _layers of room), for stage hooks. */
  struct srv_eval_layer_s *_staged;
  size_t _staged_count;
  size_t _extra_cap;
  uint32_t *_cursors;
  float *_morph;     /* Morphed vertices (6 per vertex of a chunk), weights. */
  size_t _morph_cap; /* Floats. */
  anim_sampling_context_t _ctx;
  bool _ctx_bound; /* _ctx is bound to _ctx.clip. */
} srv_eval_scratch_t;

void srv_eval_scratch_free(srv_eval_scratch_t *s);

/* The calling thread's own scratch (freed when the thread ends), with its
 * sampling context unbound: the calls that follow on it form one sequence,
 * in which forward playback of one clip samples in O(1) per track. NULL
 * when out of memory. */
srv_eval_scratch_t *srv_eval_scratch_thread(void);

/* A buffer of at least count floats owned by s, for a caller that has no
 * output of its own (it survives until the next call on s). NULL when out
 * of memory. */
float *srv_eval_scratch_output(srv_eval_scratch_t *s, size_t count);

/* One layer of a blended pose. */
typedef struct srv_eval_layer_s {
  const anim_clip_t *clip;
  double t; /* Wrapped in double (a clock of hours keeps its precision). */
  anim_wrap wrap;
  float weight;      /* >= 0. */
  bool additive;     /* Added on top of the weighted layers. */
  const float *mask; /* joint_count weights, storage order; NULL: all. */
} srv_eval_layer_t;

typedef struct srv_eval_job_s {
  const anim_skeleton_t *skeleton;
  /* The pose: layers blended when layer_count > 0, else clip (NULL: the
   * rest pose) sampled at t with wrap. */
  const anim_clip_t *clip;
  double t; /* Wrapped in double (a clock of hours keeps its precision). */
  anim_wrap wrap;
  const srv_eval_layer_t *layers;
  size_t layer_count;
  /* What comes out. Without a mesh: the pose in space (trs10 or mat4 per
   * joint), in the caller's joint order, only the joints listed in joints
   * (caller-order indices, joint_count of them) when joints is not NULL.
   * With a mesh (of this skeleton): its vertices skinned with method,
   * positions then (unless normals is NONE) normals. */
  fmt_space space;
  const uint32_t *joints;
  uint32_t joint_count;
  const anim_mesh_t *mesh;
  anim_skin_method method;
  anim_skin_normals normals;
  /* srv_eval_float_count(job) floats. */
  float *out;
  /* Optional: the clip time sampled (of the first layer; 0 for the rest
   * pose). */
  float *sampled;
  /* Optional: the request's table fields (fields.h): numbers and bools
   * change the job before it runs, structured values act in the stages
   * (a pose source, on local transforms, on model matrices); they do not
   * change its float count. Values not yet resolved for the skeleton are
   * resolved here (the transports resolve them where they look up names,
   * to answer typed errors). */
  const struct srv_fields_s *fields;
  /* Optional: where the fields' answer goes (srv_eval_answer_count
   * floats; fields.h); NULL: it is not kept. */
  float *answer;
} srv_eval_job_t;

/* Floats per pose answer in space (all joints). */
size_t srv_pose_float_count(fmt_space space, uint32_t joints);
/* Floats the job writes. */
size_t srv_eval_float_count(const srv_eval_job_t *job);
/* Floats the job's fields add to its answer (fields.h). */
size_t srv_eval_answer_count(const srv_eval_job_t *job);
/* Joints or vertices the job's floats describe. */
uint32_t srv_eval_element_count(const srv_eval_job_t *job);

/* The job's evaluation cost in the scheduling model's units
 * (server/schedule.h): a joint sampled and accumulated per layer costs 1
 * (the blend's result counts as one more layer), a vertex skinned its
 * influences plus its mesh's morph targets. */
unsigned long srv_eval_cost(const srv_eval_job_t *job);

/* Runs the pipeline. ANIM_OK, ANIM_ERR_OUT_OF_MEMORY when s could not
 * grow, or the result of the core job that refused its inputs. */
anim_result srv_eval_run(const srv_eval_job_t *job, srv_eval_scratch_t *s);

#endif
