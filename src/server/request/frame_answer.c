/* server: one evaluated frame as answer bytes (frame_answer.h). */
#include "server/request/frame_answer.h"

#include "formats/q16.h"
#include "server/request/fields.h"
#include "store/store.h"

srv_frame_names_t srv_frame_names(const store_asset_t *owner,
                                  const store_asset_t *clip) {
  srv_frame_names_t n = {
      .owner = owner->id,
      .clip = clip ? clip->id : NULL,
      .ids = store_answer_names(owner, clip),
  };
  return n;
}

/* The members the shape's fields add (fmt_*_answer_t.more). */
static void field_members(fmt_buf_t *b, const void *arg) {
  const srv_frame_shape_t *shape = arg;
  srv_fields_answer_json(b, shape->fields, shape->answer);
}

void srv_frame_json(fmt_buf_t *b, const char *id,
                    const srv_frame_names_t *names,
                    const srv_frame_shape_t *shape, const float *v, float t,
                    int64_t frame) {
  if (shape->skin) {
    fmt_skin_answer_t a = {
        .id = id,
        .mesh = names->owner,
        .clip = names->clip,
        .t = t,
        .frame = frame,
        .vertex_count = shape->elements,
        .positions = v,
        .normals = shape->normals ? v + 3 * (size_t)shape->elements : NULL,
        .ids = names->ids,
        .more = shape->fields != NULL ? field_members : NULL,
        .more_arg = shape,
    };
    fmt_answer_skin_json(b, &a);
  } else {
    fmt_pose_answer_t a = {
        .id = id,
        .skeleton = names->owner,
        .clip = names->clip,
        .t = t,
        .frame = frame,
        .joint_count = shape->elements,
        .space = shape->space,
        .data = v,
        .ids = names->ids,
        .more = shape->fields != NULL ? field_members : NULL,
        .more_arg = shape,
    };
    fmt_answer_pose_json(b, &a);
  }
}

static anim_result encode(fmt_buf_t *b, const srv_eval_job_t *job,
                          const srv_frame_names_t *names, bool binary,
                          int64_t frame, const float *v, float t) {
  size_t count = srv_eval_float_count(job);
  size_t extra = srv_eval_answer_count(job);
  uint32_t elements = srv_eval_element_count(job);
  if (binary) {
    if (frame >= 0)
      fmt_answer_frame_header(b, (uint32_t)frame, (uint32_t)(count + extra), t);
    fmt_answer_floats_bin(b, v, count + extra);
  } else {
    srv_frame_shape_t shape = {.skin = job->mesh != NULL,
                               .normals = job->normals != ANIM_NORMALS_NONE,
                               .space = job->space,
                               .elements = elements,
                               .fields = extra > 0 ? job->fields : NULL,
                               .answer = v + count};
    srv_frame_json(b, NULL, names, &shape, v, t, frame);
    if (frame != SRV_FRAME_MEMBER) fmt_buf_putc(b, '\n');
  }
  return b->failed ? ANIM_ERR_OUT_OF_MEMORY : ANIM_OK;
}

/* Evaluates job into s's own output: *j is the job run (j->out its
 * floats, then the fields' answer at j->answer), *t the clip time
 * sampled. */
static anim_result run(const srv_eval_job_t *job, srv_eval_scratch_t *s,
                       srv_eval_job_t *j, float *t) {
  *j = *job;
  *t = 0;
  size_t count = srv_eval_float_count(job);
  j->out = srv_eval_scratch_output(s, count + srv_eval_answer_count(job));
  j->sampled = t;
  if (j->out == NULL) return ANIM_ERR_OUT_OF_MEMORY;
  j->answer = j->out + count;
  return srv_eval_run(j, s);
}

/* A binary answer evaluated straight into b (on little-endian hosts the
 * float32 layout is the floats' own bytes): a 10,000-vertex frame skips
 * one 120 KB copy. The range frame header, which carries the time
 * sampled, is written into its place afterwards. false when b's end is
 * not float-aligned (the caller then encodes as usual). */
static bool binary_in_place(fmt_buf_t *b, const srv_eval_job_t *job,
                            int64_t frame, srv_eval_scratch_t *s,
                            anim_result *result) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  size_t count = srv_eval_float_count(job) + srv_eval_answer_count(job);
  size_t start = b->len, head = frame >= 0 ? FMT_FRAME_HEADER_SIZE : 0;
  if ((start + head) % sizeof(float) != 0) return false;
  if (!fmt_buf_reserve(b, head + count * sizeof(float))) {
    *result = ANIM_ERR_OUT_OF_MEMORY;
    return true;
  }
  srv_eval_job_t j = *job;
  float t = 0;
  j.out = (float *)(void *)(b->data + start + head);
  j.answer = j.out + srv_eval_float_count(job);
  j.sampled = &t;
  *result = srv_eval_run(&j, s);
  if (*result != ANIM_OK) return true;
  if (frame >= 0) /* in the room reserved: b does not move */
    fmt_answer_frame_header(b, (uint32_t)frame, (uint32_t)count, t);
  b->len = start + head + count * sizeof(float);
  return true;
#else
  (void)b, (void)job, (void)frame, (void)s, (void)result;
  return false;
#endif
}

anim_result srv_frame_answer(fmt_buf_t *b, const srv_eval_job_t *job,
                             const srv_frame_names_t *names, bool binary,
                             int64_t frame, srv_eval_scratch_t *s) {
  anim_result r;
  if (binary && binary_in_place(b, job, frame, s, &r)) return r;
  srv_eval_job_t j;
  float t;
  r = run(job, s, &j, &t);
  if (r != ANIM_OK) return r;
  return encode(b, &j, names, binary, frame, j.out, t);
}

size_t srv_frame_q16_words(const srv_eval_job_t *job) {
  return fmt_q16_size(srv_eval_element_count(job),
                      job->normals != ANIM_NORMALS_NONE) /
             4 +
         srv_eval_answer_count(job);
}

anim_result srv_frame_answer_q16(fmt_buf_t *b, const srv_eval_job_t *job,
                                 int64_t frame, srv_eval_scratch_t *s) {
  srv_eval_job_t j;
  float t;
  anim_result r = run(job, s, &j, &t);
  if (r != ANIM_OK) return r;
  uint32_t v = srv_eval_element_count(&j);
  if (frame >= 0)
    fmt_answer_frame_header(b, (uint32_t)frame,
                            (uint32_t)srv_frame_q16_words(&j), t);
  fmt_q16_append(b, j.out,
                 j.normals != ANIM_NORMALS_NONE ? j.out + 3 * (size_t)v : NULL,
                 v);
  /* The fields' answer after the payload (docs/api.md). */
  fmt_answer_floats_bin(b, j.answer, srv_eval_answer_count(&j));
  return b->failed ? ANIM_ERR_OUT_OF_MEMORY : ANIM_OK;
}
