/* animd_frame.h: a decoder of animd's binary stream frames for thin
 * clients: the 32-byte stream header, q16 payloads (positions and
 * octahedral normals) and delta frames (docs/api.md, "Compact skinned
 * frames: q16" and "Delta frames").
 *
 * One header, C99, no allocation, no dependencies beyond the C library's
 * headers: every buffer is the caller's. Every function checks its input's
 * length and values and answers an ANIMD_FRAME_E* code rather than read
 * out of bounds, so frames from the network may be given as they come.
 *
 *   animd_frame_header h;
 *   if (animd_frame_header_read(msg, len, &h) == 0 && h.layout == 7) {
 *     const uint8_t *q16;
 *     int r = animd_delta_decode(&state, msg + 32, 4 * (size_t)h.count, &q16);
 *     if (r == ANIMD_FRAME_EGAP) ask_for_a_key_frame();
 *     else if (r == 0)
 *       animd_q16_decode(q16, animd_q16_bytes(h.elements, 1), h.elements,
 *                        1, positions, normals);
 *   }
 */
#ifndef ANIMD_FRAME_H
#define ANIMD_FRAME_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ANIMD_FRAME_OK 0
#define ANIMD_FRAME_EFORMAT (-1) /* Not a frame of this layout. */
#define ANIMD_FRAME_EGAP (-2)    /* A delta whose previous frames are not
                                    held: ask for a key frame. */
#define ANIMD_FRAME_ESIZE (-3)   /* Vertices other than the state's. */

#define ANIMD_FRAME_HEADER_BYTES 32
#define ANIMD_LAYOUT_POSITIONS_Q16 4
#define ANIMD_LAYOUT_POSITIONS_NORMALS_Q16 5
#define ANIMD_LAYOUT_POSITIONS_DELTA 6
#define ANIMD_LAYOUT_POSITIONS_NORMALS_DELTA 7
#define ANIMD_LAYOUT_ANSWER 0x80000000u /* Request fields' floats follow. */

#define ANIMD_DELTA_KEY 1u
#define ANIMD_DELTA_ORDER2 2u
#define ANIMD_DELTA_NORMALS 4u
#define ANIMD_DELTA_HEAD_BYTES 40
#define ANIMD_DELTA_GROUP 16
#define ANIMD_DELTA_K_MAX 19

typedef struct animd_frame_header {
  uint32_t index;  /* Stream index (0xffffffff: a pose answer). */
  uint32_t layout; /* 0..7, without ANIMD_LAYOUT_ANSWER. */
  int answer;      /* ANIMD_LAYOUT_ANSWER was set. */
  uint64_t frame;
  double t;
  uint32_t count;    /* Floats, or 32-bit words of a q16/delta payload. */
  uint32_t elements; /* Joints or vertices. */
} animd_frame_header;

static inline uint32_t animd__u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static inline float animd__f32(const uint8_t *p) {
  uint32_t u = animd__u32(p);
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Reads the 32-byte header of a binary stream message of len bytes;
 * checks that its payload (count words) fits in the message. */
static inline int animd_frame_header_read(const uint8_t *msg, size_t len,
                                          animd_frame_header *h) {
  if (msg == NULL || len < ANIMD_FRAME_HEADER_BYTES) return ANIMD_FRAME_EFORMAT;
  uint32_t layout = animd__u32(msg + 4);
  uint64_t tb = (uint64_t)animd__u32(msg + 16) |
                (uint64_t)animd__u32(msg + 20) << 32;
  h->index = animd__u32(msg);
  h->answer = (layout & ANIMD_LAYOUT_ANSWER) != 0;
  h->layout = layout & ~ANIMD_LAYOUT_ANSWER;
  h->frame = (uint64_t)animd__u32(msg + 8) | (uint64_t)animd__u32(msg + 12)
                                                 << 32;
  memcpy(&h->t, &tb, 8);
  h->count = animd__u32(msg + 24);
  h->elements = animd__u32(msg + 28);
  if (h->layout > ANIMD_LAYOUT_POSITIONS_NORMALS_DELTA)
    return ANIMD_FRAME_EFORMAT;
  if ((uint64_t)h->count * 4 > (uint64_t)(len - ANIMD_FRAME_HEADER_BYTES))
    return ANIMD_FRAME_EFORMAT;
  return ANIMD_FRAME_OK;
}

/* Bytes of a q16 payload of vertices vertices (0 when it would not fit a
 * size_t). */
static inline size_t animd_q16_bytes(uint32_t vertices, int normals) {
  uint64_t n = 24 + (uint64_t)vertices * (normals ? 10u : 6u);
  n = (n + 3) & ~(uint64_t)3;
  return n > (uint64_t)(size_t)-1 ? 0 : (size_t)n;
}

/* The vertices of a q16 payload of words 32-bit words (a block of several
 * meshes gives only its words): floor((4 words - 24) / 6), or / 10 with
 * normals; the padding is under one vertex. 0 for fewer than 24 bytes. */
static inline uint32_t animd_q16_vertices(uint32_t words, int normals) {
  uint64_t b = 4 * (uint64_t)words;
  return b < 24 ? 0 : (uint32_t)((b - 24) / (normals ? 10u : 6u));
}

/* A unit normal from its two octahedral i16 components. */
static inline void animd_octahedral_decode(int16_t qu, int16_t qv,
                                           float *n) {
  float x = (float)qu / 32767.0f, y = (float)qv / 32767.0f;
  float z = 1.0f - fabsf(x) - fabsf(y);
  float t = z < 0 ? -z : 0.0f;
  x -= x >= 0 ? t : -t;
  y -= y >= 0 ? t : -t;
  float l = sqrtf(x * x + y * y + z * z);
  n[0] = x / l;
  n[1] = y / l;
  n[2] = z / l;
}

/* Decodes a q16 payload of len bytes holding vertices vertices into
 * positions (3 floats each) and, with normals, normals (3 floats each;
 * may be NULL to skip them). */
static inline int animd_q16_decode(const uint8_t *p, size_t len,
                                   uint32_t vertices, int normals,
                                   float *positions, float *nrm) {
  size_t need = animd_q16_bytes(vertices, normals);
  if (p == NULL || need == 0 || len < need) return ANIMD_FRAME_EFORMAT;
  float lo[3], span[3];
  for (int a = 0; a < 3; a++) {
    lo[a] = animd__f32(p + 4 * a);
    span[a] = animd__f32(p + 12 + 4 * a) - lo[a];
  }
  const uint8_t *q = p + 24;
  for (uint32_t i = 0; i < vertices; i++)
    for (int a = 0; a < 3; a++, q += 2)
      positions[3 * (size_t)i + a] =
          lo[a] + (float)(q[0] | q[1] << 8) / 65535.0f * span[a];
  if (normals && nrm != NULL)
    for (uint32_t i = 0; i < vertices; i++, q += 4)
      animd_octahedral_decode((int16_t)(uint16_t)(q[0] | q[1] << 8),
                              (int16_t)(uint16_t)(q[2] | q[3] << 8),
                              nrm + 3 * (size_t)i);
  return ANIMD_FRAME_OK;
}

/* The state of one delta stream: the last two q16 payloads decoded and
 * the parents of the chain's key frame, in a caller's buffer of
 * animd_delta_buffer_bytes(vertices, normals) bytes. */
typedef struct animd_delta {
  uint8_t *buf;
  size_t frame_bytes;
  uint32_t vertices;
  int normals;
  unsigned have;     /* Frames held (0, 1, 2). */
  unsigned last;     /* Slot of the last frame decoded. */
  unsigned before;   /* Slot of the one before it. */
  uint32_t next_seq; /* The seq a delta must carry. */
} animd_delta;

/* Bytes of a delta state's buffer: three q16 payloads and a u32 parent
 * distance a vertex (0 when it would not fit a size_t). */
static inline size_t animd_delta_buffer_bytes(uint32_t vertices,
                                              int normals) {
  size_t q = animd_q16_bytes(vertices, normals);
  uint64_t n = 3 * (uint64_t)q + 4 * (uint64_t)vertices;
  return q == 0 || n > (uint64_t)(size_t)-1 ? 0 : (size_t)n;
}

/* Prepares d over buf (animd_delta_buffer_bytes(vertices, normals)). */
static inline void animd_delta_init(animd_delta *d, uint8_t *buf,
                                    uint32_t vertices, int normals) {
  d->buf = buf;
  d->frame_bytes = animd_q16_bytes(vertices, normals);
  d->vertices = vertices;
  d->normals = normals != 0;
  d->have = 0;
  d->last = 0;
  d->before = 1;
  d->next_seq = 0;
}

/* A bit stream read least significant bit first. */
typedef struct animd__bits {
  const uint8_t *in, *end;
  uint64_t acc;
  unsigned have;
} animd__bits;

static inline void animd__bits_fill(animd__bits *b) {
  while (b->have <= 56 && b->in < b->end) {
    b->acc |= (uint64_t)*b->in++ << b->have;
    b->have += 8;
  }
}

/* The next n (<= 24) bits; -1 when the stream ends first. */
static inline int32_t animd__bits_get(animd__bits *b, unsigned n) {
  if (b->have < n) {
    animd__bits_fill(b);
    if (b->have < n) return -1;
  }
  int32_t v = (int32_t)(b->acc & ((1ull << n) - 1));
  b->acc >>= n;
  b->have -= n;
  return v;
}

/* The trailing zero bits of x (not 0). */
static inline unsigned animd__ctz64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
  return (unsigned)__builtin_ctzll(x);
#else
  unsigned n = 0;
  while (!(x & 1)) {
    x >>= 1;
    n++;
  }
  return n;
#endif
}

/* The next Rice-coded value with parameter k: the quotient in unary (1
 * bits ended by a 0), then k bits; -1 when the stream ends first or the
 * value would not be below 2^19. */
static inline int32_t animd__bits_rice(animd__bits *b, unsigned k) {
  uint32_t q = 0, most = ((1u << 19) - 1) >> k;
  for (;;) {
    if (b->have < 32) animd__bits_fill(b);
    if (b->have == 0) return -1;
    uint64_t valid = b->have == 64 ? ~0ull : (1ull << b->have) - 1;
    uint64_t zeros = ~b->acc & valid;
    if (zeros != 0) {
      unsigned n = animd__ctz64(zeros) + 1; /* The ones and their 0. */
      q += n - 1;
      b->acc = n == 64 ? 0 : b->acc >> n;
      b->have -= n;
      break;
    }
    q += b->have;
    b->acc = 0;
    b->have = 0;
    if (q > most) return -1;
  }
  if (q > most) return -1;
  int32_t low = animd__bits_get(b, k);
  if (low < 0) return -1;
  uint32_t z = q << k | (uint32_t)low;
  return z >> 19 ? -1 : (int32_t)z;
}

/* Value k of plane (0..2 the positions' x, y, z, 3..4 the normals' u, v)
 * of a q16 payload of vertices vertices. */
static inline int32_t animd__q16_value(const uint8_t *p, uint32_t vertices,
                                       int plane, uint32_t k) {
  if (plane < 3) {
    const uint8_t *q = p + 24 + 6 * (size_t)k + 2 * (size_t)plane;
    return (int32_t)(q[0] | q[1] << 8);
  }
  const uint8_t *q =
      p + 24 + 6 * (size_t)vertices + 4 * (size_t)k + 2 * (size_t)(plane - 3);
  return (int32_t)(int16_t)(uint16_t)(q[0] | q[1] << 8);
}

/* The prediction of value k of plane: 0, a, or 2a - b. */
static inline int64_t animd__delta_pred(const uint8_t *a, const uint8_t *b,
                                        uint32_t vertices, int plane,
                                        uint32_t k) {
  if (a == NULL) return 0;
  int64_t va = animd__q16_value(a, vertices, plane, k);
  return b == NULL ? va : 2 * va - animd__q16_value(b, vertices, plane, k);
}

/* Decodes the delta payload p (len bytes: the message after its header)
 * into the q16 payload of the same frame, *q16 (animd_q16_bytes bytes, in
 * d's buffer, valid until the second next call). A delta whose previous
 * frame was not decoded (a gap in seq, or none held) answers
 * ANIMD_FRAME_EGAP and changes nothing: ask the daemon for a key frame
 * (docs/api.md) and keep decoding. A corrupt frame answers
 * ANIMD_FRAME_EFORMAT, and the chain then needs a key frame too. */
static inline int animd_delta_decode(animd_delta *d, const uint8_t *p,
                                     size_t len, const uint8_t **q16) {
  if (p == NULL || len < ANIMD_DELTA_HEAD_BYTES || d->frame_bytes == 0)
    return ANIMD_FRAME_EFORMAT;
  uint32_t seq = animd__u32(p), flags = animd__u32(p + 4);
  uint32_t vertices = animd__u32(p + 8), bytes = animd__u32(p + 12);
  if ((flags & ~7u) != 0 || (flags & 3u) == 3u ||
      bytes > len - ANIMD_DELTA_HEAD_BYTES)
    return ANIMD_FRAME_EFORMAT;
  if (vertices != d->vertices ||
      ((flags & ANIMD_DELTA_NORMALS) != 0) != (d->normals != 0))
    return ANIMD_FRAME_ESIZE;
  const uint8_t *a = NULL, *b = NULL;
  if (!(flags & ANIMD_DELTA_KEY)) {
    unsigned need = flags & ANIMD_DELTA_ORDER2 ? 2 : 1;
    if (d->have < need || seq != d->next_seq) return ANIMD_FRAME_EGAP;
    a = d->buf + d->last * d->frame_bytes;
    if (need == 2) b = d->buf + d->before * d->frame_bytes;
  }
  unsigned slot = 3 - d->last - d->before;
  uint8_t *out = d->buf + slot * d->frame_bytes;
  uint8_t *parents = d->buf + 3 * d->frame_bytes;
  memcpy(out, p + 16, 24);
  memset(out + 24, 0, d->frame_bytes - 24);
  animd__bits in = {p + ANIMD_DELTA_HEAD_BYTES,
                    p + ANIMD_DELTA_HEAD_BYTES + bytes, 0, 0};
  int planes = d->normals ? 5 : 3;
  /* Plane -1: a key frame's parents. */
  for (int plane = flags & ANIMD_DELTA_KEY ? -1 : 0; plane < planes;
       plane++) {
    int64_t lo = plane < 3 ? 0 : -32767, hi = plane < 3 ? 65535 : 32767;
    for (uint32_t g = 0; g < vertices; g += ANIMD_DELTA_GROUP) {
      uint32_t n = vertices - g < ANIMD_DELTA_GROUP ? vertices - g
                                                    : ANIMD_DELTA_GROUP;
      int32_t k = animd__bits_get(&in, 5);
      if (k < 0 || k > ANIMD_DELTA_K_MAX) goto corrupt;
      for (uint32_t j = 0; j < n; j++) {
        uint32_t i = g + j;
        int32_t z = animd__bits_rice(&in, (unsigned)k);
        if (z < 0) goto corrupt;
        if (plane < 0) {
          if ((uint32_t)z > i) goto corrupt;
          uint8_t *o = parents + 4 * (size_t)i;
          for (int s = 0; s < 4; s++) o[s] = (uint8_t)((uint32_t)z >> 8 * s);
          continue;
        }
        int64_t e = (z & 1) ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1);
        uint32_t dp = animd__u32(parents + 4 * (size_t)i);
        int64_t q = animd__delta_pred(a, b, vertices, plane, i) + e;
        if (dp != 0)
          q += animd__q16_value(out, vertices, plane, i - dp) -
               animd__delta_pred(a, b, vertices, plane, i - dp);
        if (q < lo || q > hi) goto corrupt;
        uint8_t *o = out + (plane < 3 ? 24 + 6 * (size_t)i + 2 * (size_t)plane
                                      : 24 + 6 * (size_t)vertices +
                                            4 * (size_t)i +
                                            2 * (size_t)(plane - 3));
        o[0] = (uint8_t)(q & 0xff);
        o[1] = (uint8_t)((q >> 8) & 0xff);
      }
    }
  }
  if (in.in != in.end || in.have >= 8) goto corrupt;
  d->before = d->last;
  d->last = slot;
  d->have = d->have < 2 ? d->have + 1 : 2;
  if (flags & ANIMD_DELTA_KEY) d->have = 1;
  d->next_seq = seq + 1;
  *q16 = out;
  return ANIMD_FRAME_OK;
corrupt:
  d->have = 0;
  return ANIMD_FRAME_EFORMAT;
}

#endif
