/* server/verdict: the members of a verdict body (members.h). */
#include "server/verdict/members.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/vocab.h"

/* "<prefix>.<field>", or field alone without a prefix. */
const char *verdict_at(const char *prefix, const char *field, char *buf,
                       size_t cap) {
  snprintf(buf, cap, "%s%s%s", prefix, prefix[0] != '\0' ? "." : "", field);
  return buf;
}

/* An optional number of o[key] in [lo, hi] (lo_open: lo excluded): *out
 * unchanged when absent; wrong_type when not a number, bad_value out of
 * range. */
int verdict_number_member(const json_t *o, const char *key, const char *prefix,
                          double lo, bool lo_open, double hi, const char *range,
                          double *out, bool *given, srv_error_t *err) {
  json_t *v = json_object_get(o, key);
  if (given != NULL) *given = v != NULL;
  if (v == NULL) return 0;
  char at[160];
  verdict_at(prefix, key, at, sizeof at);
  if (!json_is_number(v))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at, "\"%s\" must be a number",
                         key);
  double d = json_number_value(v);
  if (!isfinite(d) || d < lo || (lo_open && d == lo) || d > hi)
    return srv_error_set(err, SRV_ERR_BAD_VALUE, at, "\"%s\" must be %s", key,
                         range);
  *out = d;
  return 0;
}

/* An optional wrap word of o["wrap"]. */
int verdict_wrap_member(const json_t *o, const char *prefix, anim_wrap *out,
                        bool *given, srv_error_t *err) {
  json_t *v = json_object_get(o, "wrap");
  *given = v != NULL;
  if (v == NULL) return 0;
  int w = json_is_string(v)
              ? fmt_vocab_parse(FMT_VOCAB_WRAP, json_string_value(v))
              : -1;
  if (w < 0) {
    char list[128], at[160];
    fmt_vocab_list(FMT_VOCAB_WRAP, list, sizeof list);
    return srv_error_set(err, SRV_ERR_BAD_VALUE,
                         verdict_at(prefix, "wrap", at, 160),
                         "\"wrap\" must be %s", list);
  }
  *out = (anim_wrap)w;
  return 0;
}

/* An optional string member (an asset's id or name). */
int verdict_name_member(const json_t *o, const char *key, const char *prefix,
                        const char **out, srv_error_t *err) {
  json_t *v = json_object_get(o, key);
  *out = NULL;
  if (v == NULL) return 0;
  char at[160];
  if (!json_is_string(v))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE,
                         verdict_at(prefix, key, at, 160),
                         "\"%s\" must be an id or a name", key);
  *out = json_string_value(v);
  return 0;
}

int verdict_grid_parse(const json_t *o, const char *prefix, verdict_grid_t *g,
                       srv_error_t *err) {
  *g = (verdict_grid_t){
      .fps = 30, .shell = 0.03, .tolerance = 0.0001, .wrap = ANIM_WRAP_CLAMP};
  bool wrap_given;
  if (verdict_number_member(o, "from", prefix, -3e38, false, 3e38,
                            "a finite number", &g->from, NULL, err) != 0 ||
      verdict_number_member(o, "to", prefix, -3e38, false, 3e38,
                            "a finite number", &g->to, &g->to_given,
                            err) != 0 ||
      verdict_number_member(o, "fps", prefix, 0, true, 1e6, "a number above 0",
                            &g->fps, NULL, err) != 0 ||
      verdict_wrap_member(o, prefix, &g->wrap, &wrap_given, err) != 0 ||
      verdict_number_member(o, "shell", prefix, 0, true, 3e38,
                            "a number above 0", &g->shell, NULL, err) != 0 ||
      verdict_number_member(o, "tolerance", prefix, 0, false, 3e38,
                            "a number >= 0", &g->tolerance, NULL, err) != 0)
    return -1;
  if (g->to_given && g->to < g->from) {
    char at[160];
    return srv_error_set(err, SRV_ERR_BAD_VALUE,
                         verdict_at(prefix, "to", at, sizeof at),
                         "\"to\" must not be less than \"from\"");
  }
  return 0;
}
