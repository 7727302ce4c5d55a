/* server/api: a page of a listing (GET /v1/assets, GET
 * /v1/skeletons/{id}/clips and /meshes), the same on one node and in a
 * fleet: ?limit=N (1 to list_limit_max; list_limit when left out) and
 * ?after=CURSOR, parsed once here, and the answer: the assets of the page
 * in the upload answer's shape, with "next": CURSOR when more follow (the
 * value to send as ?after= for the next page; absent on the last page, so
 * a listing that fits one page answers as before pages existed).
 *
 * A cursor is "<kind>:<id>", the last asset of the page: pages follow the
 * listing's order (skeletons, clips, meshes, each by id), so an asset
 * added or deleted between pages does not shift the others. */
#ifndef ANIMD_SERVER_API_LIST_PAGE_H
#define ANIMD_SERVER_API_LIST_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/answer.h"
#include "server/http/http.h"
#include "store/store.h"

typedef struct srv_list_page_s {
  size_t limit;                  /* Assets at most. */
  bool after;                    /* A cursor was given: */
  store_kind after_kind;         /* its kind */
  char after_id[FMT_ID_LEN + 1]; /* and its id. */
} srv_list_page_t;

/* Reads req's limit and after into page. Returns 0, or -1 after
 * answering 400 bad_parameter (at "limit" or "after"). */
int srv__list_page(srv_request_t *req, srv_list_page_t *page);

/* True when an asset of kind and id comes after the page's cursor. */
bool srv_list_page_past(const srv_list_page_t *page, store_kind kind,
                        const char *id);

/* Appends the answer: the first page->limit of the count items (in
 * listing order, all after the cursor), and "next" when count is more
 * than the limit. Returns 0, or -1 when b failed. */
int srv_list_page_answer(fmt_buf_t *b, const srv_list_page_t *page,
                         const fmt_asset_summary_t *items, size_t count);

#endif
