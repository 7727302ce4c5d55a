/* server/request: request fields declared once, in one table, and parsed
 * and honoured on every transport.
 *
 * A row names a field, the value it takes, the requests that take it and
 * how the evaluation honours it. The query parser (GET /v1/pose,
 * GET /v1/skin, `animd eval`), the JSON body parser (POST /v1/pose) and
 * the WebSocket message parser (play, set, pose) read the same rows into
 * the same srv_fields_t, with the error codes of their syntax (a query's
 * bad_parameter, a body's wrong_type or bad_value); the request carries
 * the values to the pipeline (srv_eval_job_t.fields), which applies them
 * to the job before it runs, so a field added here works over HTTP,
 * WebSocket and the CLI alike, and WebSocket frames that differ in a
 * field are cached apart.
 *
 * The rows: the table in fields.c, plus any added with srv_field_add
 * before the first request is parsed. Rows are read on any thread. */
#ifndef ANIMD_SERVER_REQUEST_FIELDS_H
#define ANIMD_SERVER_REQUEST_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "server/errors.h"
#include "server/kv.h"

struct srv_eval_job_s;

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
  SRV_FIELD_BOOL        /* true or false (1 or 0, true or false in a query) */
} srv_field_type;

/* Most rows the table holds. */
#define SRV_FIELDS_MAX 32

typedef struct srv_field_s {
  const char *name;
  srv_field_type type;
  unsigned takes; /* SRV_TAKES_* */
  double lo, hi;  /* A number's range, inclusive. */
  /* Honours the field's value on a job about to run. */
  void (*apply)(double value, struct srv_eval_job_s *job);
} srv_field_t;

/* The values of the rows a request gave. Zero-initialized: none. */
typedef struct srv_fields_s {
  uint32_t present;             /* Bit i: row i was given. */
  double value[SRV_FIELDS_MAX]; /* A bool as 0 or 1. */
} srv_fields_t;

/* Adds a row (copied; name must outlive it). 0, or -1 when the table is
 * full or the name is taken. */
int srv_field_add(const srv_field_t *row);

/* The row of name that a request of takes takes, or NULL. */
const srv_field_t *srv_field_find(const char *name, unsigned takes);

/* The rows among a query's parameters (count of them) into out. -1 with
 * bad_parameter at the field's name for a value that is not one. */
int srv_fields_from_query(const srv_kv_t *params, unsigned count,
                          unsigned takes, srv_fields_t *out, srv_error_t *err);

/* The rows among a JSON object's members into out. -1 with wrong_type
 * (not a number, not a boolean) or bad_value (out of range) at the
 * member's name. */
int srv_fields_from_json(const json_t *object, unsigned takes,
                         srv_fields_t *out, srv_error_t *err);

/* The fields of from replace those of into (a WebSocket set). */
void srv_fields_merge(srv_fields_t *into, const srv_fields_t *from);

bool srv_fields_equal(const srv_fields_t *a, const srv_fields_t *b);

/* Honours every given field on job, in table order. */
void srv_fields_apply(const srv_fields_t *f, struct srv_eval_job_s *job);

#endif
