/* server/api: strong ETags of answers and conditional requests
 * (If-None-Match, 304). */
#ifndef ANIMD_SERVER_API_ETAG_H
#define ANIMD_SERVER_API_ETAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/http/http.h"
#include "server/request/fields.h"

/* A strong ETag for this answer from its parts (content ids, parameters):
 * "\"<32 hex>\"" into out (at least 40 bytes). */
void srv__etag(char *out, const void *parts, size_t len);

/* The tag of the two 64-bit hashes h1, h2: "\"" + 16 lowercase hex
 * digits of each + "\"" into out (35 bytes with the terminator). */
void srv__etag_hex(char *out, uint64_t h1, uint64_t h2);

/* Mixes the request's table fields (request/fields.h) into etag, an
 * srv__etag result; nothing when it gave none. */
void srv__etag_fields(char *etag, const srv_fields_t *fields);
/* True when If-None-Match lists etag (or "*"). */
bool srv__etag_matches(const srv_request_t *req, const char *etag);

/* When If-None-Match lists etag: answers 304 with the ETag and returns
 * true; otherwise returns false and answers nothing. */
bool srv__respond_if_not_modified(srv_request_t *req, const char *etag);

#endif
