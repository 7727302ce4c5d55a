/* Tests for names over HTTP, against a real server through the in-memory
 * transport: a name several assets share answers 409 ambiguous with their
 * ids (never 404), uploads take ?name= and ?clip= and warn about skeleton
 * names already used, GET /v1/skeletons/{id}/clips and /meshes list what
 * belongs to a skeleton, and DELETE ?cascade=1 removes it all at once. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "api_memory.h"

/* A one-joint rig with a clip "wave" (as the demo has) and a mesh. */
static const char rig[] =
    "{\"skeleton\":{\"name\":\"%s\",\"joints\":[{\"name\":\"root\","
    "\"parent\":-1,\"translation\":[0,%d,0]}]},\"clips\":[{\"name\":\"wave\","
    "\"tracks\":[{\"joint\":\"root\",\"path\":\"translation\",\"times\":[0,1],"
    "\"values\":[0,0,0,1,0,0]}]}],\"meshes\":[{\"name\":\"skin\","
    "\"positions\":[0,0,0],\"joints\":[0,0,0,0],\"weights\":[1,0,0,0]}]}";

static const char bvh[] =
    "HIERARCHY\nROOT hips\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xposition "
    "Yposition Zposition\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\n"
    "MOTION\nFrames: 2\nFrame Time: 0.5\n0 0 0\n1 0 0\n";

/* Uploads the rig named name at height y; returns the answer body. */
static char *upload_rig(const char *target, const char *name, int y,
                        int status) {
  char body[1024];
  snprintf(body, sizeof body, rig, name, y);
  mem_answer_t a = api_json("POST", target, body);
  ck_assert_msg(a.status == status, "%d %s", a.status, a.body);
  return a.body;
}

START_TEST(test_ambiguous_names) {
  mem_server_start();
  char *b1 = upload_rig("/v1/assets", "Armature", 1, 201);
  char *b2 = upload_rig("/v1/assets", "Armature", 2, 201);
  char s1[65], s2[65];
  api_id_after(b1, "\"skeletons\"", s1);
  api_id_after(b2, "\"skeletons\"", s2);
  /* The second upload warns that the name is shared (the first only that
   * its mesh's normals were computed). */
  ck_assert_ptr_null(strstr(b1, "is shared"));
  ck_assert_msg(strstr(b2, "skeleton name 'Armature' is shared by 2 "
                           "skeletons") != NULL,
                "%s", b2);
  free(b1);
  free(b2);
  mem_answer_t a = mem_get("/v1/pose?skeleton=Armature&t=0");
  ck_assert_int_eq(a.status, 409);
  ck_assert_ptr_nonnull(strstr(a.body, "\"code\":\"ambiguous\""));
  ck_assert_ptr_nonnull(strstr(a.body, "\"at\":\"skeleton\""));
  ck_assert_ptr_nonnull(strstr(a.body, s1));
  ck_assert_ptr_nonnull(strstr(a.body, s2));
  mem_answer_free(&a);
  /* The demo's clip "wave" now has two namesakes. */
  api_expect(mem_get("/v1/pose?clip=wave&t=0"), 409, "ambiguous", "clip",
             "clip=wave");
  api_expect(mem_get("/v1/clips/wave"), 409, "ambiguous", "id", "/clips");
  api_expect(mem_get("/v1/skeletons/Armature"), 409, "ambiguous", "id",
             "/skeletons");
  api_expect(mem_get("/v1/skin?mesh=skin&t=0"), 409, "ambiguous", "mesh",
             "skin");
  api_expect(api_json("POST", "/v1/pose",
                      "{\"skeleton\":\"Armature\",\"layers\":[{\"clip\":"
                      "\"wave\",\"t\":0}]}"),
             409, "ambiguous", "skeleton", "blend");
  /* Within a skeleton a clip name is unique, and ids always work. */
  api_expect(mem_get("/v1/pose?skeleton=demo-humanoid&clip=wave&t=0"), 200,
             NULL, NULL, "within its skeleton");
  char target[256];
  snprintf(target, sizeof target, "/v1/pose?skeleton=%s&clip=wave&t=0", s2);
  api_expect(mem_get(target), 200, NULL, NULL, "by id");
  /* Answers name every asset by id and by name. */
  a = mem_get("/v1/pose?skeleton=demo-humanoid&clip=wave&t=0");
  ck_assert_ptr_nonnull(strstr(a.body, "\"skeleton_name\":\"demo-humanoid\""));
  ck_assert_ptr_nonnull(strstr(a.body, "\"clip_name\":\"wave\",\"matrices\""));
  mem_answer_free(&a);
  /* With skeleton, skin answers the listed meshes of it, one block each. */
  a = mem_get("/v1/skin?mesh=body&skeleton=demo-humanoid&t=0");
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_nonnull(strstr(a.body, "\"meshes\":[{\"mesh\":"));
  mem_answer_free(&a);
  a = mem_get("/v1/skin?mesh=body&clip=idle&t=0");
  ck_assert_ptr_nonnull(
      strstr(a.body, "\"mesh_name\":\"body\",\"skeleton_id\":\""));
  ck_assert_ptr_nonnull(strstr(a.body, "\"clip_name\":\"idle\""));
  mem_answer_free(&a);
  api_expect(mem_get("/v1/pose?skeleton=nobody&t=0"), 404, "not_found",
             "skeleton", "absent");
  mem_server_stop();
}
END_TEST

START_TEST(test_names_given_at_upload) {
  mem_server_start();
  char *b = upload_rig("/v1/assets?name=hero", "Armature", 1, 201);
  ck_assert_msg(strstr(b, "\"name\":\"hero\",\"joints\":1") != NULL, "%s", b);
  free(b);
  api_expect(mem_get("/v1/pose?skeleton=hero&clip=wave&t=0"), 200, NULL, NULL,
             "by the given name");
  /* BVH: ?clip= replaces the hashed name; the answer says what was
   * stored. */
  mem_answer_t a = api_call("POST", "/v1/assets?name=mocap&clip=walk",
                            "application/x-bvh", bvh, strlen(bvh));
  ck_assert_msg(a.status == 201, "%d %s", a.status, a.body);
  ck_assert_ptr_nonnull(strstr(a.body, "\"name\":\"mocap\""));
  ck_assert_ptr_nonnull(strstr(a.body, "\"name\":\"walk\""));
  mem_answer_free(&a);
  api_expect(mem_get("/v1/pose?skeleton=mocap&clip=walk&t=0.5"), 200, NULL,
             NULL, "BVH by names");
  /* The same take under a name its skeleton has is a conflict. */
  a = api_call("POST", "/v1/assets?name=mocap&clip=walk", "application/x-bvh",
               bvh, strlen(bvh));
  ck_assert_int_eq(a.status, 200); /* Same content, same ids. */
  mem_answer_free(&a);
  /* ?clip= only where the format names no clip; ?name= needs one
   * skeleton. */
  char body[1024];
  snprintf(body, sizeof body, rig, "x", 5);
  api_expect(api_json("POST", "/v1/assets?clip=walk", body), 400,
             "bad_parameter", "clip", "clip on JSON");
  api_expect(api_json("POST", "/v1/assets?name=", body), 400, "bad_parameter",
             "name", "empty name");
  api_expect(api_json("POST", "/v1/assets?name=x",
                      "{\"clips\":[{\"name\":\"c\",\"skeleton\":"
                      "\"demo-humanoid\",\"tracks\":[{\"joint\":\"hips\","
                      "\"path\":\"translation\",\"times\":[0],\"values\":"
                      "[0,0,0]}]}]}"),
             400, "bad_parameter", "name", "no skeleton");
  mem_server_stop();
}
END_TEST

START_TEST(test_children_and_cascade) {
  mem_server_start();
  char *b = upload_rig("/v1/assets", "rig", 1, 201);
  char sk[65], clip[65];
  api_id_after(b, "\"skeletons\"", sk);
  api_id_after(b, "\"clips\"", clip);
  free(b);
  mem_answer_t a = mem_get("/v1/skeletons/rig/clips");
  ck_assert_int_eq(a.status, 200);
  ck_assert_msg(strstr(a.body, "{\"skeletons\":[],\"clips\":[{\"id\":") ==
                    a.body,
                "%s", a.body);
  ck_assert_ptr_nonnull(strstr(a.body, clip));
  ck_assert_ptr_nonnull(strstr(a.body, "\"meshes\":[]}"));
  mem_answer_free(&a);
  a = mem_get("/v1/skeletons/demo-humanoid/meshes");
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_nonnull(strstr(a.body, "\"name\":\"body\""));
  ck_assert_ptr_nonnull(strstr(a.body, "\"clips\":[]"));
  mem_answer_free(&a);
  api_expect(mem_get("/v1/skeletons/nope/clips"), 404, "not_found", "id",
             "children of nothing");
  api_expect(api_json("DELETE", "/v1/skeletons/rig/clips", NULL), 405,
             "method_not_allowed", NULL, "delete a listing");
  api_expect(mem_get("/v1/skeletons/rig/bones"), 404, "not_found", NULL,
             "unknown listing");
  /* Without cascade: 409 that says how; with it: everything goes. */
  a = api_json("DELETE", "/v1/skeletons/rig", NULL);
  ck_assert_int_eq(a.status, 409);
  ck_assert_ptr_nonnull(strstr(a.body, "cascade=1"));
  mem_answer_free(&a);
  api_expect(api_json("DELETE", "/v1/skeletons/rig?cascade=yes", NULL), 400,
             "bad_parameter", "cascade", "cascade=yes");
  api_expect(api_json("DELETE", "/v1/clips/idle?cascade=1", NULL), 400,
             "unknown_parameter", "cascade", "clip cascade");
  a = api_json("DELETE", "/v1/skeletons/rig?cascade=1", NULL);
  ck_assert_int_eq(a.status, 200);
  char want[512];
  snprintf(want, sizeof want,
           "{\"deleted\":{\"kind\":\"skeleton\",\"id\":\"%s\",\"clips\":"
           "[\"%s\"],\"meshes\":[\"",
           sk, clip);
  ck_assert_msg(strncmp(a.body, want, strlen(want)) == 0, "%s", a.body);
  mem_answer_free(&a);
  api_expect(mem_get("/v1/skeletons/rig"), 404, "not_found", "id", "gone");
  api_expect(mem_get("/v1/pose?clip=wave&t=0"), 200, NULL, NULL,
             "wave is the demo's again");
  mem_server_stop();
}
END_TEST

Suite *api_names_suite(void) {
  Suite *s = suite_create("api_names");
  TCase *tc = tcase_create("api_names");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_ambiguous_names);
  tcase_add_test(tc, test_names_given_at_upload);
  tcase_add_test(tc, test_children_and_cascade);
  suite_add_tcase(s, tc);
  return s;
}
