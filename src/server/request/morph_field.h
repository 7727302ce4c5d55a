/* server/request: the "weights" request field (docs/api.md "Morph
 * targets"): morph weight overrides per mesh name, {"mesh": [w0, w1, ...]}
 * (in a query: that JSON as the parameter's text). A row of the table of
 * request fields (fields.h) without stage hooks: the morph step
 * (morph.c) reads it, replacing the first values of the named mesh's
 * weights (the rest keep their clip or default values), for skinning and
 * for the "morph_weights" a pose answer lists. */
#ifndef ANIMD_SERVER_REQUEST_MORPH_FIELD_H
#define ANIMD_SERVER_REQUEST_MORPH_FIELD_H

#include "server/request/fields.h"

/* Most meshes one "weights" object names. */
#define SRV_MORPH_FIELD_MAX 64

extern const srv_field_t srv_morph_field;

/* The override for mesh in the request's fields f (NULL: none): *count
 * weights. */
const float *srv_morph_field_values(const srv_fields_t *f, const char *mesh,
                                    uint32_t *count);

#endif
