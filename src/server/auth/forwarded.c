/* server/auth: the client address of a request (forwarded.h). */
#include "server/auth/forwarded.h"

#include <string.h>
#include <strings.h>

int srv_client_address_of(const char *peer, const char *const *xff,
                          unsigned count, const srv_prefix_list_t *trusted,
                          srv_addr_t *out) {
  if (srv_addr_parse(peer, strlen(peer), out) != 0) {
    memset(out, 0, sizeof *out);
    return -1;
  }
  /* From the right: header lines last to first, entries last to first,
   * while the address so far is a trusted proxy's. */
  for (unsigned h = count; h-- > 0 && srv_prefix_list_has(trusted, out);) {
    const char *s = xff[h];
    size_t n = strlen(s); /* Entries left to read: s[0, n). */
    bool more = true;
    while (more && srv_prefix_list_has(trusted, out)) {
      size_t start = n;
      while (start > 0 && s[start - 1] != ',') start--;
      size_t a = start, b = n;
      more = start > 0;
      n = more ? start - 1 : 0;
      while (a < b && (s[a] == ' ' || s[a] == '\t')) a++;
      while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t')) b--;
      if (a == b) continue; /* An empty entry ("a,,b"). */
      srv_addr_t hop;
      /* An entry that is no address: nothing to its left can be vouched
       * for, so the last trusted hop is the client. */
      if (srv_addr_parse(s + a, b - a, &hop) != 0) return 0;
      *out = hop;
    }
  }
  return 0;
}

int srv_client_address(const srv_request_t *req,
                       const srv_prefix_list_t *trusted, srv_addr_t *out) {
  const char *xff[SRV_MAX_HEADERS];
  unsigned count = 0;
  for (unsigned i = 0; i < req->header_count && count < SRV_MAX_HEADERS; i++)
    if (strcasecmp(req->headers[i].name, "X-Forwarded-For") == 0)
      xff[count++] = req->headers[i].value;
  return srv_client_address_of(srv_request_peer(req), xff, count, trusted, out);
}
