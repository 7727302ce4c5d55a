/* server: a name and a value, as text (a header, a decoded query
 * parameter, an `animd eval` option): the shape the HTTP parser fills and
 * the request parsers (request/requests.h) read, whatever the transport. */
#ifndef ANIMD_SERVER_KV_H
#define ANIMD_SERVER_KV_H

typedef struct srv_kv_s {
  const char *name;
  const char *value;
} srv_kv_t;

#endif
