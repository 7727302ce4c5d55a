/* server/web: OPTIONS requests: CORS preflights (a browser asking whether
 * a page of another origin may send a request) and plain OPTIONS.
 * Loop thread only. */
#ifndef ANIMD_SERVER_WEB_PREFLIGHT_H
#define ANIMD_SERVER_WEB_PREFLIGHT_H

#include "server/http/http.h"

/* Answers an OPTIONS request to a path that takes the methods in allow
 * ("GET, HEAD"): a preflight from an allowed origin gets 204 with
 * Access-Control-Allow-Methods/-Headers/-Max-Age (the answer's
 * Access-Control-Allow-Origin comes with every answer, http.c); one from
 * another origin 403 origin_not_allowed; an OPTIONS that is no preflight
 * 204 with Allow. */
void srv_web_preflight(srv_request_t *req, const char *allow);

#endif
