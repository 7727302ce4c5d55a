/* server/api: a page of a listing (list_page.h). */
#include "server/api/list_page.h"

#include <stdlib.h>
#include <string.h>

#include "server/api/answer.h"
#include "server/api/params.h"
#include "server/services.h"

int srv__list_page(srv_request_t *req, srv_list_page_t *page) {
  const srv_config_t *cfg = srv_server_config(srv_request_server(req));
  size_t max = cfg->list_limit_max ? cfg->list_limit_max : 10000;
  size_t def = cfg->list_limit ? cfg->list_limit : 1000;
  *page = (srv_list_page_t){.limit = def < max ? def : max};
  srv_query_t q = srv__query(req);
  const char *limit = srv_query_value(&q, "limit");
  if (limit != NULL) {
    char *end;
    unsigned long long n = strtoull(limit, &end, 10);
    if (limit[0] < '0' || limit[0] > '9' || *end != '\0' || n == 0 || n > max) {
      srv__fail(req, SRV_ERR_BAD_PARAMETER, "limit",
                "'limit' must be a whole number from 1 to %zu "
                "(list_limit_max)",
                max);
      return -1;
    }
    page->limit = (size_t)n;
  }
  const char *after = srv_query_value(&q, "after");
  if (after != NULL) {
    const char *colon = strchr(after, ':');
    int kind = -1;
    for (int k = STORE_SKELETON; colon && k <= STORE_MESH; k++) {
      const char *name = store_kind_name((store_kind)k);
      if (strlen(name) == (size_t)(colon - after) &&
          memcmp(name, after, strlen(name)) == 0)
        kind = k;
    }
    if (kind < 0 || !fmt_is_content_id(colon + 1)) {
      srv__fail(req, SRV_ERR_BAD_PARAMETER, "after",
                "'after' must be the \"next\" of a previous page "
                "(<kind>:<id>)");
      return -1;
    }
    page->after = true;
    page->after_kind = (store_kind)kind;
    memcpy(page->after_id, colon + 1, FMT_ID_LEN + 1);
  }
  return 0;
}

bool srv_list_page_past(const srv_list_page_t *page, store_kind kind,
                        const char *id) {
  if (!page->after || kind != page->after_kind)
    return !page->after || kind > page->after_kind;
  return memcmp(id, page->after_id, FMT_ID_LEN) > 0;
}

int srv_list_page_answer(fmt_buf_t *b, const srv_list_page_t *page,
                         const fmt_asset_summary_t *items, size_t count) {
  bool more = count > page->limit;
  size_t n = more ? page->limit : count;
  if (fmt_answer_assets(b, items, n) != 0) return -1;
  if (more && n > 0 && b->len > 0 && b->data[b->len - 1] == '}') {
    b->len--; /* The answer's closing brace, put back after "next". */
    fmt_buf_printf(b, ",\"next\":\"%s:%s\"}",
                   store_kind_name((store_kind)items[n - 1].kind),
                   items[n - 1].id);
  }
  fmt_buf_putc(b, '\n');
  return b->failed ? -1 : 0;
}
