/* server: the bytes of one evaluated frame: a pose or skin answer (JSON
 * with a trailing newline, float32, or q16 for skinned vertices), or one
 * frame of a range (a JSON line with "frame", or a 16-byte header and the
 * floats or the q16 payload).
 *
 * Evaluation goes through the pipeline (evaluate.h) into the scratch's
 * own output (a binary float32 answer: into the answer itself), then
 * through the answer encoders of formats/answer.h, so
 * GET /v1/pose, its ranges, POST /v1/pose, GET /v1/skin and `animd eval`
 * print the same bytes for the same numbers. Any thread. */
#ifndef ANIMD_SERVER_FRAME_ANSWER_H
#define ANIMD_SERVER_FRAME_ANSWER_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/buf.h"
#include "server/request/evaluate.h"

struct store_asset_s;

/* Who the answer names: the skeleton's id (poses) or the mesh's id
 * (skinned vertices, job->mesh set), and the clip's id (NULL: null), then
 * every asset by id and by name. */
typedef struct srv_frame_names_s {
  const char *owner;
  const char *clip;
  fmt_asset_names_t ids;
} srv_frame_names_t;

/* The names of an answer about owner (a skeleton, or a mesh) and clip
 * (NULL: the rest pose); the strings point into the assets. */
srv_frame_names_t srv_frame_names(const struct store_asset_s *owner,
                                  const struct store_asset_s *clip);

/* The frame argument of srv_frame_answer besides a range's frame
 * numbers: a whole answer (JSON ends with a newline), or a whole answer
 * that is a member of a larger JSON value (no newline). */
#define SRV_FRAME_WHOLE (-1)
#define SRV_FRAME_MEMBER (-2)

/* Evaluates job (its out, answer and sampled are ignored) with s and
 * appends its answer to b: frame SRV_FRAME_WHOLE or SRV_FRAME_MEMBER,
 * else frame `frame` of a range. The members the job's fields add
 * (fields.h) come last in JSON; in binary their floats follow the
 * frame's (a range frame header's count then counts them too). ANIM_OK,
 * ANIM_ERR_OUT_OF_MEMORY (s or b could not grow), or the pipeline's result. */
anim_result srv_frame_answer(fmt_buf_t *b, const srv_eval_job_t *job,
                             const srv_frame_names_t *names, bool binary,
                             int64_t frame, srv_eval_scratch_t *s);

/* What a frame's floats are: joints in space, or skinned vertices
 * (positions, then normals when normals); and the members the request's
 * fields add (fields.h), from their answer floats. */
typedef struct srv_frame_shape_s {
  bool skin;
  bool normals;
  fmt_space space;
  uint32_t elements;                 /* Joints or vertices. */
  const struct srv_fields_s *fields; /* NULL: none. */
  const float *answer; /* srv_fields_answer_floats(fields) floats. */
} srv_frame_shape_t;

/* The JSON answer of floats v already evaluated (a pose, or a skin answer
 * with shape->skin), "id" first when id (JSON text) is not NULL, frame as
 * for srv_frame_answer; no newline. HTTP answers and WebSocket frames
 * print through it. */
void srv_frame_json(fmt_buf_t *b, const char *id,
                    const srv_frame_names_t *names,
                    const srv_frame_shape_t *shape, const float *v, float t,
                    int64_t frame);

/* The same for skinned vertices (job->mesh set) in the q16 encoding
 * (formats/q16.h): the payload alone for a whole answer (frame -1), else
 * the 16-byte range frame header, whose float count then counts the
 * payload's 32-bit words, and the payload. */
anim_result srv_frame_answer_q16(fmt_buf_t *b, const srv_eval_job_t *job,
                                 int64_t frame, srv_eval_scratch_t *s);

/* 32-bit words of a q16 frame of job (job->mesh set). */
size_t srv_frame_q16_words(const srv_eval_job_t *job);

#endif
