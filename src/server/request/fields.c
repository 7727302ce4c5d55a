/* server/request: the table of request fields and its parsers (fields.h).
 */
#include "server/request/fields.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "formats/suggest.h"
#include "server/request/evaluate.h"
#include "server/request/ik_field.h"
#include "server/request/morph_field.h"
#include "server/request/motion_fields.h"

/* The table: the fields of the API that every transport takes alike. */
static srv_field_t rows[SRV_FIELDS_MAX];
static unsigned row_count;

/* The product's rows, added once before any other. */
static const srv_field_t *const product_rows[] = {
    &srv_ik_field, &srv_root_motion_row, &srv_blend_space_row,
    &srv_morph_field};
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static int add_row(const srv_field_t *row);
static const srv_field_t *find_row(const char *name, unsigned takes);

static void table_init(void) {
  for (size_t i = 0; i < sizeof product_rows / sizeof *product_rows; i++)
    add_row(product_rows[i]);
}

int srv_field_add(const srv_field_t *row) {
  pthread_once(&table_once, table_init);
  return add_row(row);
}

static int add_row(const srv_field_t *row) {
  if (row_count == SRV_FIELDS_MAX || row->name == NULL ||
      find_row(row->name, ~0u) != NULL)
    return -1;
  rows[row_count++] = *row;
  return 0;
}

static const srv_field_t *find_row(const char *name, unsigned takes) {
  for (unsigned i = 0; i < row_count; i++)
    if ((rows[i].takes & takes) != 0 && strcmp(rows[i].name, name) == 0)
      return &rows[i];
  return NULL;
}

const srv_field_t *srv_field_find(const char *name, unsigned takes) {
  pthread_once(&table_once, table_init);
  return find_row(name, takes);
}

unsigned srv_field_list(unsigned takes, const char **names, unsigned cap) {
  pthread_once(&table_once, table_init);
  unsigned n = 0;
  for (unsigned i = 0; i < row_count && n < cap; i++)
    if ((rows[i].takes & takes) != 0) names[n++] = rows[i].name;
  return n;
}

const char *srv_field_nearest(const char *name, const char *const *known,
                              unsigned takes) {
  pthread_once(&table_once, table_init);
  fmt_suggest_t s;
  fmt_suggest_init(&s, name, 0);
  for (; known != NULL && *known != NULL; known++)
    fmt_suggest_offer(&s, *known);
  for (unsigned i = 0; i < row_count; i++)
    if ((rows[i].takes & takes) != 0) fmt_suggest_offer(&s, rows[i].name);
  return fmt_suggest_best(&s);
}

/* ---- structured values ------------------------------------------------- */

struct srv_field_value_s {
  atomic_int refs;
  const srv_field_t *row;
  char *text; /* Canonical JSON: compact, keys sorted. */
  void *data; /* The row's. */
  /* The skeleton data is resolved for (NULL: none yet). */
  const anim_skeleton_t *resolved;
};

static srv_field_value_t *value_ref(srv_field_value_t *v) {
  if (v != NULL) atomic_fetch_add(&v->refs, 1);
  return v;
}

static void value_unref(srv_field_value_t *v) {
  if (v == NULL || atomic_fetch_sub(&v->refs, 1) != 1) return;
  if (v->row->free_data != NULL && v->data != NULL) v->row->free_data(v->data);
  free(v->text);
  free(v);
}

/* A new value of row from json, or NULL with err. */
static srv_field_value_t *value_parse(const srv_field_t *row,
                                      const json_t *json, srv_error_t *err) {
  srv_field_value_t *v = calloc(1, sizeof *v);
  if (v == NULL) {
    srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return NULL;
  }
  atomic_init(&v->refs, 1);
  v->row = row;
  if (row->parse(json, row->name, &v->data, err) != 0) {
    v->data = NULL;
    value_unref(v);
    return NULL;
  }
  v->text = json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
  if (v->text == NULL) {
    value_unref(v);
    srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return NULL;
  }
  return v;
}

/* ---- the table's values ------------------------------------------------ */

static void set(srv_fields_t *out, const srv_field_t *row, double v) {
  unsigned i = (unsigned)(row - rows);
  out->present |= 1u << i;
  out->value[i] = v;
}

/* Row's value in out becomes val (owned). */
static void set_value(srv_fields_t *out, const srv_field_t *row,
                      srv_field_value_t *val) {
  unsigned i = (unsigned)(row - rows);
  value_unref(out->object[i]);
  out->object[i] = val;
  set(out, row, 0);
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
    if (row->type == SRV_FIELD_VALUE) {
      json_t *j = json_string(text);
      srv_field_value_t *val =
          j != NULL ? value_parse(row, j, err)
                    : (srv_error_set(err, SRV_ERR_BAD_PARAMETER, row->name,
                                     "'%s' is not UTF-8 text", row->name),
                       NULL);
      json_decref(j);
      if (val == NULL) {
        if (err->code != SRV_ERR_OUT_OF_MEMORY)
          err->code = SRV_ERR_BAD_PARAMETER;
        return -1;
      }
      set_value(out, row, val);
      continue;
    }
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
    if (row->type == SRV_FIELD_VALUE) {
      srv_field_value_t *val = value_parse(row, value, err);
      if (val == NULL) return -1;
      set_value(out, row, val);
      continue;
    }
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
      if (into->object[i] != from->object[i]) {
        srv_field_value_t *old = into->object[i];
        into->object[i] = value_ref(from->object[i]);
        value_unref(old);
      }
    }
}

void srv_fields_copy(srv_fields_t *into, const srv_fields_t *from) {
  *into = *from;
  for (unsigned i = 0; i < SRV_FIELDS_MAX; i++) value_ref(into->object[i]);
}

void srv_fields_free(srv_fields_t *f) {
  for (unsigned i = 0; i < SRV_FIELDS_MAX; i++) value_unref(f->object[i]);
  memset(f, 0, sizeof *f);
}

bool srv_fields_equal(const srv_fields_t *a, const srv_fields_t *b) {
  if (a->present != b->present) return false;
  for (unsigned i = 0; i < SRV_FIELDS_MAX; i++) {
    if (!(a->present & (1u << i))) continue;
    if (a->value[i] != b->value[i]) return false;
    const srv_field_value_t *x = a->object[i], *y = b->object[i];
    if (x != y && (x == NULL || y == NULL || strcmp(x->text, y->text) != 0))
      return false;
  }
  return true;
}

void srv_fields_print(fmt_buf_t *b, const srv_fields_t *f) {
  for (unsigned i = 0; i < row_count; i++) {
    if (!(f->present & (1u << i))) continue;
    fmt_buf_puts(b, rows[i].name);
    fmt_buf_putc(b, '=');
    if (f->object[i] != NULL) {
      fmt_buf_puts(b, f->object[i]->text);
    } else {
      char num[32];
      snprintf(num, sizeof num, "%.17g", f->value[i]);
      fmt_buf_puts(b, num);
    }
    fmt_buf_putc(b, ';');
  }
}

int srv_fields_resolve(const srv_fields_t *f, const anim_skeleton_t *skeleton,
                       const char *at_prefix, srv_error_t *err) {
  for (unsigned i = 0; i < row_count; i++) {
    srv_field_value_t *v = f->object[i];
    if (!(f->present & (1u << i)) || v == NULL || v->resolved == skeleton)
      continue;
    if (rows[i].resolve != NULL) {
      char at[96];
      if (at_prefix != NULL && at_prefix[0] != '\0')
        snprintf(at, sizeof at, "%s.%s", at_prefix, rows[i].name);
      else
        snprintf(at, sizeof at, "%s", rows[i].name);
      v->resolved = NULL;
      if (rows[i].resolve(v->data, skeleton, at, err) != 0) return -1;
    }
    v->resolved = skeleton;
  }
  return 0;
}

bool srv_fields_resolved(const srv_fields_t *f,
                         const anim_skeleton_t *skeleton) {
  for (unsigned i = 0; i < row_count; i++)
    if ((f->present & (1u << i)) && f->object[i] != NULL &&
        f->object[i]->resolved != skeleton)
      return false;
  return true;
}

void srv_fields_apply(const srv_fields_t *f, srv_eval_job_t *job) {
  for (unsigned i = 0; i < row_count; i++)
    if ((f->present & (1u << i)) && rows[i].apply != NULL)
      rows[i].apply(f->value[i], job);
}

/* The row's stage hook (0 source, 1 local, 2 model). */
static anim_result (*hook(const srv_field_t *row,
                          int stage))(const void *, srv_field_stage_t *) {
  return stage == 0 ? row->source : stage == 1 ? row->local : row->model;
}

unsigned srv_fields_stages(const srv_fields_t *f) {
  unsigned stages = 0;
  for (unsigned i = 0; i < row_count; i++)
    if (f->present & (1u << i))
      for (int k = 0; k < 3; k++)
        if (hook(&rows[i], k) != NULL) stages |= 1u << k;
  return stages;
}

bool srv_fields_clocked(const srv_fields_t *f) {
  for (unsigned i = 0; i < row_count; i++)
    if ((f->present & (1u << i)) && rows[i].clocked) return true;
  return false;
}

static size_t row_answer_floats(const srv_fields_t *f, unsigned i) {
  if (!(f->present & (1u << i)) || rows[i].answer_floats == NULL) return 0;
  return rows[i].answer_floats(f->object[i] ? f->object[i]->data : NULL);
}

anim_result srv_fields_run_stage(const srv_fields_t *f, int stage,
                                 srv_field_stage_t *st, float *answer) {
  size_t at = 0;
  for (unsigned i = 0; i < row_count; i++) {
    size_t n = row_answer_floats(f, i);
    anim_result (*h)(const void *, srv_field_stage_t *) = hook(&rows[i], stage);
    if ((f->present & (1u << i)) && h != NULL) {
      st->answer = n > 0 && answer != NULL ? answer + at : NULL;
      st->value = f->value[i];
      anim_result r = h(f->object[i] ? f->object[i]->data : NULL, st);
      if (r != ANIM_OK) return r;
    }
    at += n;
  }
  st->answer = NULL;
  return ANIM_OK;
}

size_t srv_fields_answer_floats(const srv_fields_t *f) {
  size_t n = 0;
  for (unsigned i = 0; i < row_count; i++) n += row_answer_floats(f, i);
  return n;
}

void srv_fields_answer_json(fmt_buf_t *b, const srv_fields_t *f,
                            const float *answer) {
  size_t at = 0;
  for (unsigned i = 0; i < row_count; i++) {
    size_t n = row_answer_floats(f, i);
    if ((f->present & (1u << i)) && rows[i].answer_json != NULL) {
      fmt_buf_puts(b, ",\"");
      fmt_buf_puts(b, rows[i].answer_name ? rows[i].answer_name : rows[i].name);
      fmt_buf_puts(b, "\":");
      rows[i].answer_json(b, f->object[i] ? f->object[i]->data : NULL,
                          answer != NULL ? answer + at : NULL);
    }
    at += n;
  }
}

void srv_fields_answer_layout(fmt_buf_t *b, const srv_fields_t *f) {
  bool first = true;
  for (unsigned i = 0; i < row_count; i++) {
    size_t n = row_answer_floats(f, i);
    if (n == 0) continue;
    if (!first) fmt_buf_putc(b, ',');
    first = false;
    fmt_buf_puts(b, rows[i].answer_name ? rows[i].answer_name : rows[i].name);
    fmt_buf_putc(b, '=');
    fmt_buf_uint(b, n);
  }
}

const void *srv_fields_data(const srv_fields_t *f, const srv_field_t *row) {
  if (f == NULL) return NULL;
  for (unsigned i = 0; i < row_count; i++)
    if ((f->present & (1u << i)) && f->object[i] != NULL &&
        f->object[i]->row->parse == row->parse)
      return f->object[i]->data;
  return NULL;
}
