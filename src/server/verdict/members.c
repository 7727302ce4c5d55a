/* server/verdict: the members of a verdict body (members.h). */
#include "server/verdict/members.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/vocab.h"
#include "server/request/fields.h"

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

/* 0 when every member of o is in known or a table field of takes; else
 * unknown_field at it. */
int verdict_known_members(const json_t *o, const char *const *known,
                          unsigned takes, const char *prefix,
                          srv_error_t *err) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)o, key, v) {
    (void)v;
    bool ok = takes != 0 && srv_field_find(key, takes) != NULL;
    for (size_t i = 0; !ok && known[i] != NULL; i++)
      ok = strcmp(known[i], key) == 0;
    if (ok) continue;
    char at[160], field[64];
    snprintf(field, sizeof field, "%.60s", key);
    return srv_error_set(err, SRV_ERR_UNKNOWN_FIELD,
                         verdict_at(prefix, field, at, sizeof at),
                         "unknown field \"%.60s\"", key);
  }
  return 0;
}
