/* formats: a glTF primitive's material as a skinned mesh keeps it: the
 * material's name and its base-color texture (pbrMetallicRoughness.
 * baseColorTexture): the texture index and its image, either an external
 * URI (kept as a reference: nothing is read by name) or embedded bytes
 * (a base64 data: URI or a bufferView) with their mimeType.
 *
 * Key design choice: embedded images are served back to browsers, so only
 * the image types glTF and its texture extensions define are kept (PNG,
 * JPEG, WebP, KTX2); another type, a name or URI that is not UTF-8, or a
 * broken reference leaves that part out with a warning rather than
 * refusing a mesh that skins fine without it. */
#include <stdlib.h>

#include "formats/gltf_internal.h"

#define GL_MAX_URI 2048 /* Bytes of an external image URI kept. */

static int warn(gl_ctx_t *c, const char *pat, const char *what) {
  return fmt_bundle_warn(c->out, "%s: %s; the mesh has no texture image", pat,
                         what)
             ? fmt__nomem(c->err, pat)
             : 0;
}

/* The mimeType of "data:TYPE;base64,...", copied to out->mime. */
static int data_uri_type(gl_ctx_t *c, const char *uri, gl_material_t *out,
                         const char *pat) {
  const char *semi = strchr(uri, ';');
  size_t n = semi ? (size_t)(semi - (uri + 5)) : 0;
  out->mime = malloc(n + 1);
  if (out->mime == NULL) return fmt__nomem(c->err, pat);
  memcpy(out->mime, uri + 5, n);
  out->mime[n] = '\0';
  return 0;
}

/* images[i] into out->m: 0 (possibly with nothing kept and a warning), or
 * -1 with err filled. */
static int load_image(gl_ctx_t *c, json_t *images, size_t i, gl_material_t *out,
                      const char *pat) {
  char at[64];
  snprintf(at, sizeof at, "images[%zu]", i);
  json_t *img = json_array_get(images, i);
  if (!json_is_object(img)) return warn(c, pat, "its image is not an object");
  const char *uri = json_string_value(json_object_get(img, "uri"));
  const char *type = json_string_value(json_object_get(img, "mimeType"));
  if (uri != NULL && strncmp(uri, "data:", 5) != 0) {
    if (strlen(uri) > GL_MAX_URI || !fmt__utf8_valid(uri, strlen(uri)))
      return warn(c, pat, "its image URI is too long or not UTF-8");
    out->m.image_uri = uri;
    return 0;
  }
  const uint8_t *bytes;
  size_t len;
  if (uri != NULL) {
    if (fmt__gl_data_uri(c, uri, &out->image, atf(c, "%s.uri", at)) ||
        data_uri_type(c, uri, out, pat))
      return -1;
    type = out->mime;
    bytes = out->image.data;
    len = out->image.len;
  } else {
    int64_t view;
    if (get_index(c, img, "bufferView", c->nviews, false, &view,
                  atf(c, "%s.bufferView", at)))
      return -1;
    if (view < 0)
      return warn(c, pat, "its image has neither uri nor bufferView");
    if (fmt__gl_view_bytes(c, (size_t)view, &bytes, &len,
                           atf(c, "%s.bufferView", at)))
      return -1;
  }
  if (type == NULL || !fmt__image_type_known(type))
    return warn(c, pat, "its image is not PNG, JPEG, WebP or KTX2");
  if (len == 0) return warn(c, pat, "its image is empty");
  out->m.image_type = type;
  out->m.image = bytes;
  out->m.image_size = len;
  return 0;
}

int fmt__gl_material(gl_ctx_t *c, json_t *prim, const char *pat,
                     gl_material_t *out) {
  memset(out, 0, sizeof *out);
  json_t *materials = json_object_get(c->root, "materials");
  int64_t mi;
  if (get_index(c, prim, "material", json_array_size(materials), false, &mi,
                atf(c, "%s.material", pat)))
    return -1;
  if (mi < 0) return 0;
  json_t *mat = json_array_get(materials, (size_t)mi);
  const char *name = json_string_value(json_object_get(mat, "name"));
  if (name != NULL && name[0] && strlen(name) <= 256 &&
      fmt__utf8_valid(name, strlen(name)))
    out->m.name = name;
  json_t *tex = json_object_get(json_object_get(mat, "pbrMetallicRoughness"),
                                "baseColorTexture");
  if (tex == NULL) return 0;
  json_t *textures = json_object_get(c->root, "textures");
  json_t *images = json_object_get(c->root, "images");
  int64_t ti, si;
  char at[64];
  snprintf(at, sizeof at, "materials[%lld]", (long long)mi);
  if (get_index(c, tex, "index", json_array_size(textures), true, &ti,
                atf(c, "%s.pbrMetallicRoughness.baseColorTexture.index", at)))
    return -1;
  json_t *tx = json_array_get(textures, (size_t)ti);
  out->m.has_texture = true;
  out->m.texture = (uint32_t)ti;
  if (get_index(c, tx, "source", json_array_size(images), false, &si,
                atf(c, "textures[%lld].source", (long long)ti)))
    return -1;
  if (si < 0) return warn(c, pat, "its base-color texture has no source");
  return load_image(c, images, (size_t)si, out, pat);
}

void fmt__gl_material_free(gl_material_t *m) {
  free(m->image.owned);
  free(m->mime);
  memset(m, 0, sizeof *m);
}
