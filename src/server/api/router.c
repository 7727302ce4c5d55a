/* server: dispatch by the routing table (router.h). The rows become, once,
 * a table of their path patterns: each literal segment a word number (a
 * hash table of the rows' words), each pattern a key (its segment count
 * and the numbers of its segments, {id} a wildcard) in a hash table whose
 * entries hold the row of each method and the methods of all. A request's
 * path is split into segments once, each segment looked up once; then one
 * key per pattern shape (a segment count and where its {id} sits, a
 * handful) finds the pattern: no string compare per row. Access control
 * asks the row's class; the row's handler answers. */
#include "server/api/router.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "server/api/answer.h"
#include "server/api/params.h"
#include "server/errors.h"
#include "server/services.h"
#include "server/web/preflight.h"
#include "server/web/static.h"

/* The longest {id} segment (bytes). */
#define ID_MAX 255
/* The most segments of a pattern: a deeper path matches no row. */
#define SEG_MAX 8
/* Distinct literal segments of the rows, and their hash slots. */
#define WORD_MAX 63
#define WORD_SLOTS 128
/* Distinct patterns, their hash slots, and distinct shapes. */
#define PATTERN_MAX 64
#define PATTERN_SLOTS 128
#define SHAPE_MAX 16
/* A segment's number in a key: a word, the {id} wildcard, or no word. */
#define SEG_WILD 63
#define SEG_NONE 0xff
#define NO_ID 0xff
#define METHODS 8

typedef struct pattern_s {
  uint64_t key;
  unsigned allow;
  const srv_route_t *first;        /* Its first row. */
  const srv_route_t *row[METHODS]; /* The first row of each method. */
} pattern_t;

static struct {
  const char *word[WORD_MAX];
  uint8_t word_len[WORD_MAX];
  uint8_t word_slot[WORD_SLOTS]; /* Number + 1; 0: empty. */
  unsigned words;
  pattern_t pattern[PATTERN_MAX];
  uint8_t pattern_slot[PATTERN_SLOTS]; /* Number + 1; 0: empty. */
  unsigned patterns;
  struct {
    uint8_t count, id_at;
  } shape[SHAPE_MAX];
  unsigned shapes;
  /* The rows do not fit the bounds above: nothing matches (the router's
   * tests, which match every row, fail). */
  bool broken;
} table;

static pthread_once_t table_once = PTHREAD_ONCE_INIT;

/* The hash of a segment: word_step over its bytes from WORD_SEED, then
 * word_end with its length. */
#define WORD_SEED 0x811c9dc5u
static inline uint32_t word_step(uint32_t h, unsigned char c) {
  return (h ^ c) * 0x01000193u;
}
static inline uint32_t word_end(uint32_t h, size_t n) {
  h ^= (uint32_t)n * 0x9e3779b1u;
  return h ^ (h >> 15);
}

static uint32_t word_hash(const char *s, size_t n) {
  uint32_t h = WORD_SEED;
  for (size_t i = 0; i < n; i++) h = word_step(h, (unsigned char)s[i]);
  return word_end(h, n);
}

/* The number of the word s (n bytes) of hash h, or SEG_NONE. */
static unsigned word_find(const char *s, size_t n, uint32_t h) {
  for (uint32_t i = h;; i++) {
    unsigned k = table.word_slot[i & (WORD_SLOTS - 1)];
    if (k == 0) return SEG_NONE;
    if (table.word_len[k - 1] != n) continue;
    /* Words are short: a loop beats a call. */
    const char *w = table.word[k - 1];
    size_t j = 0;
    while (j < n && w[j] == s[j]) j++;
    if (j == n) return k - 1;
  }
}

static unsigned word_number(const char *s, size_t n) {
  return word_find(s, n, word_hash(s, n));
}

/* The key of count segments numbered seg. */
static uint64_t key_of(const uint8_t *seg, unsigned count) {
  uint64_t key = count;
  for (unsigned i = 0; i < count; i++) key |= (uint64_t)seg[i] << (4 + 6 * i);
  return key;
}

static uint32_t key_hash(uint64_t key) {
  key *= 0x9e3779b97f4a7c15ull;
  return (uint32_t)(key >> 32);
}

/* The pattern of key, or NULL. */
static pattern_t *pattern_find(uint64_t key) {
  for (uint32_t i = key_hash(key);; i++) {
    unsigned k = table.pattern_slot[i & (PATTERN_SLOTS - 1)];
    if (k == 0) return NULL;
    if (table.pattern[k - 1].key == key) return &table.pattern[k - 1];
  }
}

/* A path split at '/': the start and length of each segment, and the key
 * of its words (key_of; a segment that is no word of the rows counts as
 * word 0 there and has its bit in unknown). */
typedef struct segments_s {
  unsigned count;
  const char *at[SEG_MAX];
  size_t len[SEG_MAX];
  uint64_t key;
  unsigned unknown;
} segments_t;

/* Splits path ("/a/b": "a", "b"; "/a/": "a", "") in one pass, hashing
 * each segment as it goes; false when it does not start with '/' or has
 * more than SEG_MAX segments. With words false (while the table is being
 * built) no word is looked up. */
static bool split(const char *path, segments_t *s, bool words) {
  if (path[0] != '/') return false;
  s->count = 0;
  s->unknown = 0;
  const char *start = path + 1, *p = start;
  uint32_t h = WORD_SEED;
  uint64_t key = 0;
  for (;; p++) {
    unsigned char c = (unsigned char)*p;
    if (c != '/' && c != '\0') {
      h = word_step(h, c);
      continue;
    }
    if (s->count == SEG_MAX) return false;
    size_t n = (size_t)(p - start);
    unsigned i = s->count++;
    s->at[i] = start;
    s->len[i] = n;
    unsigned w = words ? word_find(start, n, word_end(h, n)) : SEG_NONE;
    if (w == SEG_NONE)
      s->unknown |= 1u << i;
    else
      key |= (uint64_t)w << (4 + 6 * i);
    if (c == '\0') break;
    start = p + 1;
    h = WORD_SEED;
  }
  s->key = key | s->count;
  return true;
}

/* Adds the literal segments of text as words and their numbers to seg
 * from *count on; false when a bound is passed. text is a whole path
 * ("/a/b"), the prefix before an {id} (before_id: "/a/b/", whose last
 * segment "" is the {id}'s place) or the suffix after it ("/c" or ""). */
static bool words_add(const char *text, bool before_id, uint8_t *seg,
                      unsigned *count) {
  segments_t s;
  if (text[0] == '\0' && !before_id) return true;
  if (!split(text, &s, false)) return false;
  for (unsigned i = 0; i < s.count; i++) {
    if (before_id && i + 1 == s.count) {
      if (s.len[i] != 0) return false; /* A prefix ends with '/'. */
      break;
    }
    if (*count == SEG_MAX) return false;
    unsigned k = word_number(s.at[i], s.len[i]);
    if (k == SEG_NONE) {
      if (table.words == WORD_MAX || s.len[i] > UINT8_MAX) return false;
      k = table.words++;
      table.word[k] = s.at[i];
      table.word_len[k] = (uint8_t)s.len[i];
      uint32_t h = word_hash(s.at[i], s.len[i]);
      while (table.word_slot[h & (WORD_SLOTS - 1)] != 0) h++;
      table.word_slot[h & (WORD_SLOTS - 1)] = (uint8_t)(k + 1);
    }
    seg[(*count)++] = (uint8_t)k;
  }
  return true;
}

/* Adds row r to the pattern of its path; false when a bound is passed. */
static bool row_add(const srv_route_t *r) {
  uint8_t seg[SEG_MAX];
  unsigned count = 0, id_at = NO_ID;
  if (!words_add(r->prefix, r->id, seg, &count)) return false;
  if (r->id) {
    if (count == SEG_MAX) return false;
    id_at = count;
    seg[count++] = SEG_WILD;
    if (!words_add(r->suffix, false, seg, &count)) return false;
  }
  uint64_t key = key_of(seg, count);
  pattern_t *p = pattern_find(key);
  if (p == NULL) {
    if (table.patterns == PATTERN_MAX) return false;
    unsigned k = table.patterns++;
    p = &table.pattern[k];
    p->key = key;
    p->first = r;
    uint32_t h = key_hash(key);
    while (table.pattern_slot[h & (PATTERN_SLOTS - 1)] != 0) h++;
    table.pattern_slot[h & (PATTERN_SLOTS - 1)] = (uint8_t)(k + 1);
    unsigned s = 0;
    while (s < table.shapes &&
           (table.shape[s].count != count || table.shape[s].id_at != id_at))
      s++;
    if (s == table.shapes) {
      if (table.shapes == SHAPE_MAX) return false;
      table.shape[table.shapes].count = (uint8_t)count;
      table.shape[table.shapes++].id_at = (uint8_t)id_at;
    }
  }
  p->allow |= r->methods;
  for (unsigned m = 0; m < METHODS; m++)
    if ((r->methods & SRV_M(m)) != 0 && p->row[m] == NULL) p->row[m] = r;
  return true;
}

static void table_build(void) {
  for (size_t i = 0; i < srv_api_route_count && !table.broken; i++)
    if (!row_add(&srv_api_routes[i])) table.broken = true;
}

/* The row of method on path (the first in table order), with its {id} in
 * id (ID_MAX + 1 bytes); or NULL. Either way *allow gets the methods of
 * every row whose pattern matches path and *first the first of those rows
 * (NULL: none). */
static const srv_route_t *lookup(srv_method method, const char *path,
                                 unsigned *allow, char *id,
                                 const srv_route_t **first) {
  pthread_once(&table_once, table_build);
  *allow = 0;
  *first = NULL;
  segments_t s;
  if (table.broken || !split(path, &s, true)) return NULL;
  const srv_route_t *found = NULL;
  unsigned found_id = NO_ID;
  for (unsigned k = 0; k < table.shapes; k++) {
    if (table.shape[k].count != s.count) continue;
    unsigned id_at = table.shape[k].id_at;
    uint64_t key = s.key;
    if (id_at == NO_ID) {
      if (s.unknown != 0) continue;
    } else {
      /* The {id}: one non-empty segment, at most ID_MAX bytes, whatever
       * word it is. */
      if ((s.unknown & ~(1u << id_at)) != 0 || s.len[id_at] == 0 ||
          s.len[id_at] > ID_MAX)
        continue;
      unsigned shift = 4 + 6 * id_at;
      key = (key & ~((uint64_t)63 << shift)) | (uint64_t)SEG_WILD << shift;
    }
    const pattern_t *p = pattern_find(key);
    if (p == NULL) continue;
    *allow |= p->allow;
    if (*first == NULL || p->first < *first) *first = p->first;
    const srv_route_t *r = (unsigned)method < METHODS ? p->row[method] : NULL;
    if (r != NULL && (found == NULL || r < found)) {
      found = r;
      found_id = id_at;
    }
  }
  id[0] = '\0';
  if (found != NULL && found_id != NO_ID) {
    memcpy(id, s.at[found_id], s.len[found_id]);
    id[s.len[found_id]] = '\0';
  }
  return found;
}

const srv_route_t *srv_api_match(srv_method method, const char *path,
                                 unsigned *allow) {
  char id[ID_MAX + 1];
  const srv_route_t *first;
  return lookup(method, path, allow, id, &first);
}

void srv_api_allow_text(unsigned bits, char *out, size_t cap) {
  static const srv_method order[] = {SRV_GET, SRV_HEAD,   SRV_POST,
                                     SRV_PUT, SRV_DELETE, SRV_PATCH};
  static const char *const names[] = {"GET", "HEAD",   "POST",
                                      "PUT", "DELETE", "PATCH"};
  size_t len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    if ((bits & SRV_M(order[i])) == 0) continue;
    int n = snprintf(out + len, cap - len, "%s%s", len ? ", " : "", names[i]);
    if (n < 0 || (size_t)n >= cap - len) return;
    len += (size_t)n;
  }
}

bool srv_api_accepts(const srv_request_t *req) {
  unsigned allow;
  return srv_request_host_allowed(req) &&
         srv_api_match(req->method, req->path, &allow) != NULL;
}

static void not_allowed(srv_request_t *req, const char *allow) {
  char extra[128];
  snprintf(extra, sizeof extra, "Allow: %s\r\n", allow);
  srv_respond_error_h(req, srv_error_status(SRV_ERR_METHOD_NOT_ALLOWED), extra,
                      srv_error_name(SRV_ERR_METHOD_NOT_ALLOWED), NULL,
                      "%s is not allowed here (allowed: %s)", req->method_name,
                      allow);
}

/* Runs r's handler on req. */
static void run(const srv_route_t *r, srv_request_t *req, const char *id) {
  if (r->body != NULL) {
    if (srv__check_query(req, r->query) != 0) return;
    srv__parse_body(req, r->body);
  } else if (r->handle_id != NULL) {
    r->handle_id(req, id);
  } else {
    r->handle(req);
  }
}

void srv_api_route(srv_request_t *req) {
  /* Before anything: a Host that does not name this server is a page of
   * another site that resolves to it (DNS rebinding), whatever its path. */
  if (!srv_request_host_allowed(req)) {
    req->route = NULL;
    srv__fail(req, SRV_ERR_MISDIRECTED_REQUEST, "Host",
              "the Host is not a name of this server (see allowed_hosts)");
    return;
  }
  unsigned allow;
  char id[ID_MAX + 1];
  const srv_route_t *first;
  const srv_route_t *r = lookup(req->method, req->path, &allow, id, &first);
  if (r == NULL && first == NULL) {
    req->route = NULL;
    if (srv_web_static(req)) return;
    srv__fail(req, SRV_ERR_NOT_FOUND, NULL, "no such endpoint: %s", req->path);
    return;
  }
  if (r == NULL) {
    /* A path of the API without this method: counted under its first
     * row's label. OPTIONS (a CORS preflight) is open to all. */
    req->route = first->label;
    req->query_token = first->query_token;
    char text[64];
    srv_api_allow_text(allow, text, sizeof text);
    if (req->method == SRV_OPTIONS)
      srv_web_preflight(req, text);
    else
      not_allowed(req, text);
    return;
  }
  req->route = r->label;
  req->query_token = r->query_token;
  req->matched = r;
  /* Access control first; a request refused anyway (404, 405) is
   * answered as such. */
  if (!srv_auth_admit(srv_server_auth(srv_request_server(req)), req, r->access))
    return;
  run(r, req, id);
}

void srv_api_resume(srv_request_t *req) {
  const srv_route_t *r = req->matched;
  unsigned allow;
  char id[ID_MAX + 1];
  const srv_route_t *first;
  if (lookup(req->method, req->path, &allow, id, &first) != r) {
    srv__fail(req, SRV_ERR_INTERNAL, NULL, "the route no longer matches");
    return;
  }
  run(r, req, id);
}
