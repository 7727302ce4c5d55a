/* formats: asset formats told apart by content (sniff.h). Key design choice:
 * look only at what each format must start with (after blanks), never at
 * the file name; JSON is told apart by its top-level keys. */
#include "formats/sniff.h"

#include <stdbool.h>
#include <string.h>

#include <jansson.h>

/* True when the text after leading blanks starts with word. */
static bool starts_with(const char *data, size_t len, const char *word,
                        size_t *skip) {
  size_t i = 0;
  while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' ||
                     data[i] == '\n'))
    i++;
  /* A UTF-8 byte order mark may come first in text files. */
  if (i == 0 && len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
    return starts_with(data + 3, len - 3, word, skip);
  size_t n = strlen(word);
  if (skip != NULL) *skip = i;
  return len - i >= n && memcmp(data + i, word, n) == 0;
}

/* True when needle occurs in the first len bytes of data. */
static bool contains(const char *data, size_t len, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= len; i++)
    if (memcmp(data + i, needle, n) == 0) return true;
  return false;
}

const char *fmt_sniff_describe(const char *type) {
  static const char *const names[][2] = {
      {"model/gltf-binary", "binary glTF (.glb)"},
      {"model/gltf+json", "glTF JSON (.gltf)"},
      {"application/json", "JSON"},
      {"application/x-bvh", "BVH"},
      {"application/x-md5mesh", "an MD5 mesh (.md5mesh)"},
      {"application/x-md5anim", "an MD5 animation (.md5anim)"},
  };
  for (size_t i = 0; type != NULL && i < sizeof names / sizeof names[0]; i++)
    if (strcmp(names[i][0], type) == 0) return names[i][1];
  return NULL;
}

const char *fmt_sniff_type(const char *data, size_t len) {
  if (data == NULL) return NULL;
  if (len >= 4 && memcmp(data, "glTF", 4) == 0) return "model/gltf-binary";
  if (starts_with(data, len, "HIERARCHY", NULL)) return "application/x-bvh";
  if (starts_with(data, len, "MD5Version", NULL)) {
    if (contains(data, len, "numMeshes")) return "application/x-md5mesh";
    if (contains(data, len, "numFrames")) return "application/x-md5anim";
    return NULL;
  }
  size_t at;
  if (!starts_with(data, len, "{", &at)) return NULL;
  json_t *root = json_loadb(data, len, 0, NULL);
  if (!json_is_object(root)) {
    json_decref(root);
    /* Not JSON after all: the native decoder will say where. */
    return "application/json";
  }
  bool gltf = json_object_get(root, "asset") != NULL;
  json_decref(root);
  return gltf ? "model/gltf+json" : "application/json";
}
