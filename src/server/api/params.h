/* server/api: a request as the handlers' typed parsers see it: its store,
 * its query (request/requests.h) checked against what the endpoint takes,
 * and a streamed range started for a range query. The handlers' other
 * shared steps have their own files: lookup.h (names to assets),
 * answer.h (error and JSON answers), etag.h (conditional requests). */
#ifndef ANIMD_SERVER_PARAMS_H
#define ANIMD_SERVER_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "animd/animd.h"
#include "formats/buf.h"
#include "server/request/requests.h"
#include "server/errors.h"
#include "server/http/http.h"
#include "server/http/range.h"
#include "store/store.h"

store_t *srv__store(srv_request_t *req);

/* The typed-request view of req's query (requests.h). */
srv_query_t srv__query(const srv_request_t *req);

/* Answers 400 unknown_parameter and returns -1 when req's query has a
 * parameter ep does not take (requests.h); 0 otherwise. */
int srv__check_query(srv_request_t *req, srv_endpoint ep);

/* Starts the streamed range r (its produce and dispose set) for q: frames
 * of frame_floats floats, batched about 64 KiB of answer at a time, each
 * costing frame_cost (task.h), binary or JSON lines, with the head's
 * extra headers. */
void srv__range_run(srv_range_t *r, srv_request_t *req,
                    const srv_range_query_t *q, size_t frame_floats, bool bin,
                    unsigned long frame_cost, const char *extra);

#endif
