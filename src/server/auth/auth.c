/* server/auth: the access rules and rate limits between the router and
 * the handlers (auth.h). */
#include "server/auth/auth.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <uv.h>

#include "server/auth/address.h"
#include "server/auth/forwarded.h"
#include "server/auth/rate_limit.h"
#include "server/auth/tokens.h"
#include "server/errors.h"

/* Why a request was refused, for /metrics. */
enum { REFUSED_UNAUTHORIZED, REFUSED_FORBIDDEN, REFUSED_KINDS };

struct srv_auth_s {
  char tokens_file[1024];
  bool have_tokens;    /* A tokens file is configured. */
  srv_tokens_t tokens; /* Under tokens_lock: SIGHUP swaps it. */
  pthread_rwlock_t tokens_lock;
  bool auth_reads, auth_metrics, anonymous_writes;
  bool beyond_loopback;
  char rate_mode[8]; /* auto, on, off */
  srv_rate_t rates[SRV_LIMIT_KINDS_];
  unsigned table_size;
  srv_limiter_t *limiter; /* NULL: rate limits off. */
  srv_prefix_list_t trusted;
  /* Counted by every HTTP loop. */
  _Atomic uint64_t refused[REFUSED_KINDS];
  _Atomic uint64_t limited[SRV_LIMIT_KINDS_];
  _Atomic uint64_t reloads, reload_failures;
};

int srv_auth_new(const srv_config_t *cfg, srv_auth_t **out, char *err,
                 size_t err_len) {
  srv_auth_t *a = calloc(1, sizeof *a);
  if (a == NULL) {
    snprintf(err, err_len, "access control: out of memory");
    return -1;
  }
  pthread_rwlock_init(&a->tokens_lock, NULL);
  snprintf(a->tokens_file, sizeof a->tokens_file, "%s", cfg->tokens_file);
  a->have_tokens = cfg->tokens_file[0] != '\0';
  a->auth_reads = cfg->auth_reads;
  a->auth_metrics = cfg->auth_metrics;
  a->anonymous_writes = cfg->allow_anonymous_writes;
  snprintf(a->rate_mode, sizeof a->rate_mode, "%s", cfg->rate_limits);
  a->rates[SRV_LIMIT_CONNECTION] =
      (srv_rate_t){cfg->connection_rate, cfg->connection_burst};
  a->rates[SRV_LIMIT_WRITE] = (srv_rate_t){cfg->write_rate, cfg->write_burst};
  a->table_size = cfg->rate_table_size;
  char msg[512];
  if (!a->have_tokens && (a->auth_reads || a->auth_metrics)) {
    snprintf(err, err_len, "%s needs a tokens_file",
             a->auth_reads ? "auth_reads" : "auth_metrics");
    goto fail;
  }
  if (srv_prefix_list_parse(cfg->trusted_proxies, &a->trusted, msg,
                            sizeof msg) != 0) {
    snprintf(err, err_len, "trusted_proxies: %s", msg);
    goto fail;
  }
  if (a->have_tokens &&
      srv_tokens_load(a->tokens_file, &a->tokens, msg, sizeof msg) != 0) {
    snprintf(err, err_len, "tokens_file %s", msg);
    goto fail;
  }
  if (srv_auth_set_exposed(a, false) != 0) {
    snprintf(err, err_len, "rate limits: out of memory");
    goto fail;
  }
  *out = a;
  return 0;

fail:
  srv_auth_free(a);
  return -1;
}

void srv_auth_free(srv_auth_t *a) {
  if (a == NULL) return;
  srv_tokens_free(&a->tokens);
  srv_limiter_free(a->limiter);
  pthread_rwlock_destroy(&a->tokens_lock);
  free(a);
}

/* Whether every client's writes are rate limited: rate_limits = on, or
 * auto when listening beyond loopback. */
static bool limits_all(const srv_auth_t *a) {
  if (strcmp(a->rate_mode, "on") == 0) return true;
  if (strcmp(a->rate_mode, "off") == 0) return false;
  return a->beyond_loopback;
}

/* Whether the limiter is needed: for every client, or (auto) for the
 * clients beyond loopback that trusted proxies forward. */
static bool limits_wanted(const srv_auth_t *a) {
  return limits_all(a) ||
         (strcmp(a->rate_mode, "auto") == 0 && a->trusted.count > 0);
}

int srv_auth_set_exposed(srv_auth_t *a, bool beyond_loopback) {
  a->beyond_loopback = beyond_loopback;
  bool want = limits_wanted(a);
  if (want && a->limiter == NULL)
    return srv_limiter_new(a->table_size, &a->limiter);
  if (!want) {
    srv_limiter_free(a->limiter);
    a->limiter = NULL;
  }
  return 0;
}

static void describe_tokens(const srv_tokens_t *t, char *out, size_t cap) {
  snprintf(out, cap, "%zu token%s: %zu read, %zu write, %zu admin", t->count,
           t->count == 1 ? "" : "s", srv_tokens_count(t, SRV_SCOPE_READ),
           srv_tokens_count(t, SRV_SCOPE_WRITE),
           srv_tokens_count(t, SRV_SCOPE_ADMIN));
}

int srv_auth_reload(srv_auth_t *a, char *msg, size_t cap) {
  msg[0] = '\0';
  if (!a->have_tokens) return 1;
  srv_tokens_t fresh;
  char why[512];
  if (srv_tokens_load(a->tokens_file, &fresh, why, sizeof why) != 0) {
    a->reload_failures++;
    char now[128];
    pthread_rwlock_rdlock(&a->tokens_lock);
    describe_tokens(&a->tokens, now, sizeof now);
    pthread_rwlock_unlock(&a->tokens_lock);
    snprintf(msg, cap, "tokens_file not reloaded: %s; keeping the %s", why,
             now);
    return -1;
  }
  char now[128];
  describe_tokens(&fresh, now, sizeof now);
  pthread_rwlock_wrlock(&a->tokens_lock);
  srv_tokens_t old = a->tokens;
  a->tokens = fresh;
  pthread_rwlock_unlock(&a->tokens_lock);
  srv_tokens_free(&old);
  a->reloads++;
  snprintf(msg, cap, "tokens_file %s reloaded: %s", a->tokens_file, now);
  return 0;
}

/* ---- the check between the router and the handler ------------------------ */

/* The scope a request of class access needs (SRV_SCOPE_NONE: open to
 * all). */
static srv_scope needed(const srv_auth_t *a, srv_access access) {
  switch (access) {
  case SRV_ACCESS_WRITE: return SRV_SCOPE_WRITE;
  case SRV_ACCESS_ADMIN:
    return a->auth_metrics ? SRV_SCOPE_ADMIN : SRV_SCOPE_NONE;
  case SRV_ACCESS_READ: return a->auth_reads ? SRV_SCOPE_READ : SRV_SCOPE_NONE;
  case SRV_ACCESS_OPEN: break;
  }
  return SRV_SCOPE_NONE;
}

/* The bearer token req presents, or NULL: the Authorization header's,
 * else (on /v1/stream only) the token query parameter. */
static const char *credential(const srv_request_t *req) {
  const char *h = srv_request_header(req, "Authorization");
  if (h != NULL) {
    if (strncasecmp(h, "Bearer", 6) != 0 || (h[6] != ' ' && h[6] != '\t'))
      return NULL;
    h += 6;
    while (*h == ' ' || *h == '\t') h++;
    return *h ? h : NULL;
  }
  if (req->query_token) {
    const char *t = srv_request_param(req, "token");
    if (t != NULL && *t) return t;
  }
  return NULL;
}

static void refuse(srv_request_t *req, srv_error_code code, const char *extra,
                   const char *fmt, const char *arg1, const char *arg2) {
  char message[256];
  snprintf(message, sizeof message, fmt, arg1, arg2);
  srv_respond_error_h(req, srv_error_status(code), extra, srv_error_name(code),
                      NULL, "%s", message);
}

/* Answers 429 for an event of kind that must wait wait_ns. */
static void refuse_rate(srv_request_t *req, uint64_t wait_ns) {
  uint64_t s = (wait_ns + 999999999ull) / 1000000000ull;
  char extra[64];
  snprintf(extra, sizeof extra, "Retry-After: %llu\r\n",
           (unsigned long long)(s ? s : 1));
  srv_respond_error_h(req, srv_error_status(SRV_ERR_RATE_LIMITED), extra,
                      srv_error_name(SRV_ERR_RATE_LIMITED), NULL,
                      "too many uploads and deletes from this address: "
                      "retry in %llu s",
                      (unsigned long long)(s ? s : 1));
}

bool srv_auth_admit(srv_auth_t *a, srv_request_t *req, srv_access access) {
  bool write = access == SRV_ACCESS_WRITE;
  srv_scope need = needed(a, access);
  /* The client as the rules see it: the peer, or the one a trusted proxy
   * forwards; beyond loopback unless it is a loopback address (or no
   * address at all: the in-memory transport). */
  srv_addr_t client;
  bool remote = false;
  if (write)
    remote = srv_client_address(req, &a->trusted, &client) == 0 &&
             !srv_addr_is_loopback(&client);
  if (write && a->limiter != NULL && (remote || limits_all(a))) {
    srv_addr_t key = srv_addr_client_key(&client);
    uint64_t wait =
        srv_limiter_take(a->limiter, SRV_LIMIT_WRITE,
                         &a->rates[SRV_LIMIT_WRITE], &key, uv_hrtime());
    if (wait != 0) {
      a->limited[SRV_LIMIT_WRITE]++;
      refuse_rate(req, wait);
      return false;
    }
  }
  if (need == SRV_SCOPE_NONE) return true;
  if (!a->have_tokens) {
    /* Writes without tokens: only on loopback, listening and client. */
    if (!write || a->anonymous_writes || (!a->beyond_loopback && !remote))
      return true;
    a->refused[REFUSED_FORBIDDEN]++;
    refuse(req, SRV_ERR_FORBIDDEN, NULL,
           "uploads and deletes are refused: %s without a tokens_file; set "
           "tokens_file (write tokens), or allow_anonymous_writes = true to "
           "accept them from anyone",
           a->beyond_loopback
               ? "animd listens beyond loopback"
               : "the client is beyond loopback (forwarded by a trusted "
                 "proxy)",
           "");
    return false;
  }
  const char *token = credential(req);
  srv_scope has = SRV_SCOPE_NONE;
  if (token != NULL) {
    unsigned char hash[SRV_TOKEN_HASH_LEN];
    srv_token_hash(token, strlen(token), hash);
    pthread_rwlock_rdlock(&a->tokens_lock);
    has = srv_tokens_find(&a->tokens, hash);
    pthread_rwlock_unlock(&a->tokens_lock);
  }
  if (has == SRV_SCOPE_NONE) {
    a->refused[REFUSED_UNAUTHORIZED]++;
    refuse(req, SRV_ERR_UNAUTHORIZED,
           token == NULL ? "WWW-Authenticate: Bearer realm=\"animd\"\r\n"
                         : "WWW-Authenticate: Bearer realm=\"animd\", "
                           "error=\"invalid_token\"\r\n",
           token == NULL ? "this needs a %s token: Authorization: Bearer "
                           "<token>%s"
                         : "the bearer token is not known here%s%s",
           token == NULL ? srv_scope_name(need) : "",
           token == NULL && req->query_token ? " (or ?token=<token>)" : "");
    return false;
  }
  if (has < need) {
    a->refused[REFUSED_FORBIDDEN]++;
    char extra[128];
    snprintf(extra, sizeof extra,
             "WWW-Authenticate: Bearer realm=\"animd\", "
             "error=\"insufficient_scope\", scope=\"%s\"\r\n",
             srv_scope_name(need));
    refuse(req, SRV_ERR_FORBIDDEN, extra,
           "this needs a %s token; the token given is a %s token",
           srv_scope_name(need), srv_scope_name(has));
    return false;
  }
  return true;
}

bool srv_auth_session_token(srv_auth_t *a, const srv_request_t *req,
                            srv_access access,
                            uint8_t hash[SRV_TOKEN_HASH_LEN]) {
  if (!a->have_tokens || needed(a, access) == SRV_SCOPE_NONE) return false;
  const char *token = credential(req);
  if (token == NULL) return false;
  srv_token_hash(token, strlen(token), hash);
  return true;
}

bool srv_auth_token_valid(void *auth, const uint8_t hash[SRV_TOKEN_HASH_LEN]) {
  srv_auth_t *a = auth;
  pthread_rwlock_rdlock(&a->tokens_lock);
  srv_scope has = srv_tokens_find(&a->tokens, hash);
  pthread_rwlock_unlock(&a->tokens_lock);
  return has != SRV_SCOPE_NONE;
}

uint64_t srv_auth_admit_connection(srv_auth_t *a, const char *peer) {
  /* Only a listener beyond loopback meets peers beyond it. */
  if (a->limiter == NULL || !limits_all(a)) return 0;
  srv_addr_t addr;
  if (srv_addr_parse(peer, strlen(peer), &addr) != 0) return 0;
  if (srv_prefix_list_has(&a->trusted, &addr)) return 0;
  srv_addr_t key = srv_addr_client_key(&addr);
  uint64_t wait =
      srv_limiter_take(a->limiter, SRV_LIMIT_CONNECTION,
                       &a->rates[SRV_LIMIT_CONNECTION], &key, uv_hrtime());
  if (wait != 0) a->limited[SRV_LIMIT_CONNECTION]++;
  return wait;
}

/* ---- reports ------------------------------------------------------------- */

void srv_auth_describe(srv_auth_t *a, char *out, size_t cap) {
  char mode[256];
  if (a->have_tokens) {
    char t[128];
    pthread_rwlock_rdlock(&a->tokens_lock);
    describe_tokens(&a->tokens, t, sizeof t);
    pthread_rwlock_unlock(&a->tokens_lock);
    snprintf(mode, sizeof mode,
             "tokens (%s): writes need write, reads %s, "
             "/metrics %s",
             t, a->auth_reads ? "need read" : "open",
             a->auth_metrics ? "needs admin" : "open");
  } else if (!a->beyond_loopback) {
    snprintf(mode, sizeof mode, "open (loopback only, no tokens_file)%s",
             a->trusted.count && !a->anonymous_writes
                 ? ", read-only to clients forwarded from beyond loopback"
                 : "");
  } else if (a->anonymous_writes) {
    snprintf(mode, sizeof mode,
             "open to anonymous writes beyond loopback "
             "(allow_anonymous_writes)");
  } else {
    snprintf(mode, sizeof mode,
             "read-only beyond loopback: uploads and "
             "deletes refused (no tokens_file)");
  }
  char limits[200];
  if (a->limiter == NULL)
    snprintf(limits, sizeof limits, "rate limits off");
  else
    snprintf(limits, sizeof limits,
             "rate limits per address%s: connections "
             "%g/s (burst %g), writes %g/s (burst %g)",
             limits_all(a) ? "" : " (forwarded clients beyond loopback)",
             a->rates[SRV_LIMIT_CONNECTION].per_s,
             a->rates[SRV_LIMIT_CONNECTION].burst,
             a->rates[SRV_LIMIT_WRITE].per_s, a->rates[SRV_LIMIT_WRITE].burst);
  snprintf(out, cap, "access: %s; %s%s", mode, limits,
           a->trusted.count ? ", X-Forwarded-For from trusted_proxies" : "");
}

int srv_auth_metrics_render(srv_auth_t *a, char **text, size_t *len) {
  pthread_rwlock_rdlock(&a->tokens_lock);
  size_t tokens = a->tokens.count;
  pthread_rwlock_unlock(&a->tokens_lock);
  char buf[2048];
  int n = snprintf(
      buf, sizeof buf,
      "# HELP animd_auth_refused_total Requests refused by access control.\n"
      "# TYPE animd_auth_refused_total counter\n"
      "animd_auth_refused_total{code=\"unauthorized\"} %llu\n"
      "animd_auth_refused_total{code=\"forbidden\"} %llu\n"
      "# HELP animd_rate_limited_total Connections and writes refused by "
      "the per-address rate limits (429).\n"
      "# TYPE animd_rate_limited_total counter\n"
      "animd_rate_limited_total{kind=\"connection\"} %llu\n"
      "animd_rate_limited_total{kind=\"write\"} %llu\n"
      "# HELP animd_rate_limit_addresses Client addresses the rate limits "
      "remember.\n"
      "# TYPE animd_rate_limit_addresses gauge\n"
      "animd_rate_limit_addresses %u\n"
      "# HELP animd_rate_limit_evictions_total Addresses forgotten to make "
      "room for new ones.\n"
      "# TYPE animd_rate_limit_evictions_total counter\n"
      "animd_rate_limit_evictions_total %llu\n"
      "# HELP animd_auth_tokens Bearer tokens in force.\n"
      "# TYPE animd_auth_tokens gauge\n"
      "animd_auth_tokens %zu\n"
      "# HELP animd_auth_reloads_total Reloads of the tokens file.\n"
      "# TYPE animd_auth_reloads_total counter\n"
      "animd_auth_reloads_total{result=\"ok\"} %llu\n"
      "animd_auth_reloads_total{result=\"failed\"} %llu\n",
      (unsigned long long)a->refused[REFUSED_UNAUTHORIZED],
      (unsigned long long)a->refused[REFUSED_FORBIDDEN],
      (unsigned long long)a->limited[SRV_LIMIT_CONNECTION],
      (unsigned long long)a->limited[SRV_LIMIT_WRITE],
      a->limiter ? srv_limiter_size(a->limiter) : 0,
      (unsigned long long)(a->limiter ? srv_limiter_evictions(a->limiter) : 0),
      tokens, (unsigned long long)a->reloads,
      (unsigned long long)a->reload_failures);
  if (n < 0 || (size_t)n >= sizeof buf) return -ENOMEM;
  char *p = realloc(*text, *len + (size_t)n + 1);
  if (p == NULL) return -ENOMEM;
  memcpy(p + *len, buf, (size_t)n + 1);
  *text = p;
  *len += (size_t)n;
  return 0;
}

/* ---- the access log ------------------------------------------------------ */

void srv_auth_log_client(srv_auth_t *a, const srv_request_t *req, char *out,
                         size_t cap) {
  const char *peer = srv_request_peer(req);
  srv_addr_t p, client;
  if (a == NULL || a->trusted.count == 0 ||
      srv_addr_parse(peer, strlen(peer), &p) != 0 ||
      !srv_prefix_list_has(&a->trusted, &p) ||
      srv_client_address(req, &a->trusted, &client) != 0 ||
      memcmp(&client, &p, sizeof p) == 0) {
    size_t n = strnlen(peer, cap - 1);
    memcpy(out, peer, n);
    out[n] = '\0';
    return;
  }
  char name[64];
  srv_addr_name(&client, name, sizeof name);
  snprintf(out, cap, "%s via %s", name, peer);
}

void srv_auth_log_id(const srv_request_t *req, char *out) {
  const char *token = credential(req);
  if (token == NULL) {
    snprintf(out, SRV_TOKEN_ID_LEN + 1, "-");
    return;
  }
  unsigned char hash[SRV_TOKEN_HASH_LEN];
  srv_token_hash(token, strlen(token), hash);
  srv_token_id(hash, out);
}

/* Whether the value of the raw query name s (n bytes) stays out of the
 * log: the name decodes as the request's parameters do (srv_query_decode)
 * to "token" compared as they are looked up, as a C string ("token%00"
 * too), or it holds a control character (such a request is refused, and
 * its line still logged). */
static bool hides_value(const char *s, size_t n) {
  /* Without '%' or '+' the name decodes to itself. */
  if (memchr(s, '%', n) == NULL && memchr(s, '+', n) == NULL)
    return (n == 5 && memcmp(s, "token", 5) == 0) ||
           srv_query_name_has_control(s, n);
  char small[64];
  char *name = n < sizeof small ? small : malloc(n + 1);
  if (name == NULL) return true;
  char *end = srv_query_decode(s, n, name);
  bool hide = strcmp(name, "token") == 0 ||
              srv_query_name_has_control(name, (size_t)(end - name) - 1);
  if (name != small) free(name);
  return hide;
}

/* Whether no name of the raw query q (n bytes) hides its value: it holds
 * no '%', '+', control character or "token" (most queries). */
static bool shows_every_value(const char *q, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)q[i];
    if (c < 0x20 || c == 0x7f || c == '%' || c == '+') return false;
    if (c == 't' && n - i >= 5 && memcmp(q + i, "token", 5) == 0) return false;
  }
  return true;
}

void srv_auth_redact_target(const char *target, char *out, size_t cap) {
  if (cap == 0) return;
  size_t o = 0;
  /* Appends the n bytes of s, as many as fit before the NUL. */
#define REDACT_PUT(s, n)                                                       \
  do {                                                                         \
    size_t put_ = (n) < cap - 1 - o ? (n) : cap - 1 - o;                       \
    memcpy(out + o, (s), put_);                                                \
    o += put_;                                                                 \
  } while (0)
  const char *q = strchr(target, '?');
  size_t head = q ? (size_t)(q - target) + 1 : strlen(target);
  REDACT_PUT(target, head);
  if (q != NULL) {
    size_t rest = strlen(q + 1);
    if (shows_every_value(q + 1, rest)) {
      REDACT_PUT(q + 1, rest);
      q = NULL;
    }
  }
  for (const char *s = q ? q + 1 : ""; *s;) {
    size_t n = strcspn(s, "&");
    const char *eq = memchr(s, '=', n);
    size_t keep = n;
    if (eq != NULL && hides_value(s, (size_t)(eq - s)))
      keep = (size_t)(eq - s) + 1;
    REDACT_PUT(s, keep);
    if (keep < n) REDACT_PUT("*", 1);
    s += n;
    if (*s == '&') {
      REDACT_PUT("&", 1);
      s++;
    }
  }
#undef REDACT_PUT
  out[o] = '\0';
}
