/* formats: q16 delta frames, the stream encoding "delta": a frame's q16
 * values (formats/q16.h) as the difference from what the frames before it
 * and a nearby vertex predict, Rice-coded.
 *
 * Layout, little-endian (docs/api.md, "Delta frames"):
 *   u32 seq        the frame's number in its chain (+1 per frame sent);
 *   u32 flags      FMT_DELTA_KEY, FMT_DELTA_ORDER2, FMT_DELTA_NORMALS;
 *   u32 vertices   V;
 *   u32 bits_bytes bytes of the bit stream (before the padding);
 *   f32 min[3], f32 max[3]   the frame's q16 box;
 *   bit stream     least significant bit first: in a key frame first the
 *                  parent plane (V values d: vertex i's parent is i - d,
 *                  none when d is 0), then the planes x, y, z of the
 *                  positions and u, v of the normals; each plane's values
 *                  in groups of 16 (the last V mod 16), a group a 5-bit k
 *                  (0..FMT_DELTA_K_MAX) and per value z its quotient
 *                  z >> k in unary (that many 1 bits, then a 0) and its
 *                  k low bits;
 *   zero padding to a multiple of 4 bytes.
 * A value plane's z decodes as e = (z >> 1) ^ -(z & 1) (zig-zag), the
 * residual as r[i] = e[i] + r[parent(i)] (0 without a parent), and the q16
 * value as pred + r[i], pred 0 for a key frame, a (the previous frame's
 * value) for an order-1 delta and 2a - b (b: the one before) for an
 * order-2 one. Parents come first (parent(i) < i), so a decoder needs
 * no residuals of its own: r[p] = q[p] - pred[p]. Deltas of quantized
 * values are exact: the decoded q16 payload is the q16 encoding of the
 * same frame, byte for byte.
 *
 * Key design choice: the parents are chosen once (per mesh), near in
 * space (fmt_q16_delta_parents), and sent with every key frame: vertices
 * near each other move alike, so a vertex's residual less its parent's is
 * small, while the client needs no mesh topology. Pure functions over
 * caller-owned arrays: the caller keeps the payloads it sent. */
#ifndef ANIMD_FORMATS_Q16_DELTA_H
#define ANIMD_FORMATS_Q16_DELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FMT_DELTA_KEY 1u     /* Predicted by nothing: the values. */
#define FMT_DELTA_ORDER2 2u  /* Predicted by 2a - b (else by a). */
#define FMT_DELTA_NORMALS 4u /* Two normal planes follow. */
#define FMT_DELTA_HEAD_BYTES 40
#define FMT_DELTA_GROUP 16
/* Every z is below 2^19: a residual of an order-2 prediction of u16
 * values less its parent's, zig-zagged, and a parent distance d (the
 * parents never lie further back). k is at most 19. */
#define FMT_DELTA_Z_BITS 19
#define FMT_DELTA_K_MAX 19

/* Bytes at most of a delta frame of vertices vertices (a multiple of 4). */
size_t fmt_q16_delta_bound(uint32_t vertices, bool normals);

/* Chooses each vertex's parent from the q16 payload q16 of vertices
 * vertices: d[i] = i - p for p, among the vertices before i, the nearest
 * of those a bounded search of a grid finds (0 for vertex 0; 1 when the
 * search finds none). O(V) with a bounded cost per vertex. 0, or -1 when
 * out of memory. */
int fmt_q16_delta_parents(const uint8_t *q16, uint32_t vertices, uint32_t *d);

/* Encodes the q16 payload cur of vertices vertices (fmt_q16_size bytes)
 * against a (the previous frame's q16 payload; NULL: a key frame) and b
 * (the one before a; NULL: an order-1 delta), with parents d (from
 * fmt_q16_delta_parents, the same for the whole chain; NULL: each
 * vertex's parent is the one before it), into out (fmt_q16_delta_bound
 * bytes), with scratch (vertices values) to work in. Returns the bytes
 * written. */
size_t fmt_q16_delta_encode(const uint8_t *cur, const uint8_t *a,
                            const uint8_t *b, const uint32_t *d,
                            uint32_t vertices, bool normals, uint32_t seq,
                            int32_t *scratch, uint8_t *out);

#endif
