/* server/verdict: the expectations of a suite's pose case, {"joint",
 * "position": [x, y, z], "tolerance"} or {"joint", "rotation": [x, y, z,
 * w], "tolerance_deg"}, checked against the model-space matrix of the
 * joint (as GET /v1/pose?space=model answers it): a position is the
 * matrix's translation column, within tolerance model units (Euclidean
 * distance); a rotation is the quaternion of the matrix's rotation (its
 * columns normalized first, so a scaled joint still has one), within
 * tolerance_deg degrees of the expected one, q and -q being the same
 * rotation. Pure: parsing and arithmetic, no store, any thread. */
#ifndef ANIMD_SERVER_VERDICT_EXPECT_H
#define ANIMD_SERVER_VERDICT_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "animd/animd.h"
#include "formats/buf.h"
#include "server/errors.h"

/* The tolerances an expectation has when it names none. */
#define VERDICT_EXPECT_TOLERANCE 0.0001   /* Model units. */
#define VERDICT_EXPECT_TOLERANCE_DEG 0.01 /* Degrees. */

typedef struct verdict_expect_s {
  const char *joint; /* Borrowed from the parsed JSON. */
  bool rotation;     /* Else a position. */
  double want[4];    /* x y z (position) or x y z w (unit quaternion). */
  double tolerance;  /* Model units, or degrees for a rotation. */
  uint32_t index;    /* The joint's caller-order index, once resolved. */
} verdict_expect_t;

typedef struct verdict_expect_result_s {
  double got[4]; /* The position, or the quaternion nearest want's sign. */
  double error;  /* Distance (model units) or angle (degrees). */
  bool pass;     /* error <= tolerance. */
} verdict_expect_result_t;

/* The "expect" array arr into *out (malloc'd, *count entries; free it),
 * errors at "<at>[k].member" (at is e.g. "cases[2].expect"): a non-empty
 * array of objects, each with a string "joint" and exactly one of
 * "position" (3 finite numbers, with "tolerance" >= 0) and "rotation" (4
 * finite numbers of a non-zero length, normalized here, with
 * "tolerance_deg" >= 0). 0, or -1 with err. */
int verdict_expect_parse(const json_t *arr, const char *at,
                         verdict_expect_t **out, size_t *count,
                         srv_error_t *err);

/* Each expectation's joint in sk (unknown_joint at "<at>[k].joint"). */
int verdict_expect_resolve(verdict_expect_t *e, size_t count,
                           const anim_skeleton_t *sk, const char *at,
                           srv_error_t *err);

/* The distance between the translation of m (16 floats, column-major)
 * and want[0..3), with the translation in got[0..3). */
double verdict_expect_position_error(const float *m, const double *want,
                                     double *got);
/* The angle in degrees between the rotation of m and the unit quaternion
 * want (q and -q equal), with m's quaternion (the sign of want's
 * hemisphere) in got[0..4). */
double verdict_expect_rotation_error(const float *m, const double *want,
                                     double *got);

/* Checks e against model (16 floats per joint, caller order). */
void verdict_expect_check(const verdict_expect_t *e, const float *model,
                          verdict_expect_result_t *out);

/* {"joint", "position"|"rotation": got, "expected", "error",
 * "tolerance"|"tolerance_deg", "pass"}: one expectation's result in a
 * suite report's detail. */
void verdict_expect_result_json(fmt_buf_t *b, const verdict_expect_t *e,
                                const verdict_expect_result_t *r);

#endif
