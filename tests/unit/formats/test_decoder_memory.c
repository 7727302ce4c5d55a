/* Tests that decoders allocate within a small multiple of their input:
 * the worst cases found (BVH frames with no channel, md5anim frames over
 * many unanimated joints, md5mesh vertices that all read every weight)
 * and glTF accessors read by many samplers) decode, or are refused, without the
 * memory (or time) they used to take. Peak memory is the growth of the resident
 * high-water mark of a forked child around the decode, so these run in the
 * release build only (ASan and TSan change what is resident; they are skipped
 * there, saying so). */
#include <check.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats/buf.h"
#include "formats/bundle.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

/* What a decode may hold at its peak: this many times its input, plus a
 * fixed allowance for the allocator and the built objects' headers. */
#define AMPLIFICATION 40
#define ALLOWANCE ((size_t)8 << 20)

typedef struct outcome_s {
  int rc;
  fmt_error_code code;
  size_t peak_growth; /* Bytes. */
} outcome_t;

static size_t max_rss(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (size_t)ru.ru_maxrss * 1024;
}

/* Decodes body in a child process and reports its result and how far the
 * decode raised the resident high-water mark. */
static outcome_t decode_measured(const char *ctype, const fmt_buf_t *body,
                                 const fmt_decode_options_t *opts) {
  int fds[2];
  ck_assert_int_eq(pipe(fds), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    outcome_t o = {0, FMT_ERR_INTERNAL, 0};
    size_t before = max_rss();
    fmt_bundle_t b;
    fmt_error_t err = {0};
    o.rc = fmt_decode(ctype, body->data, body->len, opts, &b, &err);
    o.code = err.code;
    size_t after = max_rss();
    o.peak_growth = after > before ? after - before : 0;
    fmt_bundle_free(&b);
    ssize_t w = write(fds[1], &o, sizeof o);
    _exit(w == (ssize_t)sizeof o ? 0 : 1);
  }
  close(fds[1]);
  outcome_t o;
  ck_assert_int_eq(read(fds[0], &o, sizeof o), (ssize_t)sizeof o);
  close(fds[0]);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return o;
}

static void assert_bounded(const outcome_t *o, size_t input) {
  ck_assert_msg(o->peak_growth <= AMPLIFICATION * input + ALLOWANCE,
                "peak growth %zu bytes for %zu bytes of input", o->peak_growth,
                input);
}

/* Item: "CHANNELS 0" and a huge Frames: count, about 100 bytes, took up
 * to 448 MB. */
START_TEST(bvh_frames_without_channels) {
  if (SANITIZED) {
    fprintf(stderr, "bvh_frames_without_channels: skipped under sanitizers "
                    "(peak memory is measured from the resident size)\n");
    return;
  }
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_printf(&b, "HIERARCHY\nROOT hips\n{\n OFFSET 0 0 0\n CHANNELS 0\n"
                     "}\nMOTION\nFrames: 16000000\nFrame Time: 0.01\n");
  outcome_t o = decode_measured("application/x-bvh", &b, NULL);
  ck_assert_int_eq(o.rc, 0);
  assert_bounded(&o, b.len);
  fmt_buf_free(&b);
}
END_TEST

/* A rig of n joints in a chain, as an md5mesh, decoded to a skeleton. */
static anim_skeleton_t *md5_rig(size_t n, fmt_bundle_t *keep) {
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_printf(&b, "MD5Version 10\nnumJoints %zu\nnumMeshes 0\njoints {\n",
                 n);
  for (size_t i = 0; i < n; i++)
    fmt_buf_printf(&b, "\"j%zu\" %ld ( 0 0 %zu ) ( 0 0 0 )\n", i, (long)i - 1,
                   i);
  fmt_buf_printf(&b, "}\n");
  fmt_error_t err = {0};
  ck_assert_int_eq(
      fmt_decode("application/x-md5mesh", b.data, b.len, NULL, keep, &err), 0);
  fmt_buf_free(&b);
  return keep->skeletons[0];
}

/* Item: md5anim frames with no animated component over 100 joints: 1.3 MB
 * took up to 448 MB (7 floats per joint per frame). */
START_TEST(md5anim_frames_over_unanimated_joints) {
  if (SANITIZED) {
    fprintf(stderr, "md5anim_frames_over_unanimated_joints: skipped under "
                    "sanitizers (peak memory is measured from the resident "
                    "size)\n");
    return;
  }
  enum { JOINTS = 100, FRAMES = 40000 };
  fmt_bundle_t rig;
  fmt_decode_options_t opts = {.skeleton = md5_rig(JOINTS, &rig)};
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_printf(&b,
                 "MD5Version 10\nnumFrames %d\nnumJoints %d\n"
                 "frameRate 24\nnumAnimatedComponents 0\nhierarchy {\n",
                 FRAMES, JOINTS);
  for (int i = 0; i < JOINTS; i++)
    fmt_buf_printf(&b, "\"j%d\" %d 0 0\n", i, i - 1);
  fmt_buf_printf(&b, "}\nbounds {\n");
  for (int f = 0; f < FRAMES; f++) fmt_buf_printf(&b, "(0 0 0) (1 1 1)\n");
  fmt_buf_printf(&b, "}\nbaseframe {\n");
  for (int i = 0; i < JOINTS; i++) fmt_buf_printf(&b, "(0 0 1) (0 0 0)\n");
  fmt_buf_printf(&b, "}\n");
  for (int f = 0; f < FRAMES; f++) fmt_buf_printf(&b, "frame %d { }\n", f);
  ck_assert(!b.failed);
  outcome_t o = decode_measured("application/x-md5anim", &b, &opts);
  ck_assert_int_eq(o.rc, 0);
  assert_bounded(&o, b.len);
  fmt_buf_free(&b);
  fmt_bundle_free(&rig);
}
END_TEST

/* Item: every vertex reading every weight made md5mesh vertices x weights
 * (1 MB took 4.4 s); such a mesh is refused, one with its own weights per
 * vertex decodes. Not timed: the refusal is the check. */
START_TEST(md5mesh_shared_weights_are_bounded) {
  enum { V = 3000 };
  for (int shared = 0; shared < 2; shared++) {
    fmt_buf_t b = FMT_BUF_INIT;
    fmt_buf_printf(&b,
                   "MD5Version 10\nnumJoints 1\nnumMeshes 1\njoints {\n"
                   "\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\nmesh {\n"
                   "numverts %d\n",
                   V);
    for (int v = 0; v < V; v++)
      fmt_buf_printf(&b, "vert %d ( 0 0 ) %d %d\n", v, shared ? 0 : v,
                     shared ? V : 1);
    fmt_buf_printf(&b, "numtris 0\nnumweights %d\n", V);
    for (int w = 0; w < V; w++)
      fmt_buf_printf(&b, "weight %d 0 %g ( %d 0 0 )\n", w,
                     shared ? 1.0 / V : 1.0, w);
    fmt_buf_printf(&b, "}\n");
    fmt_bundle_t out;
    fmt_error_t err = {0};
    int rc =
        fmt_decode("application/x-md5mesh", b.data, b.len, NULL, &out, &err);
    if (shared) {
      ck_assert_int_eq(rc, -1);
      ck_assert_int_eq(fmt_error_status(err.code), 413);
      ck_assert_str_eq(err.at, "meshes[0]");
    } else {
      ck_assert_msg(rc == 0, "%s: %s", fmt_error_name(err.code), err.message);
      ck_assert_uint_eq(out.meshes[0].mesh->vertex_count, V);
      fmt_bundle_free(&out);
    }
    fmt_buf_free(&b);
  }
}
END_TEST

/* Item: one accessor read by many samplers (and a zero-filled one of any
 * count) made a small glTF decode to hundreds of megabytes; reads are
 * bounded by GL_READ_AMPLIFICATION times the file plus an allowance. */
START_TEST(gltf_shared_accessors_are_bounded) {
  enum { KEYS = 65536, ANIMS = 200 };
  float *times = malloc(KEYS * sizeof *times);
  for (int k = 0; k < KEYS; k++) times[k] = (float)k / 30.f;
  size_t raw = KEYS * sizeof *times;
  unsigned char *b64 = malloc(4 * (raw / 3 + 1) + 1);
  EVP_EncodeBlock(b64, (const unsigned char *)times, (int)raw);
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_printf(
      &b,
      "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"n\"}],"
      "\"buffers\":[{\"byteLength\":%zu,\"uri\":"
      "\"data:application/octet-stream;base64,%s\"}],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
      "\"count\":%d,\"type\":\"SCALAR\",\"min\":[0],\"max\":[%g]},"
      "{\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\"}],"
      "\"animations\":[",
      raw, b64, raw, KEYS, (double)times[KEYS - 1], KEYS);
  for (int a = 0; a < ANIMS; a++)
    fmt_buf_printf(&b,
                   "%s{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,"
                   "\"path\":\"translation\"}}],\"samplers\":[{\"input\":0,"
                   "\"output\":1}]}",
                   a ? "," : "");
  fmt_buf_printf(&b, "]}");
  ck_assert(!b.failed);
  fmt_bundle_t out;
  fmt_error_t err = {0};
  int rc = fmt_decode("model/gltf+json", b.data, b.len, NULL, &out, &err);
  ck_assert_int_eq(rc, -1);
  ck_assert_int_eq(fmt_error_status(err.code), 413);
  ck_assert_str_eq(fmt_error_name(err.code), "too_large");
  fmt_buf_free(&b);
  free(b64);
  free(times);
}
END_TEST

/* Item: a 60 MiB JSON body peaked at 1.26 GB: jansson's tree takes about
 * 48 bytes a value, 24 times "0,". A body whose tree would pass 8 times
 * its size plus 64 MiB is refused before parsing; ordinary numbers
 * (9 bytes each here) are not. */
START_TEST(native_json_dense_numbers_refused_before_parsing) {
  const size_t numbers = (size_t)3 << 20;
  for (int dense = 1; dense >= 0; dense--) {
    fmt_buf_t b = FMT_BUF_INIT;
    fmt_buf_printf(&b, "{\"clips\":[{\"skeleton\":\"x\",\"tracks\":[{"
                       "\"joint\":0,\"path\":\"rotation\",\"times\":[");
    /* The first number, then ",number" items doubled by copies: a print
     * per number takes seconds under a sanitizer. */
    const char *item = dense ? ",0" : ",0.123457";
    const size_t item_len = strlen(item);
    fmt_buf_puts(&b, item + 1);
    const size_t items_at = b.len;
    fmt_buf_puts(&b, item);
    for (size_t items = 1; items < numbers - 1;) {
      size_t more = items <= numbers - 1 - items ? items : numbers - 1 - items;
      ck_assert(fmt_buf_reserve(&b, more * item_len));
      memcpy(b.data + b.len, b.data + items_at, more * item_len);
      b.len += more * item_len;
      items += more;
    }
    fmt_buf_printf(&b, "]}]}]}");
    ck_assert(!b.failed);
    outcome_t o = decode_measured("application/json", &b, NULL);
    ck_assert_int_eq(o.rc, -1);
    if (dense) {
      ck_assert_int_eq(fmt_error_status(o.code), 413);
      if (!SANITIZED) assert_bounded(&o, b.len);
    } else {
      ck_assert_int_eq(fmt_error_status(o.code), 400);
    }
    fmt_buf_free(&b);
  }
}
END_TEST

Suite *decoder_memory_suite(void) {
  Suite *s = suite_create("decoder_memory");
  TCase *tc = tcase_create("worst_cases");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, bvh_frames_without_channels);
  tcase_add_test(tc, md5anim_frames_over_unanimated_joints);
  tcase_add_test(tc, md5mesh_shared_weights_are_bounded);
  tcase_add_test(tc, gltf_shared_accessors_are_bounded);
  tcase_add_test(tc, native_json_dense_numbers_refused_before_parsing);
  suite_add_tcase(s, tc);
  return s;
}
