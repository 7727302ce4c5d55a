/* formats: the parents of a delta chain (q16_delta.h
 * fmt_q16_delta_parents): each vertex's nearest earlier vertex, found in a
 * uniform grid over the q16 box that holds the vertices seen so far. The
 * search looks at the rings of cells around the vertex's own, nearest
 * first, the newest vertices of a cell first, and stops when no closer
 * vertex can be left or after a fixed number of candidates, so a vertex
 * costs a bounded time whatever the mesh (duplicates, a line, a plane). */
#include <stdlib.h>

#include "formats/q16.h"
#include "formats/q16_delta.h"

#define GRID_MAX 64   /* Cells per axis at most. */
#define RINGS 2       /* Rings of cells around a vertex's own. */
#define PER_CELL 8    /* Candidates of one cell at most. */
#define CANDIDATES 48 /* Candidates of one vertex at most. */
#define NONE UINT32_MAX

static void coords(const uint8_t *q16, uint32_t k, int32_t c[3]) {
  const uint8_t *q = q16 + FMT_Q16_BOX_BYTES + 6 * (size_t)k;
  for (int a = 0; a < 3; a++) c[a] = (int32_t)(q[2 * a] | (q[2 * a + 1] << 8));
}

int fmt_q16_delta_parents(const uint8_t *q16, uint32_t vertices, uint32_t *d) {
  if (vertices == 0) return 0;
  /* About two vertices a cell. */
  uint32_t g = 1;
  while (g < GRID_MAX && (uint64_t)g * g * g * 2 < vertices) g++;
  uint32_t *head = malloc(sizeof *head * g * g * g);
  uint32_t *next = malloc(sizeof *next * vertices);
  if (head == NULL || next == NULL) {
    free(head);
    free(next);
    return -1;
  }
  for (uint32_t c = 0; c < g * g * g; c++) head[c] = NONE;
  int64_t cell_size = (65536 + g - 1) / g;
  const uint32_t far = (1u << FMT_DELTA_Z_BITS) - 1;
  for (uint32_t i = 0; i < vertices; i++) {
    int32_t p[3], cell[3];
    coords(q16, i, p);
    for (int a = 0; a < 3; a++) cell[a] = (int32_t)((int64_t)p[a] * g >> 16);
    uint32_t best = NONE, seen = 0;
    int64_t best_d2 = INT64_MAX;
    for (int32_t r = 0; r <= RINGS && seen < CANDIDATES; r++) {
      for (int32_t x = cell[0] - r; x <= cell[0] + r; x++)
        for (int32_t y = cell[1] - r; y <= cell[1] + r; y++)
          for (int32_t z = cell[2] - r; z <= cell[2] + r; z++) {
            /* Only the ring's own cells: those r cells away on an axis. */
            int32_t dx = abs(x - cell[0]), dy = abs(y - cell[1]),
                    dz = abs(z - cell[2]);
            if (dx != r && dy != r && dz != r) continue;
            if (x < 0 || y < 0 || z < 0 || x >= (int32_t)g || y >= (int32_t)g ||
                z >= (int32_t)g)
              continue;
            uint32_t k =
                head[((uint32_t)x * g + (uint32_t)y) * g + (uint32_t)z];
            for (int n = 0; k != NONE && n < PER_CELL && seen < CANDIDATES;
                 n++, k = next[k], seen++) {
              if (i - k > far) break;
              int32_t q[3];
              coords(q16, k, q);
              int64_t d2 = 0;
              for (int a = 0; a < 3; a++)
                d2 += (int64_t)(q[a] - p[a]) * (q[a] - p[a]);
              if (d2 < best_d2) {
                best_d2 = d2;
                best = k;
              }
            }
          }
      /* Whatever lies outside these rings is at least r cells away. */
      if (best != NONE && best_d2 <= (r * cell_size) * (r * cell_size)) break;
    }
    d[i] = best != NONE ? i - best : (i > 0 ? 1 : 0);
    uint32_t c =
        ((uint32_t)cell[0] * g + (uint32_t)cell[1]) * g + (uint32_t)cell[2];
    next[i] = head[c];
    head[c] = i;
  }
  free(head);
  free(next);
  return 0;
}
