/* formats: a clip's events in JSON (clip_events.h). */
#include "formats/clip_events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fmt__events_read(json_t *arr, const char *at, anim_event_t **out,
                     size_t *count, fmt_error_t *err) {
  *out = NULL;
  *count = 0;
  if (arr == NULL) return 0;
  if (!json_is_array(arr))
    return fmt_fail(err, FMT_ERR_WRONG_TYPE, at,
                    "expected an array of {\"t\", \"name\"} objects");
  size_t n = json_array_size(arr);
  if (n == 0) return 0;
  if (n > ANIM_EVENT_MAX)
    return fmt_fail(err, FMT_ERR_BAD_VALUE, at,
                    "%zu events; a clip holds at most %d", n, ANIM_EVENT_MAX);
  anim_event_t *ev = calloc(n, sizeof *ev);
  if (ev == NULL)
    return fmt_fail(err, FMT_ERR_TOO_LARGE, at,
                    "out of memory while decoding the upload");
  char path[256];
  for (size_t i = 0; i < n; i++) {
    json_t *e = json_array_get(arr, i), *t, *name;
    snprintf(path, sizeof path, "%s[%zu]", at, i);
    if (!json_is_object(e)) {
      fmt_fail(err, FMT_ERR_WRONG_TYPE, path, "expected an object");
      goto fail;
    }
    const char *key;
    json_t *v;
    json_object_foreach(e, key, v) {
      if (strcmp(key, "t") != 0 && strcmp(key, "name") != 0) {
        snprintf(path, sizeof path, "%s[%zu].%.64s", at, i, key);
        fmt_fail(err, FMT_ERR_UNKNOWN_FIELD, path,
                 "an event has only \"t\" and \"name\"");
        goto fail;
      }
    }
    t = json_object_get(e, "t");
    name = json_object_get(e, "name");
    const char *missing = t == NULL ? "t" : name == NULL ? "name" : NULL;
    if (missing != NULL) {
      snprintf(path, sizeof path, "%s[%zu].%s", at, i, missing);
      fmt_fail(err, FMT_ERR_MISSING_FIELD, path, "this member is required");
      goto fail;
    }
    if (!json_is_number(t)) {
      snprintf(path, sizeof path, "%s[%zu].t", at, i);
      fmt_fail(err, FMT_ERR_WRONG_TYPE, path, "expected a number (seconds)");
      goto fail;
    }
    if (!json_is_string(name)) {
      snprintf(path, sizeof path, "%s[%zu].name", at, i);
      fmt_fail(err, FMT_ERR_WRONG_TYPE, path, "expected a string");
      goto fail;
    }
    ev[i].t = (float)json_number_value(t);
    ev[i].name = json_string_value(name);
  }
  *out = ev;
  *count = n;
  return 0;
fail:
  free(ev);
  return -1;
}

void fmt__events_build_at(const anim_build_error_t *be, const char *at,
                          char *out, size_t size) {
  if (be->key < 0)
    snprintf(out, size, "%s", at);
  else
    snprintf(out, size, "%s[%d].%s", at, (int)be->key,
             be->component == 1 ? "name" : "t");
}

void fmt_events_json(fmt_buf_t *b, const anim_event_t *events,
                     const uint32_t *index, uint32_t count) {
  fmt_buf_putc(b, '[');
  for (uint32_t i = 0; i < count; i++) {
    const anim_event_t *e = &events[index != NULL ? index[i] : i];
    fmt_buf_puts(b, i ? ",{\"t\":" : "{\"t\":");
    fmt_buf_float(b, e->t);
    fmt_buf_puts(b, ",\"name\":");
    fmt_buf_json_string(b, e->name);
    fmt_buf_putc(b, '}');
  }
  fmt_buf_putc(b, ']');
}
