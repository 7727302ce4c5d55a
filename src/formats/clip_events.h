/* formats: a clip's events in JSON, read and written in one shape,
 * [{"t": seconds, "name": string}, ...], wherever they appear: a native
 * clip's "events", a glTF animation's "extras.events", the canonical
 * encoding and the describe answer, and a range frame's "events".
 *
 * Reading checks the shape (an array of objects with exactly a number t
 * and a string name); the values (t finite and within the clip, names
 * non-empty and at most ANIM_EVENT_NAME_MAX bytes, at most ANIM_EVENT_MAX
 * events) are the core builder's to check (animd/clip.h), and
 * fmt__events_build_at names the event its error is about. */
#ifndef ANIMD_FORMATS_CLIP_EVENTS_H
#define ANIMD_FORMATS_CLIP_EVENTS_H

#include <jansson.h>

#include "animd/animd.h"
#include "formats/buf.h"
#include "formats/error.h"

/* Reads arr (NULL: no events) into *out (malloc'd; the names point into
 * arr, so arr must outlive the raw clip) and *count. at is arr's path
 * ("clips[0].events"); an error names the element or member at fault
 * (FMT_ERR_WRONG_TYPE, FMT_ERR_MISSING_FIELD, FMT_ERR_UNKNOWN_FIELD,
 * FMT_ERR_BAD_VALUE beyond ANIM_EVENT_MAX events). Returns 0 or -1 with
 * err filled. */
int fmt__events_read(json_t *arr, const char *at, anim_event_t **out,
                     size_t *count, fmt_error_t *err);

/* The path of an event build error (field "events") under at: at[k].t,
 * at[k].name or at itself, into out. */
void fmt__events_build_at(const anim_build_error_t *be, const char *at,
                          char *out, size_t size);

/* Appends [{"t":T,"name":N},...]: the events index[0..count) of events, or
 * events[0..count) when index is NULL; times in their shortest
 * round-tripping form (buf.h). */
void fmt_events_json(fmt_buf_t *b, const anim_event_t *events,
                     const uint32_t *index, uint32_t count);

#endif
