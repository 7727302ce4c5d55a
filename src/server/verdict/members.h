/* server/verdict: the members of the bodies of the verdict room (a
 * comparison, a golden case), each error at "<prefix>.<member>" so a
 * body held within a suite reports where it sits there. */
#ifndef ANIMD_SERVER_VERDICT_MEMBERS_H
#define ANIMD_SERVER_VERDICT_MEMBERS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "animd/animd.h"
#include "server/errors.h"

/* "<prefix>.<field>" (field alone without a prefix) into buf. */
const char *verdict_at(const char *prefix, const char *field, char *buf,
                       size_t cap);

/* An optional number o[key] in [lo, hi] (lo excluded when lo_open):
 * absent leaves *out; wrong_type when not a number, bad_value "must be
 * <range>" outside. given (optional): whether it was there. */
int verdict_number_member(const json_t *o, const char *key, const char *prefix,
                          double lo, bool lo_open, double hi, const char *range,
                          double *out, bool *given, srv_error_t *err);

/* An optional o["wrap"] word (bad_value otherwise). */
int verdict_wrap_member(const json_t *o, const char *prefix, anim_wrap *out,
                        bool *given, srv_error_t *err);

/* An optional string o[key] (an id or a name; wrong_type otherwise);
 * *out NULL when absent. */
int verdict_name_member(const json_t *o, const char *key, const char *prefix,
                        const char **out, srv_error_t *err);

/* The time grid and thresholds of a comparison: "from" (0), "to"
 * (to_given false: the caller's default), "fps" (30), "wrap" (clamp),
 * "shell" (0.03), "tolerance" (0.0001). */
typedef struct verdict_grid_s {
  double from, to, fps, shell, tolerance;
  bool to_given;
  anim_wrap wrap;
} verdict_grid_t;

/* The grid's members of o into g, defaults for those absent: wrong_type
 * or bad_value at the member (shell > 0, tolerance >= 0, fps > 0, to >=
 * from). */
int verdict_grid_parse(const json_t *o, const char *prefix, verdict_grid_t *g,
                       srv_error_t *err);

#endif
