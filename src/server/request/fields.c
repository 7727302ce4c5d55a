/* server/request: the table of request fields and its parsers (fields.h).
 */
#include "server/request/fields.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "server/request/evaluate.h"

/* The table: the fields of the API that every transport takes alike. */
static srv_field_t rows[SRV_FIELDS_MAX];
static unsigned row_count;

int srv_field_add(const srv_field_t *row) {
  if (row_count == SRV_FIELDS_MAX || row->name == NULL ||
      srv_field_find(row->name, ~0u) != NULL)
    return -1;
  rows[row_count++] = *row;
  return 0;
}

const srv_field_t *srv_field_find(const char *name, unsigned takes) {
  for (unsigned i = 0; i < row_count; i++)
    if ((rows[i].takes & takes) != 0 && strcmp(rows[i].name, name) == 0)
      return &rows[i];
  return NULL;
}

static void set(srv_fields_t *out, const srv_field_t *row, double v) {
  unsigned i = (unsigned)(row - rows);
  out->present |= 1u << i;
  out->value[i] = v;
}

static bool in_range(const srv_field_t *row, double v) {
  return isfinite(v) && v >= row->lo && v <= row->hi;
}

int srv_fields_from_query(const srv_kv_t *params, unsigned count,
                          unsigned takes, srv_fields_t *out, srv_error_t *err) {
  for (unsigned k = 0; k < count; k++) {
    const srv_field_t *row = srv_field_find(params[k].name, takes);
    if (row == NULL) continue;
    const char *text = params[k].value != NULL ? params[k].value : "";
    double v;
    if (row->type == SRV_FIELD_BOOL) {
      if (strcmp(text, "1") == 0 || strcmp(text, "true") == 0)
        v = 1;
      else if (strcmp(text, "0") == 0 || strcmp(text, "false") == 0)
        v = 0;
      else
        return srv_error_set(err, SRV_ERR_BAD_PARAMETER, row->name,
                             "'%s' is 1, true, 0 or false", row->name);
    } else {
      char *end;
      v = strtod(text, &end);
      if (end == text || *end != '\0' || !in_range(row, v))
        return srv_error_set(err, SRV_ERR_BAD_PARAMETER, row->name,
                             "'%s' is a number from %g to %g", row->name,
                             row->lo, row->hi);
    }
    set(out, row, v);
  }
  return 0;
}

int srv_fields_from_json(const json_t *object, unsigned takes,
                         srv_fields_t *out, srv_error_t *err) {
  const char *name;
  json_t *value;
  json_object_foreach((json_t *)object, name, value) {
    const srv_field_t *row = srv_field_find(name, takes);
    if (row == NULL) continue;
    if (row->type == SRV_FIELD_BOOL) {
      if (!json_is_boolean(value))
        return srv_error_set(err, SRV_ERR_WRONG_TYPE, name,
                             "'%s' is true or false", name);
      set(out, row, json_is_true(value) ? 1 : 0);
      continue;
    }
    if (!json_is_number(value))
      return srv_error_set(err, SRV_ERR_WRONG_TYPE, name, "'%s' is a number",
                           name);
    double v = json_number_value(value);
    if (!in_range(row, v))
      return srv_error_set(err, SRV_ERR_BAD_VALUE, name,
                           "'%s' is a number from %g to %g", name, row->lo,
                           row->hi);
    set(out, row, v);
  }
  return 0;
}

void srv_fields_merge(srv_fields_t *into, const srv_fields_t *from) {
  for (unsigned i = 0; i < SRV_FIELDS_MAX; i++)
    if (from->present & (1u << i)) {
      into->present |= 1u << i;
      into->value[i] = from->value[i];
    }
}

bool srv_fields_equal(const srv_fields_t *a, const srv_fields_t *b) {
  if (a->present != b->present) return false;
  for (unsigned i = 0; i < SRV_FIELDS_MAX; i++)
    if ((a->present & (1u << i)) && a->value[i] != b->value[i]) return false;
  return true;
}

void srv_fields_apply(const srv_fields_t *f, srv_eval_job_t *job) {
  for (unsigned i = 0; i < row_count; i++)
    if ((f->present & (1u << i)) && rows[i].apply != NULL)
      rows[i].apply(f->value[i], job);
}
