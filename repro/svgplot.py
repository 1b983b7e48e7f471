#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A small, dependency-free SVG line-plot writer (standard library only).

    line_plot(title, xlabel, ylabel, series) -> str

`series` is a list of dicts: {"label": str, "x": [float], "y": [float],
optional "dash": bool}. The output is deterministic: the same input gives
the same bytes (fixed float formatting, no timestamps, no random ids).
"""

import math
from xml.sax.saxutils import escape

PALETTE = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
]

WIDTH = 860
HEIGHT = 380
LEFT = 78      # room for y tick labels
RIGHT = 230    # room for the legend
TOP = 34
BOTTOM = 52


def nice_ticks(lo, hi, n=5):
    """Round tick positions (1, 2, 2.5, 5 x 10^k steps) covering [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        lo, hi = 0.0, 1.0
    if hi <= lo:
        hi = lo + (abs(lo) if lo else 1.0)
    span = hi - lo
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = mag
    for m in (1, 2, 2.5, 5, 10):
        step = m * mag
        if span / step <= n:
            break
    start = math.floor(lo / step + 1e-9) * step
    ticks = []
    t = start
    while t < hi - 1e-9 * step:
        ticks.append(t)
        t = start + len(ticks) * step
    ticks.append(t)
    return ticks


def fmt_tick(v):
    """Short tick label: 1.5k, 2M, 0.25, 3G."""
    if v == 0:
        return "0"
    a = abs(v)
    for div, suf in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= div:
            return _trim(v / div) + suf
    return _trim(v)


def _trim(v):
    s = "%.3f" % v
    s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _f(v):
    return "%.1f" % v


def downsample(xs, ys, limit=400):
    """At most about `limit` points: the series is cut into limit/2 buckets of
    consecutive points and each bucket keeps its lowest and highest point (in
    order), so peaks and dips survive; the first and last points are kept."""
    n = len(xs)
    if n <= limit:
        return list(xs), list(ys)
    buckets = max(1, limit // 2)
    keep = {0, n - 1}
    for b in range(buckets):
        lo, hi = b * n // buckets, (b + 1) * n // buckets
        if lo >= hi:
            continue
        seg = range(lo, hi)
        keep.add(min(seg, key=lambda i: (ys[i], i)))
        keep.add(max(seg, key=lambda i: (ys[i], -i)))
    idx = sorted(keep)
    return [xs[i] for i in idx], [ys[i] for i in idx]


def line_plot(title, xlabel, ylabel, series, ymin_zero=True):
    """Return an SVG document (str) with one polyline per series."""
    pw = WIDTH - LEFT - RIGHT
    ph = HEIGHT - TOP - BOTTOM
    xs_all = [x for s in series for x in s["x"]]
    ys_all = [y for s in series for y in s["y"]]
    if not xs_all:
        xs_all, ys_all = [0.0, 1.0], [0.0, 1.0]
    x0, x1 = min(xs_all), max(xs_all)
    y0, y1 = min(ys_all), max(ys_all)
    if ymin_zero:
        y0 = min(0.0, y0)
    xt = nice_ticks(x0, x1)
    yt = nice_ticks(y0, y1)
    x0, x1 = xt[0], xt[-1]
    y0, y1 = yt[0], yt[-1]

    def sx(x):
        return LEFT + (x - x0) / (x1 - x0) * pw

    def sy(y):
        return TOP + ph - (y - y0) / (y1 - y0) * ph

    o = []
    o.append('<?xml version="1.0" encoding="UTF-8"?>')
    o.append('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
             'font-family="sans-serif" font-size="12">' % (WIDTH, HEIGHT, WIDTH, HEIGHT))
    o.append('<rect x="0" y="0" width="%d" height="%d" fill="white"/>' % (WIDTH, HEIGHT))
    o.append('<text x="%s" y="20" font-size="14" font-weight="bold">%s</text>' % (_f(LEFT), escape(title)))
    # grid and ticks
    for t in xt:
        x = sx(t)
        o.append('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e0e0e0"/>' % (_f(x), _f(TOP), _f(x), _f(TOP + ph)))
        o.append('<text x="%s" y="%s" text-anchor="middle">%s</text>' % (_f(x), _f(TOP + ph + 16), escape(fmt_tick(t))))
    for t in yt:
        y = sy(t)
        o.append('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e0e0e0"/>' % (_f(LEFT), _f(y), _f(LEFT + pw), _f(y)))
        o.append('<text x="%s" y="%s" text-anchor="end">%s</text>' % (_f(LEFT - 6), _f(y + 4), escape(fmt_tick(t))))
    # axes
    o.append('<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="black"/>' % (_f(LEFT), _f(TOP), _f(pw), _f(ph)))
    o.append('<text x="%s" y="%s" text-anchor="middle">%s</text>' % (_f(LEFT + pw / 2), _f(HEIGHT - 12), escape(xlabel)))
    o.append('<text x="14" y="%s" text-anchor="middle" transform="rotate(-90 14 %s)">%s</text>'
             % (_f(TOP + ph / 2), _f(TOP + ph / 2), escape(ylabel)))
    # series
    for i, s in enumerate(series):
        color = s.get("color") or PALETTE[i % len(PALETTE)]
        xs, ys = downsample(s["x"], s["y"])
        if not xs:
            continue
        pts = " ".join("%s,%s" % (_f(sx(x)), _f(sy(y))) for x, y in zip(xs, ys))
        dash = ' stroke-dasharray="6 4"' if s.get("dash") else ""
        o.append('<polyline fill="none" stroke="%s" stroke-width="1.6"%s points="%s"/>' % (color, dash, pts))
    # legend
    lx = LEFT + pw + 14
    for i, s in enumerate(series):
        color = s.get("color") or PALETTE[i % len(PALETTE)]
        ly = TOP + 8 + i * 18
        dash = ' stroke-dasharray="6 4"' if s.get("dash") else ""
        o.append('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"%s/>'
                 % (_f(lx), _f(ly), _f(lx + 22), _f(ly), color, dash))
        o.append('<text x="%s" y="%s">%s</text>' % (_f(lx + 28), _f(ly + 4), escape(s["label"])))
    o.append("</svg>")
    return "\n".join(o) + "\n"
