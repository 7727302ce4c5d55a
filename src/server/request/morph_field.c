/* server/request: the "weights" request field (morph_field.h). */
#include "server/request/morph_field.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct override_s {
  char *mesh;
  uint32_t count;
  float *values;
} override_t;

typedef struct overrides_s {
  size_t count;
  override_t items[];
} overrides_t;

static void overrides_free(void *data) {
  overrides_t *o = data;
  if (o == NULL) return;
  for (size_t i = 0; i < o->count; i++) {
    free(o->items[i].mesh);
    free(o->items[i].values);
  }
  free(o);
}

static int parse_object(const json_t *obj, const char *at, overrides_t **out,
                        srv_error_t *err) {
  if (!json_is_object(obj))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                         "'%s' must be an object of mesh names to arrays of "
                         "morph weights",
                         at);
  size_t n = json_object_size(obj);
  if (n > SRV_MORPH_FIELD_MAX)
    return srv_error_set(err, SRV_ERR_BAD_VALUE, at,
                         "'%s' names more than %d meshes", at,
                         SRV_MORPH_FIELD_MAX);
  overrides_t *o = calloc(1, sizeof *o + n * sizeof o->items[0]);
  if (o == NULL) return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  const char *key;
  json_t *arr;
  json_object_foreach((json_t *)obj, key, arr) {
    override_t *e = &o->items[o->count];
    size_t k = json_array_size(arr);
    if (!json_is_array(arr) || k == 0 || k > ANIM_MAX_MORPH_TARGETS) {
      overrides_free(o);
      return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                           "'%s.%.80s' must be an array of 1 to 256 numbers",
                           at, key);
    }
    e->mesh = strdup(key);
    e->values = malloc(k * sizeof *e->values);
    o->count++;
    if (e->mesh == NULL || e->values == NULL) {
      overrides_free(o);
      return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    }
    e->count = (uint32_t)k;
    for (size_t i = 0; i < k; i++) {
      json_t *v = json_array_get(arr, i);
      double d = json_number_value(v);
      if (!json_is_number(v) || !isfinite(d) || fabs(d) > 1e6) {
        overrides_free(o);
        return srv_error_set(err, SRV_ERR_BAD_VALUE, at,
                             "'%s.%.80s[%zu]' must be a finite number of at "
                             "most 1e6 in size",
                             at, key, i);
      }
      e->values[i] = (float)d;
    }
  }
  *out = o;
  return 0;
}

static int morph_parse(const json_t *json, const char *at, void **data,
                       srv_error_t *err) {
  overrides_t *o = NULL;
  int rc;
  if (json_is_string(json)) { /* A query's text. */
    json_t *j = json_loads(json_string_value(json), 0, NULL);
    rc = parse_object(j, at, &o, err);
    json_decref(j);
  } else {
    rc = parse_object(json, at, &o, err);
  }
  *data = o;
  return rc;
}

const srv_field_t srv_morph_field = {
    .name = "weights",
    .type = SRV_FIELD_VALUE,
    .takes = SRV_TAKES_POSE_QUERY | SRV_TAKES_POSE_BODY | SRV_TAKES_SKIN_QUERY |
             SRV_TAKES_WS_POSE | SRV_TAKES_WS_STREAM,
    .parse = morph_parse,
    .free_data = overrides_free,
};

const float *srv_morph_field_values(const srv_fields_t *f, const char *mesh,
                                    uint32_t *count) {
  const overrides_t *o = srv_fields_data(f, &srv_morph_field);
  for (size_t i = 0; o != NULL && i < o->count; i++)
    if (strcmp(o->items[i].mesh, mesh) == 0) {
      *count = o->items[i].count;
      return o->items[i].values;
    }
  return NULL;
}
