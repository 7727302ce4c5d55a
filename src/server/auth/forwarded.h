/* server/auth: the address a request comes from, as the access rules and
 * rate limits see it: the peer of the connection, or, when the peer is a
 * trusted proxy (trusted_proxies), the client X-Forwarded-For names.
 *
 * Key choice: X-Forwarded-For is read from the right. Each proxy appends
 * the address it got the request from, so the rightmost entry not itself
 * a trusted proxy is the first one no trusted hop can vouch beyond; every
 * entry left of it may have been written by the client. From an
 * untrusted peer the header is ignored. Loop thread only. */
#ifndef ANIMD_SERVER_AUTH_FORWARDED_H
#define ANIMD_SERVER_AUTH_FORWARDED_H

#include "server/auth/address.h"
#include "server/http/http.h"

/* The client address of req into *out. Returns 0, or -1 when the peer is
 * no IP address (an in-memory transport): *out is then all zeros. */
int srv_client_address(const srv_request_t *req,
                       const srv_prefix_list_t *trusted, srv_addr_t *out);

/* The same from a peer name ("ip:port", "[v6]:port") and the
 * X-Forwarded-For values in the order they came (count of them). */
int srv_client_address_of(const char *peer, const char *const *xff,
                          unsigned count, const srv_prefix_list_t *trusted,
                          srv_addr_t *out);

#endif
