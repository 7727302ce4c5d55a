/* server/verdict: a clip's motion checked (GET /v1/clips/{id}/check and
 * the "check" case of a test suite): finite numbers, pops, bone stretch,
 * the loop seam and, for the feet named, foot skating and ground
 * penetration, each always reported with its value, threshold and
 * findings.
 *
 * Samples at t_i = min(i / fps, duration), i = 0 ... ceil(duration * fps -
 * 1e-9); every pose comes from the one evaluation pipeline
 * (request/evaluate.h, srv_eval_run), local (trs10) and model space, so
 * the figures are those GET /v1/pose answers. The definitions are in
 * docs/api.md, "Clip checks".
 *
 * Key design choice: the parameters have one table (check.c), read from
 * a query's text (verdict_check_param_set) and from a JSON object
 * (verdict_check_params_json) alike, so the endpoint, a suite case and
 * the command line take the same names with the same errors. */
#ifndef ANIMD_SERVER_VERDICT_CHECK_H
#define ANIMD_SERVER_VERDICT_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "animd/animd.h"
#include "formats/buf.h"
#include "server/errors.h"

/* Feet a check takes at most. */
#define VERDICT_CHECK_MAX_FEET 64
/* Findings listed per check; the others are counted as "truncated". */
#define VERDICT_CHECK_MAX_FINDINGS 100

typedef struct verdict_check_params_s {
  double fps;             /* 60; > 0. */
  int up;                 /* 1 (y); 0 x, 1 y, 2 z. */
  double floor;           /* 0. */
  double contact_height;  /* 0.05 */
  double skate_speed;     /* 0.5, model units per second. */
  double max_skate_ratio; /* 0.02 */
  double penetration;     /* 0.01 */
  double pop;             /* 30, degrees. */
  double stretch;         /* 0.01, relative. */
  bool loop;              /* false; true adds the seam check. */
  double seam;            /* 0.001 */
  double shell;           /* 0.03 */
  /* The feet: a JSON array of joint names (owned), or NULL: no foot
   * checks. */
  json_t *feet;
} verdict_check_params_t;

/* The query name of check parameter i (0, 1, ...; in the order the docs
 * list them), NULL past the last. */
const char *verdict_check_param_name(unsigned i);

/* The defaults of GET /v1/clips/{id}/check (fps 60, up y, floor 0,
 * contact_height 0.05, ...). */
void verdict_check_params_defaults(verdict_check_params_t *p);
/* One parameter by its query name from its text (a query's value, a CLI
 * option): 0, or -1 with err (bad_parameter at the name; unknown_parameter
 * for a name that is not a check parameter). "feet" is a comma-separated
 * list and replaces the feet given before. */
int verdict_check_param_set(verdict_check_params_t *p, const char *name,
                            const char *value, srv_error_t *err);
/* Every member of obj except "clip" and "skeleton" as a check parameter
 * (numbers as numbers, "feet" as an array of strings or a comma-separated
 * string, "up" a string, "loop" a number or bool); err's at is at_prefix +
 * "." + member (e.g. "cases[3].check.fps"; the member alone when
 * at_prefix is ""). 0 or -1 (wrong_type for a JSON type the parameter
 * does not take, unknown_field for a member that is no parameter,
 * bad_value for a value out of its range). */
int verdict_check_params_json(const json_t *obj, const char *at_prefix,
                              verdict_check_params_t *p, srv_error_t *err);
void verdict_check_params_free(verdict_check_params_t *p);

/* One finding: a run of samples (or frames) of one joint. */
typedef struct verdict_check_finding_s {
  char *joint; /* Owned copy of the joint's name. */
  double from, to;
  double value;
} verdict_check_finding_t;

typedef enum verdict_check_kind {
  VERDICT_CHECK_FINITE = 0,
  VERDICT_CHECK_POP,
  VERDICT_CHECK_STRETCH,
  VERDICT_CHECK_SEAM,
  VERDICT_CHECK_FOOT_SKATE,
  VERDICT_CHECK_PENETRATION,
  VERDICT_CHECK_KIND_COUNT_
} verdict_check_kind;

/* "finite", "pop", ... */
const char *verdict_check_name(verdict_check_kind kind);

typedef struct verdict_check_result_s {
  verdict_check_kind kind;
  bool pass;
  double value;
  double threshold;
  verdict_check_finding_t findings[VERDICT_CHECK_MAX_FINDINGS];
  unsigned finding_count;
  unsigned long truncated; /* Findings beyond the listed ones. */
} verdict_check_result_t;

typedef struct verdict_check_report_s {
  bool pass; /* Every check passed. */
  double duration, fps;
  uint32_t samples;
  /* The checks run, in the order of verdict_check_kind (seam only with
   * loop, the foot checks only with feet). */
  verdict_check_result_t *checks;
  unsigned check_count;
} verdict_check_report_t;

/* Runs every check of clip (of skeleton sk) on the calling thread (the
 * pool): 0 with *out filled, or -1 with err (unknown_joint at "feet[i]"
 * for a foot the skeleton lacks; out_of_memory; too_many_frames at "fps"
 * when the samples exceed max_frames). */
int verdict_check_run(const anim_skeleton_t *sk, const anim_clip_t *clip,
                      const verdict_check_params_t *p, unsigned max_frames,
                      verdict_check_report_t *out, srv_error_t *err);
/* The angle in degrees between two unit rotations (x, y, z, w):
 * 2 acos(min(1, |a . b|)), the angle of a^-1 b. */
double verdict_rotation_angle(const float *a, const float *b);
/* The samples a check of a clip of that duration takes at fps. */
double verdict_check_sample_count(double duration, double fps);
/* The answer of GET /v1/clips/{id}/check for it (clip_id: the clip's id),
 * no trailing newline. */
void verdict_check_report_json(fmt_buf_t *b, const char *clip_id,
                               const verdict_check_report_t *r);
/* One line for a failing suite case, e.g. "foot_skate 0.101 > 0.02
 * (left_foot 1.2-1.35 s)": the failing checks, each with its first
 * finding; "all checks pass" when none fails. */
void verdict_check_report_message(const verdict_check_report_t *r, char *buf,
                                  size_t cap);
void verdict_check_report_free(verdict_check_report_t *r);

#endif
