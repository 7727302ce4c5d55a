/* Tests for the OpenAPI document the daemon embeds (server/api/openapi.h)
 * against the tables it describes, walked here rather than scraped: the
 * document's operations equal the route rows' methods and paths
 * (routes.c), each operation's query parameters equal what its endpoint
 * takes (requests.c's table and the request fields' rows), the request
 * fields are members of the bodies and WebSocket messages that take them,
 * and its ErrorCode enum equals the error table (formats/error_codes.h).
 * Every difference is named in the failure, one per line. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "formats/error.h"
#include "server/api/openapi.h"
#include "server/api/router.h"
#include "server/request/fields.h"
#include "server/request/requests.h"

/* The faults found, one per line. */
static char faults[8192];
static size_t fault_len;

static void fault(const char *fmt, const char *a, const char *b) {
  if (fault_len < sizeof faults - 1)
    fault_len += (size_t)snprintf(faults + fault_len, sizeof faults - fault_len,
                                  fmt, a, b);
  if (fault_len > sizeof faults - 1) fault_len = sizeof faults - 1;
}

static json_t *load_document(void) {
  size_t len;
  const char *text = srv_openapi_json(&len);
  json_error_t e;
  json_t *doc = json_loadb(text, len, 0, &e);
  ck_assert_msg(doc != NULL, "the embedded document: %s at line %d", e.text,
                e.line);
  fault_len = 0;
  faults[0] = '\0';
  return doc;
}

static const char *const method_names[] = {
    [SRV_GET] = "get",     [SRV_HEAD] = "head",     [SRV_POST] = "post",
    [SRV_PUT] = "put",     [SRV_DELETE] = "delete", [SRV_OPTIONS] = "options",
    [SRV_PATCH] = "patch",
};

/* A row's path as the document writes it: /v1/clips/{id}/check. */
static void row_path(const srv_route_t *r, char *out, size_t cap) {
  snprintf(out, cap, "%s%s%s", r->prefix, r->id ? "{id}" : "",
           r->id ? r->suffix : "");
}

START_TEST(test_operations_equal_the_route_rows) {
  json_t *doc = load_document();
  json_t *paths = json_object_get(doc, "paths");
  ck_assert_ptr_nonnull(paths);
  /* Every row's every method is an operation. */
  for (size_t i = 0; i < srv_api_route_count; i++) {
    const srv_route_t *r = &srv_api_routes[i];
    char path[300];
    row_path(r, path, sizeof path);
    for (int m = SRV_GET; m <= SRV_PATCH; m++)
      if ((r->methods & SRV_M(m)) &&
          json_object_get(json_object_get(paths, path), method_names[m]) ==
              NULL)
        fault("route %s %s is not in docs/openapi.yaml\n", method_names[m],
              path);
  }
  /* Every operation is a row's. */
  const char *path;
  json_t *item;
  json_object_foreach(paths, path, item) {
    char concrete[300];
    const char *id = strstr(path, "{id}");
    if (id != NULL)
      snprintf(concrete, sizeof concrete, "%.*sx%s", (int)(id - path), path,
               id + 4);
    else
      snprintf(concrete, sizeof concrete, "%s", path);
    for (int m = SRV_GET; m <= SRV_PATCH; m++) {
      if (json_object_get(item, method_names[m]) == NULL) continue;
      unsigned allow;
      const srv_route_t *r = srv_api_match((srv_method)m, concrete, &allow);
      char rp[300] = "";
      if (r != NULL) row_path(r, rp, sizeof rp);
      if (r == NULL || strcmp(rp, path) != 0)
        fault("docs/openapi.yaml has %s %s, which no route row takes\n",
              method_names[m], path);
    }
  }
  json_decref(doc);
  ck_assert_msg(fault_len == 0, "\n%s", faults);
}
END_TEST

/* The endpoint (requests.h) whose parameters each operation takes; -1:
 * an operational route, which takes any query and documents none. */
static const struct {
  const char *op; /* "method path" */
  int ep;
} endpoints[] = {
    {"get /v1/pose", SRV_EP_POSE_GET},
    {"head /v1/pose", SRV_EP_POSE_GET},
    {"post /v1/pose", SRV_EP_POSE_POST},
    {"get /v1/skin", SRV_EP_SKIN},
    {"head /v1/skin", SRV_EP_SKIN},
    {"get /v1/assets", SRV_EP_LIST},
    {"head /v1/assets", SRV_EP_LIST},
    {"post /v1/assets", SRV_EP_UPLOAD},
    {"post /v1/solve", SRV_EP_SOLVE},
    {"post /v1/test", SRV_EP_TEST},
    {"post /v1/compare", SRV_EP_COMPARE},
    {"post /v1/retarget", SRV_EP_RETARGET},
    {"get /v1/stream", SRV_EP_STREAM},
    {"get /healthz", -1},
    {"head /healthz", -1},
    {"get /metrics", -1},
    {"head /metrics", -1},
    {"get /v1/info", -1},
    {"head /v1/info", -1},
    {"get /v1/openapi.json", -1},
    {"head /v1/openapi.json", -1},
    {"get /v1/skeletons/{id}", SRV_EP_ASSET_GET},
    {"head /v1/skeletons/{id}", SRV_EP_ASSET_GET},
    {"delete /v1/skeletons/{id}", SRV_EP_SKELETON_DELETE},
    {"get /v1/clips/{id}", SRV_EP_ASSET_GET},
    {"head /v1/clips/{id}", SRV_EP_ASSET_GET},
    {"delete /v1/clips/{id}", SRV_EP_ASSET_DELETE},
    {"get /v1/meshes/{id}", SRV_EP_MESH_GET},
    {"head /v1/meshes/{id}", SRV_EP_MESH_GET},
    {"delete /v1/meshes/{id}", SRV_EP_ASSET_DELETE},
    {"get /v1/skeletons/{id}/clips", SRV_EP_SKELETON_CHILDREN},
    {"head /v1/skeletons/{id}/clips", SRV_EP_SKELETON_CHILDREN},
    {"get /v1/skeletons/{id}/meshes", SRV_EP_SKELETON_CHILDREN},
    {"head /v1/skeletons/{id}/meshes", SRV_EP_SKELETON_CHILDREN},
    {"get /v1/clips/{id}/check", SRV_EP_CLIP_CHECK},
    {"head /v1/clips/{id}/check", SRV_EP_CLIP_CHECK},
    {"get /v1/clips/{id}/plot", SRV_EP_CLIP_PLOT},
    {"head /v1/clips/{id}/plot", SRV_EP_CLIP_PLOT},
    {"get /v1/meshes/{id}/image", SRV_EP_MESH_IMAGE},
    {"head /v1/meshes/{id}/image", SRV_EP_MESH_IMAGE},
};

/* The request fields of the product (fields.c's rows). */
static const char *const field_names[] = {"ik", "root_motion", "blend_space",
                                          "weights"};

/* A parameter object, its $ref followed. */
static json_t *deref_parameter(json_t *doc, json_t *p) {
  const char *ref = json_string_value(json_object_get(p, "$ref"));
  const char *prefix = "#/components/parameters/";
  if (ref == NULL) return p;
  if (strncmp(ref, prefix, strlen(prefix)) != 0) return NULL;
  return json_object_get(
      json_object_get(json_object_get(doc, "components"), "parameters"),
      ref + strlen(prefix));
}

/* Whether name is among the query parameters of an operation. */
static bool documents(json_t *doc, json_t *item, json_t *op, const char *name) {
  json_t *lists[2] = {json_object_get(item, "parameters"),
                      json_object_get(op, "parameters")};
  for (int l = 0; l < 2; l++) {
    size_t i;
    json_t *p;
    json_array_foreach(lists[l], i, p) {
      json_t *d = deref_parameter(doc, p);
      if (d != NULL &&
          strcmp(json_string_value(json_object_get(d, "in")), "query") == 0 &&
          strcmp(json_string_value(json_object_get(d, "name")), name) == 0)
        return true;
    }
  }
  return false;
}

START_TEST(test_query_parameters_equal_the_endpoint_tables) {
  json_t *doc = load_document();
  json_t *paths = json_object_get(doc, "paths");
  size_t n_ops = 0;
  const char *path;
  json_t *item;
  json_object_foreach(paths, path, item) {
    for (int m = SRV_GET; m <= SRV_PATCH; m++) {
      json_t *op = json_object_get(item, method_names[m]);
      if (op == NULL) continue;
      n_ops++;
      char name[320];
      snprintf(name, sizeof name, "%s %s", method_names[m], path);
      int ep = -2;
      for (size_t k = 0; k < sizeof endpoints / sizeof endpoints[0]; k++)
        if (strcmp(endpoints[k].op, name) == 0) ep = endpoints[k].ep;
      if (ep == -2) {
        fault("%s: no endpoint known to this test%s\n", name, "");
        continue;
      }
      /* Documented, therefore taken. */
      json_t *lists[2] = {json_object_get(item, "parameters"),
                          json_object_get(op, "parameters")};
      for (int l = 0; l < 2; l++) {
        size_t i;
        json_t *p;
        json_array_foreach(lists[l], i, p) {
          json_t *d = deref_parameter(doc, p);
          if (d == NULL) {
            fault("%s: a parameter's $ref leads nowhere%s\n", name, "");
            continue;
          }
          if (strcmp(json_string_value(json_object_get(d, "in")), "query"))
            continue;
          const char *pn = json_string_value(json_object_get(d, "name"));
          srv_kv_t kv = {.name = pn, .value = "1"};
          srv_query_t q = {.params = &kv, .count = 1};
          srv_error_t e;
          if (ep < 0)
            fault("%s: documents '%s', but operational routes take any "
                  "query and document none\n",
                  name, pn);
          else if (srv_query_check(&q, (srv_endpoint)ep, &e) != 0)
            fault("%s: documents '%s', which the endpoint refuses\n", name, pn);
        }
      }
      if (ep < 0) continue;
      /* Taken, therefore documented. */
      for (const char *const *t = srv_endpoint_params((srv_endpoint)ep);
           *t != NULL; t++)
        if (!documents(doc, item, op, *t))
          fault("%s: query parameter '%s' is not in docs/openapi.yaml\n", name,
                *t);
      unsigned takes = ep == SRV_EP_POSE_GET ? SRV_TAKES_POSE_QUERY
                       : ep == SRV_EP_SKIN   ? SRV_TAKES_SKIN_QUERY
                                             : 0;
      for (size_t f = 0; f < sizeof field_names / sizeof *field_names; f++)
        if (takes != 0 && srv_field_find(field_names[f], takes) != NULL &&
            !documents(doc, item, op, field_names[f]))
          fault("%s: request field '%s' is not in docs/openapi.yaml\n", name,
                field_names[f]);
    }
  }
  ck_assert_uint_eq(n_ops, sizeof endpoints / sizeof endpoints[0]);
  json_decref(doc);
  ck_assert_msg(fault_len == 0, "\n%s", faults);
}
END_TEST

START_TEST(test_request_fields_are_members_of_their_bodies) {
  json_t *doc = load_document();
  json_t *schemas =
      json_object_get(json_object_get(doc, "components"), "schemas");
  static const struct {
    unsigned takes;
    const char *schema;
  } bodies[] = {
      {SRV_TAKES_POSE_BODY, "PoseBody"}, {SRV_TAKES_POSE_BODY, "Source"},
      {SRV_TAKES_WS_STREAM, "WsPlay"},   {SRV_TAKES_WS_STREAM, "WsSet"},
      {SRV_TAKES_WS_POSE, "WsPose"},
  };
  for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++) {
    json_t *props = json_object_get(json_object_get(schemas, bodies[b].schema),
                                    "properties");
    if (props == NULL) {
      fault("components.schemas.%s is missing%s\n", bodies[b].schema, "");
      continue;
    }
    for (size_t f = 0; f < sizeof field_names / sizeof *field_names; f++)
      if (srv_field_find(field_names[f], bodies[b].takes) != NULL &&
          json_object_get(props, field_names[f]) == NULL)
        fault("components.schemas.%s lacks the request field '%s'\n",
              bodies[b].schema, field_names[f]);
  }
  json_decref(doc);
  ck_assert_msg(fault_len == 0, "\n%s", faults);
}
END_TEST

START_TEST(test_error_enum_equals_the_error_table) {
  json_t *doc = load_document();
  json_t *codes = json_object_get(
      json_object_get(
          json_object_get(json_object_get(doc, "components"), "schemas"),
          "ErrorCode"),
      "enum");
  ck_assert_ptr_nonnull(codes);
  for (int c = 0; c < FMT_ERR_COUNT_; c++) {
    bool found = false;
    size_t i;
    json_t *v;
    json_array_foreach(codes, i, v) found |=
        strcmp(json_string_value(v), fmt_error_name((fmt_error_code)c)) == 0;
    if (!found)
      fault("error code %s is not in the ErrorCode enum%s\n",
            fmt_error_name((fmt_error_code)c), "");
  }
  size_t i;
  json_t *v;
  json_array_foreach(codes, i, v) {
    if (fmt_error_lookup(json_string_value(v)) < 0)
      fault("the ErrorCode enum has '%s', which the error table has not%s\n",
            json_string_value(v), "");
  }
  ck_assert_msg(fault_len == 0, "\n%s", faults);
  ck_assert_uint_eq(json_array_size(codes), FMT_ERR_COUNT_);
  json_decref(doc);
}
END_TEST

Suite *server_openapi_suite(void) {
  Suite *s = suite_create("server_openapi");
  TCase *tc = tcase_create("tables");
  tcase_add_test(tc, test_operations_equal_the_route_rows);
  tcase_add_test(tc, test_query_parameters_equal_the_endpoint_tables);
  tcase_add_test(tc, test_request_fields_are_members_of_their_bodies);
  tcase_add_test(tc, test_error_enum_equals_the_error_table);
  suite_add_tcase(s, tc);
  return s;
}
