/* server: skeleton pictures as SVG (svg.h). Numbers print with two
 * decimals through one function (negative zero as zero), so a picture is
 * the same bytes on every machine for the same poses. */
#include "server/verdict/svg.h"

#include <math.h>
#include <string.h>

/* Pixels kept free around the drawing: this fraction of the shorter side. */
#define MARGIN_FRACTION 0.05
#define STROKE_WIDTH 2
#define HIGHLIGHT_WIDTH 4
#define HIGHLIGHT_RADIUS 4

static const char *const view_names[] = {"front", "side", "top"};

/* A point of model space on the picture's plane, up positive. */
typedef struct plane_pt_s {
  double x, y;
} plane_pt_t;

/* Model to pixels: px = ox + x * scale, py = oy - y * scale. */
typedef struct fit_s {
  double scale, ox, oy;
} fit_t;

static plane_pt_t project(const float *m, verdict_view view) {
  double x = m[12], y = m[13], z = m[14];
  switch (view) {
  case VERDICT_VIEW_SIDE: return (plane_pt_t){z, y};
  case VERDICT_VIEW_TOP: return (plane_pt_t){x, -z};
  default: return (plane_pt_t){x, y};
  }
}

static bool finite_pt(plane_pt_t p) { return isfinite(p.x) && isfinite(p.y); }

/* One number: two decimals, no negative zero. */
static void put_num(fmt_buf_t *b, double v) {
  double r = round(v * 100.0) / 100.0;
  if (r == 0.0) r = 0.0; /* -0 prints as 0. */
  fmt_buf_printf(b, "%.2f", r);
}

/* s as XML text or attribute value: &, <, >, " and ' as entities, control
 * characters XML 1.0 cannot carry as U+FFFD. */
static void put_text(fmt_buf_t *b, const char *s) {
  for (; s != NULL && *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    switch (c) {
    case '&': fmt_buf_puts(b, "&amp;"); break;
    case '<': fmt_buf_puts(b, "&lt;"); break;
    case '>': fmt_buf_puts(b, "&gt;"); break;
    case '"': fmt_buf_puts(b, "&quot;"); break;
    case '\'': fmt_buf_puts(b, "&apos;"); break;
    default:
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
        fmt_buf_puts(b, "&#xFFFD;");
      else
        fmt_buf_putc(b, (char)c);
    }
  }
}

/* The caller-order parent of caller-order joint c, or -1. */
static int64_t parent_of(const anim_skeleton_t *sk, uint32_t c) {
  int16_t p = sk->parents[sk->from_caller[c]];
  return p < 0 ? -1 : (int64_t)sk->to_caller[p];
}

/* The scale and offset that fit every finite joint of poses into a box
 * of w x h pixels, margin included, centred. */
static fit_t fit_poses(const verdict_svg_pose_t *poses, size_t count,
                       verdict_view view, double w, double h) {
  double minx = INFINITY, maxx = -INFINITY, miny = INFINITY, maxy = -INFINITY;
  for (size_t i = 0; i < count; i++) {
    const verdict_svg_pose_t *p = &poses[i];
    if (p->skeleton == NULL || p->model == NULL) continue;
    for (uint32_t j = 0; j < p->skeleton->joint_count; j++) {
      plane_pt_t q = project(p->model + 16 * (size_t)j, view);
      if (!finite_pt(q)) continue;
      minx = fmin(minx, q.x), maxx = fmax(maxx, q.x);
      miny = fmin(miny, q.y), maxy = fmax(maxy, q.y);
    }
  }
  if (minx > maxx) minx = maxx = miny = maxy = 0.0; /* Nothing to draw. */
  double margin = MARGIN_FRACTION * fmin(w, h);
  double aw = fmax(w - 2.0 * margin, 1.0), ah = fmax(h - 2.0 * margin, 1.0);
  double ex = maxx - minx, ey = maxy - miny;
  double scale = 1.0;
  if (ex > 1e-12 && ey > 1e-12)
    scale = fmin(aw / ex, ah / ey);
  else if (ex > 1e-12)
    scale = aw / ex;
  else if (ey > 1e-12)
    scale = ah / ey;
  fit_t f;
  f.scale = scale;
  f.ox = w / 2.0 - (minx + maxx) / 2.0 * scale;
  f.oy = h / 2.0 + (miny + maxy) / 2.0 * scale;
  return f;
}

static void put_xy(fmt_buf_t *b, const char *xname, const char *yname,
                   const fit_t *f, plane_pt_t q) {
  fmt_buf_printf(b, " %s=\"", xname);
  put_num(b, f->ox + q.x * f->scale);
  fmt_buf_printf(b, "\" %s=\"", yname);
  put_num(b, f->oy - q.y * f->scale);
  fmt_buf_putc(b, '"');
}

static bool highlighted(const verdict_svg_pose_t *p, uint32_t c) {
  for (uint32_t i = 0; p->highlight != NULL && i < p->highlight_count; i++)
    if (p->highlight[i] == c) return true;
  return false;
}

/* One pose as a <g>: its lines, then a dot on each highlighted joint. */
static void put_pose(fmt_buf_t *b, const verdict_svg_pose_t *p, size_t index,
                     verdict_view view, const fit_t *f) {
  const char *color = p->color != NULL ? p->color : VERDICT_SVG_COLOR;
  double opacity =
      isfinite(p->opacity) ? fmin(fmax(p->opacity, 0.0), 1.0) : 1.0;
  fmt_buf_printf(b, "<g data-pose=\"%zu\" stroke=\"", index);
  put_text(b, color);
  fmt_buf_puts(b, "\" stroke-opacity=\"");
  put_num(b, opacity);
  fmt_buf_puts(b, "\" fill-opacity=\""); /* The highlight dots. */
  put_num(b, opacity);
  fmt_buf_printf(b,
                 "\" stroke-width=\"%d\" stroke-linecap=\"round\" "
                 "fill=\"none\">\n",
                 STROKE_WIDTH);
  const anim_skeleton_t *sk = p->skeleton;
  if (sk == NULL || p->model == NULL) {
    fmt_buf_puts(b, "</g>\n");
    return;
  }
  for (uint32_t c = 0; c < sk->joint_count; c++) {
    int64_t parent = parent_of(sk, c);
    if (parent < 0) continue;
    plane_pt_t a = project(p->model + 16 * (size_t)parent, view);
    plane_pt_t z = project(p->model + 16 * (size_t)c, view);
    if (!finite_pt(a) || !finite_pt(z)) continue;
    fmt_buf_puts(b, "<line data-joint=\"");
    put_text(b, sk->names[sk->from_caller[c]]);
    fmt_buf_putc(b, '"');
    put_xy(b, "x1", "y1", f, a);
    put_xy(b, "x2", "y2", f, z);
    if (highlighted(p, c))
      fmt_buf_printf(b,
                     " class=\"highlight\" stroke=\"%s\" stroke-width=\"%d\"",
                     VERDICT_SVG_HIGHLIGHT, HIGHLIGHT_WIDTH);
    fmt_buf_puts(b, "/>\n");
  }
  for (uint32_t i = 0; p->highlight != NULL && i < p->highlight_count; i++) {
    uint32_t c = p->highlight[i];
    if (c >= sk->joint_count) continue;
    plane_pt_t q = project(p->model + 16 * (size_t)c, view);
    if (!finite_pt(q)) continue;
    fmt_buf_puts(b, "<circle data-highlight=\"");
    put_text(b, sk->names[sk->from_caller[c]]);
    fmt_buf_putc(b, '"');
    put_xy(b, "cx", "cy", f, q);
    fmt_buf_printf(b, " r=\"%d\" fill=\"%s\" stroke=\"none\"/>\n",
                   HIGHLIGHT_RADIUS, VERDICT_SVG_HIGHLIGHT);
  }
  fmt_buf_puts(b, "</g>\n");
}

static void put_open(fmt_buf_t *b, unsigned w, unsigned h, const char *title,
                     const verdict_svg_pose_t *poses, size_t count,
                     verdict_view view) {
  fmt_buf_printf(b,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
                 "height=\"%u\" viewBox=\"0 0 %u %u\">\n<title>",
                 w, h, w, h);
  if (title != NULL) {
    put_text(b, title);
  } else {
    const char *name =
        count > 0 && poses[0].skeleton != NULL ? poses[0].skeleton->name : "";
    put_text(b, name[0] != '\0' ? name : "skeleton");
    fmt_buf_printf(b, " (%s view)", view_names[view]);
  }
  fmt_buf_printf(b,
                 "</title>\n<rect width=\"%u\" height=\"%u\" "
                 "fill=\"#ffffff\"/>\n",
                 w, h);
}

double verdict_svg_fade(size_t i, size_t n) {
  if (n <= 1) return 1.0;
  return 0.2 + 0.8 * (double)i / (double)(n - 1);
}

void verdict_svg_draw(fmt_buf_t *b, const verdict_svg_pose_t *poses,
                      size_t count, const verdict_svg_desc_t *desc) {
  verdict_svg_desc_t d = desc != NULL ? *desc : (verdict_svg_desc_t){0};
  if ((unsigned)d.view > VERDICT_VIEW_TOP) d.view = VERDICT_VIEW_FRONT;
  bool grid = d.layout == VERDICT_LAYOUT_GRID && count > 0;
  unsigned dflt = grid ? 240 : 480;
  unsigned w = d.width != 0 ? d.width : dflt;
  unsigned h = d.height != 0 ? d.height : dflt;
  fit_t f = fit_poses(poses, count, d.view, w, h);
  if (!grid) {
    put_open(b, w, h, d.title, poses, count, d.view);
    for (size_t i = 0; i < count; i++) put_pose(b, &poses[i], i, d.view, &f);
    fmt_buf_puts(b, "</svg>\n");
    return;
  }
  unsigned cols = d.columns;
  if (cols == 0) {
    cols = (unsigned)ceil(sqrt((double)count));
    while ((size_t)cols * cols < count) cols++;
  }
  if (cols > count) cols = (unsigned)count;
  unsigned rows = (unsigned)((count + cols - 1) / cols);
  put_open(b, w * cols, h * rows, d.title, poses, count, d.view);
  for (size_t i = 0; i < count; i++) {
    fmt_buf_printf(b,
                   "<g data-frame=\"%zu\" transform=\"translate(%u %u)\">\n"
                   "<rect width=\"%u\" height=\"%u\" fill=\"none\" "
                   "stroke=\"#cccccc\"/>\n",
                   i, (unsigned)(i % cols) * w, (unsigned)(i / cols) * h, w, h);
    if (d.times != NULL) {
      fmt_buf_puts(b, "<text x=\"4\" y=\"14\" font-family=\"sans-serif\" "
                      "font-size=\"12\" fill=\"#555555\">t=");
      fmt_buf_printf(b, "%.4g</text>\n", d.times[i]);
    }
    put_pose(b, &poses[i], i, d.view, &f);
    fmt_buf_puts(b, "</g>\n");
  }
  fmt_buf_puts(b, "</svg>\n");
}

void verdict_svg_overlay(fmt_buf_t *b, const verdict_svg_pose_t *poses,
                         size_t count, verdict_view view, unsigned width,
                         unsigned height) {
  verdict_svg_desc_t d = {.view = view,
                          .layout = VERDICT_LAYOUT_OVERLAY,
                          .width = width,
                          .height = height};
  verdict_svg_draw(b, poses, count, &d);
}
