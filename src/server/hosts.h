/* server: the Host allow-list: the names under which the daemon answers.
 *
 * A page from evil.test whose name is made to resolve to the daemon (DNS
 * rebinding) sends its requests with Host: evil.test, and is its own
 * origin there. So every request's Host must name the daemon, else 421
 * misdirected_request; and only such a Host makes an Origin the daemon's
 * own (cors.h). A Host names the daemon when its host part (any port) is
 *   - a loopback name or address: localhost, *.localhost, 127.0.0.0/8,
 *     [::1];
 *   - the host of the listen setting; when that is a wildcard (0.0.0.0,
 *     [::]) any IP address literal (a name can be rebound, an address
 *     cannot);
 *   - a name of the allowed_hosts setting (comma- or space-separated;
 *     "*" allows any Host).
 * A request without Host (HTTP/1.0; no browser sends one) is let through.
 * Like cors.h, the policy is the settings' text read where it is needed:
 * pure functions, no state, any thread. */
#ifndef ANIMD_SERVER_HOSTS_H
#define ANIMD_SERVER_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

/* Checks the syntax of an allowed_hosts list: host names or addresses
 * (no scheme, no port), or "*". Returns 0, or -1 with a message naming
 * the bad entry in err (err_len bytes). */
int srv_hosts_validate(const char *list, char *err, size_t err_len);

/* True when host (a Host header's value; NULL when absent) names the
 * daemon configured with this allowed_hosts list and listen setting. */
bool srv_host_allowed(const char *list, const char *listen, const char *host);

/* True when the len bytes at h are a loopback host: localhost (or a name
 * under it), 127.0.0.0/8 as a dotted quad, or [::1] (with brackets). */
bool srv_host_is_loopback(const char *h, size_t len);

/* The next entry of a configured list (entries separated by commas or
 * white space) from *s: *entry and *len set, *s moved past it; false at
 * the end. The allow-lists of hosts and origins read their settings with
 * it. */
bool srv_list_next(const char **s, const char **entry, size_t *len);

#endif
