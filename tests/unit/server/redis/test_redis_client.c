/* Tests for the Redis client of the HTTP loop (server/redis/client.h) and
 * the backend's scripts (scripts.h): without a server, parsing
 * redis://host:port/db and its errors, the scripts' key layout and
 * statuses, and a client pointed at a port where nothing listens (never
 * up, commands refused with UV_ENOTCONN, closes clean); with a real
 * redis-server (redis_fixture.h), the scripts run by Redis itself
 * (publishing nothing, a 64-hex-digit name that is no id, list pages and
 * their cursor, the messages the deletes publish), commands and their
 * replies in order,
 * binary-safe arguments, the database of the URL, messages of the
 * subscribed channel, a command left unanswered past the timeout (the
 * connections are dropped and made again, the subscription comes back),
 * and a server stopped and started again mid-test. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis_fixture.h"
#include "server/redis/client.h"
#include "server/redis/scripts.h"

/* ---- parsing URLs (no server) ------------------------------------------ */

static void parse_ok(const char *url, const char *host, int port, int db) {
  srv_redis_opts_t o;
  memset(&o, 0, sizeof o);
  char err[256] = "";
  ck_assert_msg(srv_redis_parse_url(url, &o, err, sizeof err) == 0, "%s: %s",
                url, err);
  ck_assert_str_eq(o.host, host);
  ck_assert_int_eq(o.port, port);
  ck_assert_int_eq(o.db, db);
}

static void parse_fails(const char *url, const char *message) {
  srv_redis_opts_t o;
  memset(&o, 0, sizeof o);
  char err[256] = "";
  ck_assert_int_eq(srv_redis_parse_url(url, &o, err, sizeof err), -1);
  ck_assert_str_eq(err, message);
}

START_TEST(test_parse_url_forms) {
  parse_ok("redis://127.0.0.1", "127.0.0.1", 6379, 0);
  parse_ok("redis://127.0.0.1/", "127.0.0.1", 6379, 0);
  parse_ok("redis://127.0.0.1:7000", "127.0.0.1", 7000, 0);
  parse_ok("redis://127.0.0.1:7000/", "127.0.0.1", 7000, 0);
  parse_ok("redis://127.0.0.1:7000/5", "127.0.0.1", 7000, 5);
  parse_ok("redis://127.0.0.1/12", "127.0.0.1", 6379, 12);
  parse_ok("redis://127.0.0.1:1/0", "127.0.0.1", 1, 0);
  parse_ok("redis://127.0.0.1:65535/1000000", "127.0.0.1", 65535, 1000000);
}
END_TEST

START_TEST(test_parse_url_resolves_localhost) {
  srv_redis_opts_t o;
  memset(&o, 0, sizeof o);
  char err[256] = "";
  ck_assert_int_eq(
      srv_redis_parse_url("redis://localhost:6390/2", &o, err, sizeof err), 0);
  /* Numeric now: the loop never resolves. */
  ck_assert_msg(strcmp(o.host, "127.0.0.1") == 0 || strcmp(o.host, "::1") == 0,
                "%s", o.host);
  ck_assert_int_eq(o.port, 6390);
  ck_assert_int_eq(o.db, 2);
}
END_TEST

START_TEST(test_parse_url_errors) {
  parse_fails("http://127.0.0.1:6379",
              "store: 'http://127.0.0.1:6379' is not redis://host:port/db");
  parse_fails("", "store: '' is not redis://host:port/db");
  parse_fails("redis:/127.0.0.1", "store: 'redis:/127.0.0.1' is not "
                                  "redis://host:port/db");
  parse_fails("redis://", "store: 'redis://' names no host");
  parse_fails("redis://:6379", "store: 'redis://:6379' names no host");
  parse_fails("redis:///0", "store: 'redis:///0' names no host");
  parse_fails("redis://127.0.0.1:0", "store: bad port in "
                                     "'redis://127.0.0.1:0'");
  parse_fails("redis://127.0.0.1:65536", "store: bad port in "
                                         "'redis://127.0.0.1:65536'");
  parse_fails("redis://127.0.0.1:", "store: bad port in 'redis://127.0.0.1:'");
  parse_fails("redis://127.0.0.1:x", "store: bad port in "
                                     "'redis://127.0.0.1:x'");
  parse_fails("redis://127.0.0.1:-1", "store: bad port in "
                                      "'redis://127.0.0.1:-1'");
  parse_fails("redis://127.0.0.1:80x", "store: 'redis://127.0.0.1:80x' is not "
                                       "redis://host:port/db");
  parse_fails("redis://127.0.0.1:6379/x", "store: bad database number in "
                                          "'redis://127.0.0.1:6379/x'");
  parse_fails("redis://127.0.0.1:6379/1x", "store: bad database number in "
                                           "'redis://127.0.0.1:6379/1x'");
  parse_fails("redis://127.0.0.1:6379/-1", "store: bad database number in "
                                           "'redis://127.0.0.1:6379/-1'");
  parse_fails("redis://127.0.0.1:6379/1000001",
              "store: bad database number in "
              "'redis://127.0.0.1:6379/1000001'");
}
END_TEST

START_TEST(test_parse_url_host_length) {
  /* The host buffer holds 255 characters. */
  char host[300], url[400], err[1024] = "";
  memset(host, 'a', 256);
  host[256] = '\0';
  snprintf(url, sizeof url, "redis://%s:6379", host);
  srv_redis_opts_t o;
  memset(&o, 0, sizeof o);
  ck_assert_int_eq(srv_redis_parse_url(url, &o, err, sizeof err), -1);
  char want[512];
  snprintf(want, sizeof want, "store: '%s' names no host", url);
  ck_assert_str_eq(err, want);
}
END_TEST

/* ---- the scripts' text (no server) -------------------------------------- */

START_TEST(test_scripts_layout) {
  ck_assert_str_eq(SRV_REDIS_CHANNEL, "animd:events");
  /* Every change is published on the channel the backend subscribes to. */
  ck_assert_ptr_nonnull(strstr(srv_redis_publish_script,
                               "redis.call('PUBLISH', 'animd:events', 'name "));
  ck_assert_ptr_nonnull(strstr(srv_redis_remove_script,
                               "redis.call('PUBLISH', 'animd:events', 'drop "));
  ck_assert_ptr_nonnull(strstr(srv_redis_cascade_script,
                               "'animd:events', 'drop skeleton ' .. id"));
  /* Seven arguments per asset after the count. */
  ck_assert_ptr_nonnull(strstr(srv_redis_publish_script, "ARGV[8 + i * 7]"));
  ck_assert_ptr_null(strstr(srv_redis_publish_script, "ARGV[9 + i * 7]"));
  /* The statuses the backend reads. */
  ck_assert_ptr_nonnull(
      strstr(srv_redis_publish_script, "{'ok', created, moved}"));
  ck_assert_ptr_nonnull(strstr(srv_redis_publish_script, "{'name_conflict',"));
  ck_assert_ptr_nonnull(strstr(srv_redis_publish_script, "{'gone',"));
  ck_assert_ptr_nonnull(strstr(srv_redis_remove_script, "{'conflict', c, m}"));
  ck_assert_ptr_nonnull(strstr(srv_redis_remove_script, "{'not_found'}"));
  ck_assert_ptr_nonnull(strstr(srv_redis_cascade_script, "return out"));
  ck_assert_ptr_nonnull(
      strstr(srv_redis_list_script, "return {#ids, out, ids[#ids] or ''}"));
  ck_assert_ptr_nonnull(
      strstr(srv_redis_lookup_script,
             "return {'ok', id, a[1], a[2], st, u, s[2] or ''}"));
  /* The forget function is shared by the two deletes, after the children
   * function every script touching a skeleton's sets shares. */
  ck_assert_ptr_nonnull(
      strstr(srv_redis_remove_script, "local function forget"));
  ck_assert_ptr_nonnull(
      strstr(srv_redis_cascade_script, "local function forget"));
  ck_assert_ptr_eq(strstr(srv_redis_remove_script, "local function children"),
                   srv_redis_remove_script);
  ck_assert_ptr_eq(strstr(srv_redis_list_script, "local function children"),
                   srv_redis_list_script);
  ck_assert_ptr_eq(strstr(srv_redis_publish_script, "local function children"),
                   srv_redis_publish_script);
}
END_TEST

/* ---- the scripts, run by Redis (EVAL) ------------------------------------ */

/* EVAL script 0 args... on a connection of its own. */
static redisReply *eval(const char *script, int argc, const char **args) {
  struct timeval tv = {2, 0};
  redisContext *c = redisConnectWithTimeout("127.0.0.1", suite_redis.port, tv);
  ck_assert(c != NULL && c->err == 0);
  const char *argv[48] = {"EVAL", script, "0"};
  ck_assert_int_le(argc, 45);
  for (int i = 0; i < argc; i++) argv[3 + i] = args[i];
  redisReply *r = redisCommandArgv(c, 3 + argc, argv, NULL);
  redisFree(c);
  ck_assert_ptr_nonnull(r);
  return r;
}

static const char *elem_str(const redisReply *r, size_t i) {
  ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
  ck_assert_uint_gt(r->elements, i);
  ck_assert_int_eq(r->element[i]->type, REDIS_REPLY_STRING);
  return r->element[i]->str;
}

static void id_text(char *id, char c) {
  memset(id, c, 64);
  id[64] = '\0';
}

/* Publishes a skeleton and clips of it named clip0.. (ids cccc.., dddd..
 * from c on). */
static void eval_publish_rig(const char *sid, const char *name, int clips,
                             char c) {
  char ids[4][65], names[4][16], n[16];
  const char *args[1 + 7 * 5];
  ck_assert_int_le(clips, 4);
  snprintf(n, sizeof n, "%d", 1 + clips);
  args[0] = n;
  const char *sk[] = {"skeleton", sid, name, "", "2", "0", "{\"s\":1}"};
  memcpy(args + 1, sk, sizeof sk);
  for (int i = 0; i < clips; i++) {
    id_text(ids[i], (char)(c + i));
    snprintf(names[i], sizeof names[i], "clip%d", i);
    const char *cl[] = {"clip", ids[i], names[i], sid, "0", "1.5", "{}"};
    memcpy(args + 1 + 7 * (1 + i), cl, sizeof cl);
  }
  redisReply *r = eval(srv_redis_publish_script, 1 + 7 * (1 + clips), args);
  ck_assert_str_eq(elem_str(r, 0), "ok");
  freeReplyObject(r);
}

START_TEST(test_script_publish_nothing) {
  NEED_REDIS();
  const char *args[] = {"0"};
  redisReply *r = eval(srv_redis_publish_script, 1, args);
  ck_assert_str_eq(elem_str(r, 0), "ok");
  ck_assert_int_eq(r->element[1]->type, REDIS_REPLY_INTEGER);
  ck_assert_int_eq(r->element[1]->integer, 0);
  freeReplyObject(r);
}
END_TEST

/* A name of 64 hex digits that is no asset's id is still a name. */
START_TEST(test_script_lookup_id_like_name) {
  NEED_REDIS();
  char sid[65], name[65];
  id_text(sid, 'a');
  id_text(name, 'f');
  eval_publish_rig(sid, name, 1, 'c');
  const char *by_name[] = {"skeleton", name, ""};
  redisReply *r = eval(srv_redis_lookup_script, 3, by_name);
  ck_assert_uint_eq(r->elements, 4);
  ck_assert_str_eq(elem_str(r, 0), "ok");
  ck_assert_str_eq(elem_str(r, 1), sid);
  ck_assert_str_eq(elem_str(r, 2), "{\"s\":1}");
  ck_assert_str_eq(elem_str(r, 3), ""); /* Its name was never moved. */
  freeReplyObject(r);
  /* A clip: its text, then its skeleton's id and text, then whether a
   * replace moved their names away. */
  const char *clip[] = {"clip", "clip0", sid};
  r = eval(srv_redis_lookup_script, 3, clip);
  ck_assert_uint_eq(r->elements, 7);
  ck_assert_str_eq(elem_str(r, 0), "ok");
  ck_assert_str_eq(elem_str(r, 2), "{}");
  ck_assert_str_eq(elem_str(r, 3), sid);
  ck_assert_str_eq(elem_str(r, 4), "{\"s\":1}");
  ck_assert_str_eq(elem_str(r, 5), "");
  ck_assert_str_eq(elem_str(r, 6), "");
  freeReplyObject(r);
  const char *wrong_kind[] = {"mesh", "clip0", sid};
  r = eval(srv_redis_lookup_script, 3, wrong_kind);
  ck_assert_uint_eq(r->elements, 1);
  ck_assert_str_eq(elem_str(r, 0), "not_found");
  freeReplyObject(r);
}
END_TEST

/* Pages: ids after the cursor (exclusive), at most limit; the count of ids
 * looked at includes those whose asset is gone, and so does the next
 * cursor (the last id looked at), so a page of stale index entries is
 * passed, never asked for again. */
START_TEST(test_script_list_pages) {
  NEED_REDIS();
  char sid[65], gone[65], c0[65], e0[65], f0[65];
  id_text(sid, 'a');
  id_text(gone, 'd');
  id_text(c0, 'c');
  id_text(e0, 'e');
  id_text(f0, 'f');
  eval_publish_rig(sid, "rig", 4, 'c');
  redisReply *d = redis_sync(suite_redis.port, "DEL animd:a:%s", gone);
  ck_assert_ptr_nonnull(d);
  freeReplyObject(d);
  const char *first[] = {"clip", "", "", "2"};
  redisReply *r = eval(srv_redis_list_script, 4, first);
  ck_assert_uint_eq(r->elements, 3);
  ck_assert_int_eq(r->element[0]->integer, 2);
  ck_assert_str_eq(r->element[2]->str, gone);    /* The cursor: past it. */
  ck_assert_uint_eq(r->element[1]->elements, 5); /* dddd.. left out. */
  ck_assert_str_eq(r->element[1]->element[0]->str, c0);
  ck_assert_str_eq(r->element[1]->element[1]->str, "clip0");
  ck_assert_str_eq(r->element[1]->element[2]->str, sid);
  ck_assert_str_eq(r->element[1]->element[3]->str, "0");
  ck_assert_str_eq(r->element[1]->element[4]->str, "1.5");
  freeReplyObject(r);
  const char *next[] = {"clip", "", gone, "2"};
  r = eval(srv_redis_list_script, 4, next);
  ck_assert_int_eq(r->element[0]->integer, 2);
  ck_assert_uint_eq(r->element[1]->elements, 10);
  ck_assert_str_eq(r->element[1]->element[0]->str, e0);
  ck_assert_str_eq(r->element[1]->element[5]->str, f0);
  freeReplyObject(r);
  const char *last[] = {"clip", "", f0, "2"};
  r = eval(srv_redis_list_script, 4, last);
  ck_assert_int_eq(r->element[0]->integer, 0);
  ck_assert_uint_eq(r->element[1]->elements, 0);
  ck_assert_str_eq(r->element[2]->str, "");
  freeReplyObject(r);
  /* A skeleton's clips: paged the same way, sorted by id. */
  const char *of[] = {"clip", sid, "", "2"};
  r = eval(srv_redis_list_script, 4, of);
  ck_assert_int_eq(r->element[0]->integer, 2);
  ck_assert_uint_eq(r->element[1]->elements, 5); /* dddd.. left out. */
  ck_assert_str_eq(r->element[1]->element[0]->str, c0);
  ck_assert_str_eq(r->element[2]->str, gone);
  freeReplyObject(r);
  const char *of_next[] = {"clip", sid, gone, "2"};
  r = eval(srv_redis_list_script, 4, of_next);
  ck_assert_int_eq(r->element[0]->integer, 2);
  ck_assert_uint_eq(r->element[1]->elements, 10);
  ck_assert_str_eq(r->element[1]->element[0]->str, e0);
  ck_assert_str_eq(r->element[1]->element[5]->str, f0);
  ck_assert_str_eq(r->element[2]->str, f0);
  freeReplyObject(r);
  /* A plain set an older version left becomes a sorted set. */
  d = redis_sync(suite_redis.port, "DEL animd:d:clip:%s", sid);
  freeReplyObject(d);
  d = redis_sync(suite_redis.port, "SADD animd:d:clip:%s %s %s", sid, f0, c0);
  freeReplyObject(d);
  const char *legacy[] = {"clip", sid, "", "10"};
  r = eval(srv_redis_list_script, 4, legacy);
  ck_assert_int_eq(r->element[0]->integer, 2);
  ck_assert_str_eq(r->element[1]->element[0]->str, c0);
  ck_assert_str_eq(r->element[1]->element[5]->str, f0);
  freeReplyObject(r);
  d = redis_sync(suite_redis.port, "TYPE animd:d:clip:%s", sid);
  ck_assert_str_eq(d->str, "zset");
  freeReplyObject(d);
}
END_TEST

/* The deletes publish what every node must drop. */
START_TEST(test_script_deletes_publish) {
  NEED_REDIS();
  char sid[65], c0[65], d0[65];
  id_text(sid, 'a');
  id_text(c0, 'c');
  id_text(d0, 'd');
  eval_publish_rig(sid, "rig", 2, 'c');
  struct timeval tv = {2, 0};
  redisContext *sub =
      redisConnectWithTimeout("127.0.0.1", suite_redis.port, tv);
  ck_assert(sub != NULL && sub->err == 0);
  ck_assert_int_eq(redisSetTimeout(sub, tv), REDIS_OK);
  redisReply *r = redisCommand(sub, "SUBSCRIBE %s", SRV_REDIS_CHANNEL);
  ck_assert_ptr_nonnull(r);
  freeReplyObject(r);
  const char *rm[] = {"clip", c0};
  r = eval(srv_redis_remove_script, 2, rm);
  ck_assert_str_eq(elem_str(r, 0), "ok");
  freeReplyObject(r);
  const char *cascade[] = {sid};
  r = eval(srv_redis_cascade_script, 1, cascade);
  ck_assert_uint_eq(r->elements, 3);
  ck_assert_str_eq(elem_str(r, 0), "ok");
  ck_assert_uint_eq(r->element[1]->elements, 1); /* The clip left. */
  ck_assert_str_eq(r->element[1]->element[0]->str, d0);
  ck_assert_uint_eq(r->element[2]->elements, 0);
  freeReplyObject(r);
  char want[2][200];
  snprintf(want[0], sizeof want[0], "drop clip %s", c0);
  snprintf(want[1], sizeof want[1], "drop skeleton %s", sid);
  for (int i = 0; i < 2; i++) {
    redisReply *m = NULL;
    ck_assert_int_eq(redisGetReply(sub, (void **)&m), REDIS_OK);
    ck_assert_str_eq(elem_str(m, 0), "message");
    ck_assert_str_eq(elem_str(m, 2), want[i]);
    freeReplyObject(m);
  }
  redisFree(sub);
  r = redis_sync(suite_redis.port, "DBSIZE");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->integer, 0);
  freeReplyObject(r);
}
END_TEST

/* ---- a client on a loop ---------------------------------------------------
 */

typedef struct got_s {
  int calls;
  bool null_reply;
  int type;
  long long integer;
  char str[256];
  size_t len;
} got_t;

static void on_got(void *arg, redisReply *r) {
  got_t *g = arg;
  g->calls++;
  g->null_reply = r == NULL;
  if (r == NULL) return;
  g->type = r->type;
  g->integer = r->integer;
  if (r->str != NULL) {
    size_t n = r->len < sizeof g->str - 1 ? r->len : sizeof g->str - 1;
    memcpy(g->str, r->str, n);
    g->str[n] = '\0';
    g->len = r->len;
  }
}

typedef struct client_s {
  uv_loop_t loop;
  uv_timer_t tick; /* Wakes UV_RUN_ONCE: waits stay bounded. */
  srv_redis_t *r;
  int messages, resubscribed;
  char last_message[256];
  size_t last_len;
} client_t;

static client_t cl;

static void on_tick(uv_timer_t *t) { (void)t; }

static void on_message(void *arg, const char *payload, size_t len) {
  client_t *c = arg;
  c->messages++;
  size_t n =
      len < sizeof c->last_message - 1 ? len : sizeof c->last_message - 1;
  memcpy(c->last_message, payload, n);
  c->last_message[n] = '\0';
  c->last_len = len;
}

static void on_resubscribed(void *arg) {
  client_t *c = arg;
  c->resubscribed++;
}

static void client_open(int port, int db, unsigned timeout_ms) {
  memset(&cl, 0, sizeof cl);
  ck_assert_int_eq(uv_loop_init(&cl.loop), 0);
  uv_timer_init(&cl.loop, &cl.tick);
  uv_timer_start(&cl.tick, on_tick, 5, 5);
  srv_redis_opts_t o;
  memset(&o, 0, sizeof o);
  snprintf(o.host, sizeof o.host, "127.0.0.1");
  o.port = port;
  o.db = db;
  o.timeout_ms = timeout_ms;
  o.channel = "animd:test";
  o.on_message = on_message;
  o.on_resubscribed = on_resubscribed;
  o.arg = &cl;
  ck_assert_int_eq(srv_redis_open(&cl.loop, &o, &cl.r), 0);
  ck_assert_ptr_nonnull(cl.r);
}

static void client_close(void) {
  srv_redis_close(cl.r);
  cl.r = NULL;
  uv_close((uv_handle_t *)&cl.tick, NULL);
  uint64_t end = redis_now_ms() + 5000;
  while (uv_loop_alive(&cl.loop) && redis_now_ms() < end)
    uv_run(&cl.loop, UV_RUN_ONCE);
  ck_assert_int_eq(uv_loop_close(&cl.loop), 0);
}

/* Runs the loop until *flag (an int) reaches want, at most ms. */
static bool run_until_count(const int *flag, int want, int ms) {
  uint64_t end = redis_now_ms() + (uint64_t)ms;
  while (*flag < want && redis_now_ms() < end) uv_run(&cl.loop, UV_RUN_ONCE);
  return *flag >= want;
}

static bool run_until_up(bool up, int ms) {
  uint64_t end = redis_now_ms() + (uint64_t)ms;
  while (srv_redis_up(cl.r) != up && redis_now_ms() < end)
    uv_run(&cl.loop, UV_RUN_ONCE);
  return srv_redis_up(cl.r) == up;
}

static void run_for(int ms) {
  uint64_t end = redis_now_ms() + (uint64_t)ms;
  while (redis_now_ms() < end) uv_run(&cl.loop, UV_RUN_ONCE);
}

static int command(got_t *g, int argc, const char **argv,
                   const size_t *argvlen) {
  return srv_redis_command(cl.r, on_got, g, argc, argv, argvlen);
}

START_TEST(test_nothing_listens) {
  client_open(redis_free_port(), 0, 400);
  ck_assert(!srv_redis_up(cl.r));
  got_t g = {0};
  const char *ping[] = {"PING"};
  ck_assert_int_eq(command(&g, 1, ping, NULL), UV_ENOTCONN);
  /* Refused connects are retried with back-off; it never comes up. */
  run_for(700);
  ck_assert(!srv_redis_up(cl.r));
  ck_assert_int_eq(command(&g, 1, ping, NULL), UV_ENOTCONN);
  ck_assert_int_eq(g.calls, 0);
  ck_assert_uint_eq(srv_redis_connects(cl.r), 0);
  ck_assert_uint_eq(srv_redis_losses(cl.r), 0);
  ck_assert_int_eq(cl.messages, 0);
  ck_assert_int_eq(cl.resubscribed, 0);
  client_close();
}
END_TEST

START_TEST(test_close_while_connecting) {
  client_open(redis_free_port(), 0, 0);
  /* Closed at once: nothing ran, and the loop still closes clean. */
  client_close();
}
END_TEST

START_TEST(test_commands_in_order) {
  NEED_REDIS();
  client_open(suite_redis.port, 0, 0);
  ck_assert(run_until_up(true, 5000));
  /* One connection for commands, one subscribed. */
  ck_assert_uint_eq(srv_redis_connects(cl.r), 2);
  enum { N = 50 };
  got_t g[N];
  memset(g, 0, sizeof g);
  int done = 0;
  for (int i = 0; i < N; i++) {
    char value[32];
    snprintf(value, sizeof value, "%d", i * 7);
    const char *argv[] = {"RPUSH", "animd:test:list", value};
    ck_assert_int_eq(command(&g[i], 3, argv, NULL), 0);
  }
  for (int i = 0; i < N; i++) {
    run_until_count(&g[i].calls, 1, 5000);
    ck_assert_int_eq(g[i].calls, 1);
    ck_assert(!g[i].null_reply);
    ck_assert_int_eq(g[i].type, REDIS_REPLY_INTEGER);
    /* Replies come back in the order sent: the list grew one at a time. */
    ck_assert_int_eq(g[i].integer, i + 1);
    done++;
  }
  ck_assert_int_eq(done, N);
  got_t range = {0};
  const char *argv[] = {"LINDEX", "animd:test:list", "-1"};
  ck_assert_int_eq(command(&range, 3, argv, NULL), 0);
  ck_assert(run_until_count(&range.calls, 1, 5000));
  ck_assert_int_eq(range.type, REDIS_REPLY_STRING);
  ck_assert_str_eq(range.str, "343");
  /* An error reply is a reply. */
  got_t bad = {0};
  const char *wrong[] = {"INCR", "animd:test:list"};
  ck_assert_int_eq(command(&bad, 2, wrong, NULL), 0);
  ck_assert(run_until_count(&bad.calls, 1, 5000));
  ck_assert(!bad.null_reply);
  ck_assert_int_eq(bad.type, REDIS_REPLY_ERROR);
  ck_assert_ptr_nonnull(strstr(bad.str, "WRONGTYPE"));
  ck_assert(srv_redis_up(cl.r));
  ck_assert_uint_eq(srv_redis_losses(cl.r), 0);
  ck_assert_uint_eq(srv_redis_timeouts(cl.r), 0);
  client_close();
}
END_TEST

START_TEST(test_binary_safe_arguments) {
  NEED_REDIS();
  client_open(suite_redis.port, 0, 0);
  ck_assert(run_until_up(true, 5000));
  const char value[] = {'a', '\0', 'b', '\r', '\n', 'c'};
  const char *argv[] = {"SET", "animd:test:bin", value};
  size_t lens[] = {3, 14, sizeof value};
  got_t set = {0}, get = {0};
  ck_assert_int_eq(command(&set, 3, argv, lens), 0);
  const char *argv2[] = {"GET", "animd:test:bin"};
  ck_assert_int_eq(command(&get, 2, argv2, NULL), 0);
  ck_assert(run_until_count(&get.calls, 1, 5000));
  ck_assert_int_eq(set.calls, 1);
  ck_assert_int_eq(set.type, REDIS_REPLY_STATUS);
  ck_assert_str_eq(set.str, "OK");
  ck_assert_int_eq(get.type, REDIS_REPLY_STRING);
  ck_assert_uint_eq(get.len, sizeof value);
  ck_assert_int_eq(memcmp(get.str, value, sizeof value), 0);
  client_close();
}
END_TEST

START_TEST(test_database_of_url) {
  NEED_REDIS();
  client_open(suite_redis.port, 3, 0);
  ck_assert(run_until_up(true, 5000));
  got_t g = {0};
  const char *argv[] = {"SET", "animd:test:db", "three"};
  ck_assert_int_eq(command(&g, 3, argv, NULL), 0);
  ck_assert(run_until_count(&g.calls, 1, 5000));
  ck_assert_int_eq(g.type, REDIS_REPLY_STATUS);
  client_close();
  /* In database 3, not in 0. */
  redisReply *r = redis_sync(suite_redis.port, "GET animd:test:db");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
  freeReplyObject(r);
  struct timeval tv = {1, 0};
  redisContext *c = redisConnectWithTimeout("127.0.0.1", suite_redis.port, tv);
  ck_assert(c != NULL && c->err == 0);
  r = redisCommand(c, "SELECT 3");
  ck_assert_ptr_nonnull(r);
  freeReplyObject(r);
  r = redisCommand(c, "GET animd:test:db");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
  ck_assert_str_eq(r->str, "three");
  freeReplyObject(r);
  redisFree(c);
}
END_TEST

START_TEST(test_channel_messages) {
  NEED_REDIS();
  client_open(suite_redis.port, 0, 0);
  ck_assert(run_until_up(true, 5000));
  /* The subscription is confirmed once up: a message published now
   * arrives. Others' channels do not. */
  redisReply *r = redis_sync(suite_redis.port, "PUBLISH animd:other x");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->integer, 0);
  freeReplyObject(r);
  r = redis_sync(suite_redis.port, "PUBLISH animd:test %b", "drop clip \0x",
                 (size_t)12);
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->integer, 1);
  freeReplyObject(r);
  ck_assert(run_until_count(&cl.messages, 1, 5000));
  ck_assert_int_eq(cl.messages, 1);
  ck_assert_uint_eq(cl.last_len, 12);
  ck_assert_str_eq(cl.last_message, "drop clip ");
  ck_assert_int_eq(cl.resubscribed, 0);
  client_close();
}
END_TEST

/* BLPOP holds the command connection: the next command waits past the
 * timeout, the command connection is dropped (the commands in flight get
 * no reply) and made again; the subscription holds (no message was lost:
 * nothing tells the node to empty its cache). */
START_TEST(test_unanswered_command_times_out) {
  NEED_REDIS();
  client_open(suite_redis.port, 0, 200);
  ck_assert(run_until_up(true, 5000));
  ck_assert_uint_eq(srv_redis_connects(cl.r), 2);
  got_t blocked = {0}, behind = {0};
  const char *blpop[] = {"BLPOP", "animd:test:never", "5"};
  const char *ping[] = {"PING"};
  ck_assert_int_eq(command(&blocked, 3, blpop, NULL), 0);
  ck_assert_int_eq(command(&behind, 1, ping, NULL), 0);
  ck_assert(run_until_count(&behind.calls, 1, 3000));
  ck_assert_int_eq(blocked.calls, 1);
  ck_assert(blocked.null_reply);
  ck_assert(behind.null_reply);
  ck_assert_uint_eq(srv_redis_timeouts(cl.r), 1);
  ck_assert_uint_eq(srv_redis_losses(cl.r), 1);
  ck_assert(!srv_redis_up(cl.r));
  got_t refused = {0};
  ck_assert_int_eq(command(&refused, 1, ping, NULL), UV_ENOTCONN);
  /* Back after the first back-off. */
  ck_assert(run_until_up(true, 5000));
  ck_assert_uint_eq(srv_redis_connects(cl.r), 3);
  run_for(200);
  ck_assert_int_eq(cl.resubscribed, 0);
  /* Messages still come on the subscription that held. */
  redisReply *pub = redis_sync(suite_redis.port, "PUBLISH animd:test held");
  ck_assert_ptr_nonnull(pub);
  ck_assert_int_eq(pub->integer, 1);
  freeReplyObject(pub);
  ck_assert(run_until_count(&cl.messages, 1, 3000));
  ck_assert_str_eq(cl.last_message, "held");
  got_t after = {0};
  ck_assert_int_eq(command(&after, 1, ping, NULL), 0);
  ck_assert(run_until_count(&after.calls, 1, 5000));
  ck_assert_str_eq(after.str, "PONG");
  ck_assert_int_eq(refused.calls, 0);
  client_close();
}
END_TEST

/* An idle connection is pinged: a Redis that stops answering is seen
 * without any command (SIGSTOP), and the client comes back once it
 * answers again (SIGCONT). */
START_TEST(test_idle_ping_sees_stopped_redis) {
  if (!redis_installed()) return;
  redis_proc_t own = {0};
  ck_assert(redis_proc_start(&own, 0));
  client_open(own.port, 0, 200);
  ck_assert(run_until_up(true, 5000));
  ck_assert_int_eq(kill(own.pid, SIGSTOP), 0);
  ck_assert(run_until_up(false, 3000));
  ck_assert_uint_ge(srv_redis_timeouts(cl.r), 1);
  ck_assert_int_eq(kill(own.pid, SIGCONT), 0);
  ck_assert(run_until_up(true, 8000));
  /* Stopped, not gone: the subscription held. */
  ck_assert_int_eq(cl.resubscribed, 0);
  client_close();
  redis_proc_finish(&own);
}
END_TEST

/* Redis stopped mid-test (by its PID): a command in flight gets no
 * reply, the client is down and refuses commands; started again on the
 * same port, it comes back and says the subscription was lost. */
START_TEST(test_server_stopped_and_started) {
  if (!redis_installed()) return;
  redis_proc_t own = {0};
  ck_assert(redis_proc_start(&own, 0));
  client_open(own.port, 0, 0);
  ck_assert(run_until_up(true, 5000));
  got_t inflight = {0};
  const char *blpop[] = {"BLPOP", "animd:test:never", "5"};
  ck_assert_int_eq(command(&inflight, 3, blpop, NULL), 0);
  run_for(50); /* Sent. */
  redis_proc_signal_stop(&own, SIGKILL);
  ck_assert(run_until_count(&inflight.calls, 1, 3000));
  ck_assert(inflight.null_reply);
  ck_assert(run_until_up(false, 3000));
  ck_assert_uint_eq(srv_redis_losses(cl.r), 2);
  got_t refused = {0};
  const char *ping[] = {"PING"};
  ck_assert_int_eq(command(&refused, 1, ping, NULL), UV_ENOTCONN);
  run_for(300); /* A few refused reconnects. */
  ck_assert(!srv_redis_up(cl.r));
  ck_assert(redis_proc_start(&own, own.port));
  ck_assert(run_until_up(true, 8000));
  ck_assert(run_until_count(&cl.resubscribed, 1, 3000));
  ck_assert_int_eq(cl.resubscribed, 1);
  ck_assert_uint_eq(srv_redis_connects(cl.r), 4);
  got_t after = {0};
  ck_assert_int_eq(command(&after, 1, ping, NULL), 0);
  ck_assert(run_until_count(&after.calls, 1, 5000));
  ck_assert_str_eq(after.str, "PONG");
  ck_assert_int_eq(refused.calls, 0);
  client_close();
  redis_proc_finish(&own);
}
END_TEST

/* Closing with commands in flight answers each with no reply. */
START_TEST(test_close_answers_in_flight) {
  NEED_REDIS();
  client_open(suite_redis.port, 0, 0);
  ck_assert(run_until_up(true, 5000));
  got_t g[3];
  memset(g, 0, sizeof g);
  const char *blpop[] = {"BLPOP", "animd:test:never", "5"};
  const char *ping[] = {"PING"};
  ck_assert_int_eq(command(&g[0], 3, blpop, NULL), 0);
  ck_assert_int_eq(command(&g[1], 1, ping, NULL), 0);
  ck_assert_int_eq(command(&g[2], 1, ping, NULL), 0);
  srv_redis_t *r = cl.r;
  srv_redis_close(r);
  cl.r = NULL;
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(g[i].calls, 1);
    ck_assert(g[i].null_reply);
  }
  uv_close((uv_handle_t *)&cl.tick, NULL);
  uint64_t end = redis_now_ms() + 5000;
  while (uv_loop_alive(&cl.loop) && redis_now_ms() < end)
    uv_run(&cl.loop, UV_RUN_ONCE);
  ck_assert_int_eq(uv_loop_close(&cl.loop), 0);
}
END_TEST

Suite *server_redis_client_suite(void) {
  Suite *s = suite_create("server_redis_client");
  TCase *offline = tcase_create("offline");
  tcase_add_test(offline, test_parse_url_forms);
  tcase_add_test(offline, test_parse_url_resolves_localhost);
  tcase_add_test(offline, test_parse_url_errors);
  tcase_add_test(offline, test_parse_url_host_length);
  tcase_add_test(offline, test_scripts_layout);
  tcase_add_test(offline, test_nothing_listens);
  tcase_add_test(offline, test_close_while_connecting);
  suite_add_tcase(s, offline);
  TCase *live = tcase_create("redis");
  tcase_set_timeout(live, 60);
  tcase_add_unchecked_fixture(live, suite_redis_setup, suite_redis_teardown);
  tcase_add_test(live, test_commands_in_order);
  tcase_add_test(live, test_binary_safe_arguments);
  tcase_add_test(live, test_database_of_url);
  tcase_add_test(live, test_channel_messages);
  tcase_add_test(live, test_unanswered_command_times_out);
  tcase_add_test(live, test_idle_ping_sees_stopped_redis);
  tcase_add_test(live, test_server_stopped_and_started);
  tcase_add_test(live, test_close_answers_in_flight);
  tcase_add_test(live, test_script_publish_nothing);
  tcase_add_test(live, test_script_lookup_id_like_name);
  tcase_add_test(live, test_script_list_pages);
  tcase_add_test(live, test_script_deletes_publish);
  suite_add_tcase(s, live);
  return s;
}
