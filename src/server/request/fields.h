/* server/request: request fields declared once, in one table, and parsed
 * and honoured on every transport.
 *
 * A row names a field, the value it takes, the requests that take it and
 * how the evaluation honours it. The query parser (GET /v1/pose,
 * GET /v1/skin, `animd eval`), the JSON body parser (POST /v1/pose, and
 * compare/test sources through it) and the WebSocket message parser
 * (play, set, pose) read the same rows into the same srv_fields_t, with
 * the error codes of their syntax (a query's bad_parameter, a body's
 * wrong_type or bad_value); the request carries the values to the
 * pipeline (srv_eval_job_t.fields), which applies them, so a field added
 * here works over HTTP, WebSocket and the CLI alike, and WebSocket frames
 * and ETags that differ in a field are told apart.
 *
 * Three kinds of value: a number, a bool, or a structured JSON value
 * (SRV_FIELD_VALUE: an array of objects like "ik", an object, or a string
 * in a query) that the row's parse callback turns into its own data with
 * errors at paths like "ik[1].mid". A structured value is reference
 * counted and immutable once resolved: copies of srv_fields_t share it
 * (srv_fields_copy), every owner frees its copy (srv_fields_free).
 * After the lookup, srv_fields_resolve binds it to the skeleton (joint
 * names to indices, typed errors with `at`); its canonical JSON text
 * (compact, keys sorted) is its equality, its hash and its print.
 *
 * How a field acts (all optional, in table order; see docs/architecture.md
 * "One request path"): apply (numbers and bools: changes the job before
 * it runs); source (a pose source in place of sampling and layers);
 * local (after sampling or blending, on local transforms); model (after
 * local to model, on model matrices; srv_field_stage_refresh re-derives a
 * corrected joint's descendants, and skinning uses the corrected pose);
 * and an answer: answer_floats floats the stage hooks write, printed as a
 * JSON member by answer_json, and sent as trailing floats in binary
 * answers.
 *
 * The rows: the product's (fields.c, product_rows: "ik" of ik_field.h),
 * plus any added with srv_field_add before the first request is parsed.
 * Rows are read on any thread. */
#ifndef ANIMD_SERVER_REQUEST_FIELDS_H
#define ANIMD_SERVER_REQUEST_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "animd/animd.h"
#include "formats/buf.h"
#include "server/errors.h"
#include "server/kv.h"

struct srv_eval_job_s;
struct srv_eval_scratch_s;
struct srv_field_stage_s;

/* The requests that take a field. */
enum {
  SRV_TAKES_POSE_QUERY = 1u << 0, /* GET /v1/pose, animd eval */
  SRV_TAKES_SKIN_QUERY = 1u << 1, /* GET /v1/skin, animd eval --mesh */
  SRV_TAKES_POSE_BODY = 1u << 2,  /* POST /v1/pose */
  SRV_TAKES_WS_STREAM = 1u << 3,  /* WebSocket play and set */
  SRV_TAKES_WS_POSE = 1u << 4     /* WebSocket pose */
};

typedef enum srv_field_type {
  SRV_FIELD_NUMBER = 0, /* A finite number within [lo, hi]. */
  SRV_FIELD_BOOL,       /* true or false (1 or 0, true or false in a query) */
  SRV_FIELD_VALUE       /* Structured JSON (a query's text: a JSON string) */
} srv_field_type;

/* Most rows the table holds. */
#define SRV_FIELDS_MAX 32

typedef struct srv_field_s {
  const char *name;
  srv_field_type type;
  unsigned takes; /* SRV_TAKES_* */
  double lo, hi;  /* A number's range, inclusive. */
  /* Numbers and bools: honours the field's value on a job about to run. */
  void (*apply)(double value, struct srv_eval_job_s *job);

  /* SRV_FIELD_VALUE rows. parse (required) turns json (a query's value:
   * a JSON string) into *data (owned; freed by free_data), or returns -1
   * with err at a path under at (the field's name, e.g. "ik[1].mid").
   * resolve (optional) binds data to a skeleton on the thread that looked
   * it up, with typed errors (unknown_joint, bad_value) at paths under at,
   * which is the field's name with the request's prefix ("a.ik"); it is
   * called again when the value meets another skeleton. */
  int (*parse)(const json_t *json, const char *at, void **data,
               srv_error_t *err);
  int (*resolve)(void *data, const anim_skeleton_t *skeleton, const char *at,
                 srv_error_t *err);
  void (*free_data)(void *data);

  /* Stage hooks (any row type; NULL: none), run by srv_eval_run on the
   * evaluating thread with the resolved data (NULL for a number or bool;
   * the value then is st->value). ANIM_OK or an error that fails the
   * evaluation. source: produces st->pose in place of the job's clip or
   * layers (srv_field_stage_blend helps). local: after sampling or
   * blending, may change st->pose. model: after local to model, may change
   * st->pose and st->model; after changing a joint's local transform it
   * calls srv_field_stage_refresh so its descendants follow. */
  anim_result (*source)(const void *data, struct srv_field_stage_s *st);
  anim_result (*local)(const void *data, struct srv_field_stage_s *st);
  anim_result (*model)(const void *data, struct srv_field_stage_s *st);

  /* The answer member the field adds (NULL: none): answer_floats(data)
   * floats (known before evaluating), written by the stage hooks into
   * st->answer; answer_json prints the member's JSON value (the mechanism
   * prints ,"name": before it) from data and those floats. Binary answers
   * carry the floats after the frame's own (docs/api.md). */
  size_t (*answer_floats)(const void *data);
  const char *answer_name; /* The member's name; NULL: the row's. */
  /* The answer depends on the time before wrapping (root motion's loops):
   * a stream evaluates its frames at its own clock, not the clip time. */
  bool clocked;
  void (*answer_json)(fmt_buf_t *b, const void *data, const float *answer);
} srv_field_t;

/* A structured value: opaque, reference counted (atomically: a pool job
 * may hold it while the loop replaces it), immutable but for its
 * resolution. */
typedef struct srv_field_value_s srv_field_value_t;

/* The values of the rows a request gave. Zero-initialized: none. A copy
 * made with = shares the structured values without owning them: use
 * srv_fields_copy for a copy that outlives the original. */
typedef struct srv_fields_s {
  uint32_t present;                          /* Bit i: row i was given. */
  double value[SRV_FIELDS_MAX];              /* A bool as 0 or 1. */
  srv_field_value_t *object[SRV_FIELDS_MAX]; /* SRV_FIELD_VALUE rows. */
} srv_fields_t;

/* What a stage hook sees. The pose and matrices are the pipeline's
 * scratch, storage order. */
typedef struct srv_field_stage_s {
  const struct srv_eval_job_s *job; /* The job being run (clip, t, ...). */
  const anim_skeleton_t *skeleton;
  anim_pose_t pose;   /* Local transforms: may be changed. */
  anim_mat4_t *model; /* model hooks: the model matrices; else NULL. */
  float *answer;      /* The row's answer_floats floats (NULL: none). */
  double value;       /* A number or bool row's value. */
  /* private */
  struct srv_eval_scratch_s *_scratch;
} srv_field_stage_t;

/* Re-derives the model matrices of joint (storage index) and of all its
 * descendants from st->pose (model hooks). ANIM_OK or the core's error. */
anim_result srv_field_stage_refresh(srv_field_stage_t *st, uint32_t joint);

/* For a source hook: layers (evaluate.h's srv_eval_layer_t, count of
 * them) sampled and blended into st->pose, as the job's layers are. */
struct srv_eval_layer_s;
anim_result srv_field_stage_blend(srv_field_stage_t *st,
                                  const struct srv_eval_layer_s *layers,
                                  size_t count);

/* For a local or model hook: the layers the pose was blended from (the
 * job's, or those a source hook blended), *layers pointing at them until
 * the evaluation ends; 0 for a pose sampled from one clip. */
size_t srv_field_stage_layers(const srv_field_stage_t *st,
                              const struct srv_eval_layer_s **layers);

/* Layer i's own sampled pose, before blending (i below
 * srv_field_stage_layers). */
anim_pose_t srv_field_stage_layer_pose(const srv_field_stage_t *st, size_t i);

/* Adds a row (copied; name must outlive it). 0, or -1 when the table is
 * full or the name is taken. */
int srv_field_add(const srv_field_t *row);

/* The row of name that a request of takes takes, or NULL. */
const srv_field_t *srv_field_find(const char *name, unsigned takes);

/* The names of the rows a request of takes takes, in table order, up to
 * cap of them into names. Returns how many. */
unsigned srv_field_list(unsigned takes, const char **names, unsigned cap);

/* For "did you mean": the name nearest to name (formats/suggest.h) among
 * known (NULL-terminated; NULL for none) and the rows a request of takes
 * takes, or NULL when none is near. */
const char *srv_field_nearest(const char *name, const char *const *known,
                              unsigned takes);

/* The rows among a query's parameters (count of them) into out. -1 with
 * bad_parameter at the field's name for a value that is not one. */
int srv_fields_from_query(const srv_kv_t *params, unsigned count,
                          unsigned takes, srv_fields_t *out, srv_error_t *err);

/* The rows among a JSON object's members into out. -1 with wrong_type
 * (not a number, not a boolean) or bad_value (out of range) at the
 * member's name. */
int srv_fields_from_json(const json_t *object, unsigned takes,
                         srv_fields_t *out, srv_error_t *err);

/* The fields of from replace those of into (a WebSocket set); into takes
 * its own references to from's structured values and lets go of those
 * replaced. */
void srv_fields_merge(srv_fields_t *into, const srv_fields_t *from);

/* *into = a copy of from owning its own references (into is
 * overwritten, not freed). */
void srv_fields_copy(srv_fields_t *into, const srv_fields_t *from);

/* Lets go of f's structured values; f becomes empty. */
void srv_fields_free(srv_fields_t *f);

/* Numbers, bools and structured values (by canonical text) equal. */
bool srv_fields_equal(const srv_fields_t *a, const srv_fields_t *b);

/* Appends every given field to b as "name=value;" (structured values as
 * their canonical JSON): the text ETags and cache keys hash. */
void srv_fields_print(fmt_buf_t *b, const srv_fields_t *f);

/* Binds f's structured values to skeleton (row->resolve), errors at
 * "<at_prefix>.<name>..." (no prefix: at the name). 0 or -1 with err. */
int srv_fields_resolve(const srv_fields_t *f, const anim_skeleton_t *skeleton,
                       const char *at_prefix, srv_error_t *err);

/* Whether every structured value of f is resolved for skeleton. */
bool srv_fields_resolved(const srv_fields_t *f,
                         const anim_skeleton_t *skeleton);

/* Honours every given number and bool on job (row->apply), in table
 * order. */
void srv_fields_apply(const srv_fields_t *f, struct srv_eval_job_s *job);

/* The parsed data of row's structured value in f (a row of the table,
 * matched by its parse callback), or NULL when f does not give it: for
 * a pipeline step that reads a field without stage hooks. */
const void *srv_fields_data(const srv_fields_t *f, const srv_field_t *row);

/* Whether a given row of f is clocked. */
bool srv_fields_clocked(const srv_fields_t *f);

/* Whether f has rows with a source, local or model hook (bits 0, 1, 2). */
unsigned srv_fields_stages(const srv_fields_t *f);

/* Runs the hooks of one stage (0 source, 1 local, 2 model) of f's rows in
 * table order, each with its answer floats at answer + its offset. */
anim_result srv_fields_run_stage(const srv_fields_t *f, int stage,
                                 srv_field_stage_t *st, float *answer);

/* Floats the fields add to an answer (0: none). */
size_t srv_fields_answer_floats(const srv_fields_t *f);

/* The JSON members the fields add: ,"name":value for each row with an
 * answer, from answer (srv_fields_answer_floats floats). */
void srv_fields_answer_json(fmt_buf_t *b, const srv_fields_t *f,
                            const float *answer);

/* The names and float counts of those members, "ik=4,root=7" (for a
 * binary answer's X-Animd-Answer header); "" when none. */
void srv_fields_answer_layout(fmt_buf_t *b, const srv_fields_t *f);

#endif
