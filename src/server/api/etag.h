/* server/api: strong ETags of answers and conditional requests
 * (If-None-Match, 304). */
#ifndef ANIMD_SERVER_API_ETAG_H
#define ANIMD_SERVER_API_ETAG_H

#include <stdbool.h>
#include <stddef.h>

#include "server/http/http.h"

/* A strong ETag for this answer from its parts (content ids, parameters):
 * "\"<32 hex>\"" into out (at least 40 bytes). */
void srv__etag(char *out, const void *parts, size_t len);

/* True when If-None-Match lists etag (or "*"). */
bool srv__etag_matches(const srv_request_t *req, const char *etag);

/* When If-None-Match lists etag: answers 304 with the ETag and returns
 * true; otherwise returns false and answers nothing. */
bool srv__respond_if_not_modified(srv_request_t *req, const char *etag);

#endif
