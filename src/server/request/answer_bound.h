/* server/request: the bound on an answer's bytes, checked before any
 * work. A pose or skin answer's size follows from the resolved request
 * alone (elements x components x meshes x frames held at once), so a
 * request whose answer would pass max_answer_bytes is refused 413
 * too_large before anything is evaluated or allocated. HTTP (GET
 * /v1/pose, POST /v1/pose, GET /v1/skin and their ranges), WebSocket
 * play and pose, and `animd eval` check here, with the same numbers.
 *
 * Binary sizes are exact; JSON sizes are an upper bound (every float at
 * its longest printed form, the names at their longest escaping). A range
 * streams frame by frame under backpressure, so for it the bound is one
 * frame's (its length is max_frames' business). Any thread. */
#ifndef ANIMD_SERVER_REQUEST_ANSWER_BOUND_H
#define ANIMD_SERVER_REQUEST_ANSWER_BOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/errors.h"
#include "server/request/evaluate.h"
#include "store/store.h"

/* Bytes one float takes at most in a JSON answer: "-1.23456789e-38"
 * and its comma. */
#define SRV_JSON_FLOAT_MAX 16

/* What an answer holds: job's frame (its skeleton, joints, space,
 * normals and fields) once per mesh of meshes (mesh_count of them; 0: the
 * job's own mesh, or its pose), frames times. */
typedef struct srv_answer_shape_s {
  const srv_eval_job_t *job;
  store_asset_t *const *meshes;
  size_t mesh_count;
  bool binary; /* float32 (or q16 with q16), else JSON. */
  bool q16;
  uint64_t frames; /* Frames held at once (1: an answer, a range frame). */
  bool range;      /* Range frames: each binary block has its header. */
} srv_answer_shape_t;

/* The answer's bytes: exact for binary, an upper bound for JSON. */
uint64_t srv_answer_bytes(const srv_answer_shape_t *a);

/* 0 when the answer fits in limit bytes (0: no limit), else -1 with err
 * 413 too_large at `at`, saying both sizes. */
int srv_answer_check(const srv_answer_shape_t *a, size_t limit, const char *at,
                     srv_error_t *err);

#endif
