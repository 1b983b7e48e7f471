#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Line plots as SVG, drawn by matplotlib (repro/requirements.txt).

    line_plot(title, xlabel, ylabel, series) -> str

`series` is a list of dicts: {"label": str, "x": [float], "y": [float],
optional "dash": bool, optional "color": str}. The figure keeps the look the
hand-written writer this replaced had: 860 x 380 px, the legend to the right
of the plot, light grid lines, axes ending on round ticks (1, 2, 2.5, 5 x
10^k steps), the y axis from zero, tick labels 1.5k, 2M. Text stays text in
the file (svg.fonttype "none"): small files a browser renders with its own
sans-serif and a test can read.

The output is deterministic for one matplotlib version (pinned in
requirements.txt): no date in the metadata, ids from a fixed salt.
"""

import io
import math

try:
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, MaxNLocator
except ImportError:  # pragma: no cover - the message is the point
    raise SystemExit("repro needs matplotlib for its plots: python3 -m pip install -r repro/requirements.txt")

PALETTE = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
]

# The figure in CSS pixels; matplotlib's SVG is in points (72 per inch) and a
# browser shows 96 px per inch, so an inch of figure is 96 px on screen.
WIDTH = 860
HEIGHT = 380
PX_PER_INCH = 96
PT_PER_PX = 72 / PX_PER_INCH
LEFT = 78      # room for y tick labels
RIGHT = 230    # room for the legend
TOP = 34
BOTTOM = 52

# Past this many points a series is thinned (`downsample`): the plots are
# a page wide, and a run's time series has tens of thousands of samples.
MAX_POINTS = 400

RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "mglru-repro",
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],   # shipped with matplotlib
    "font.size": 12 * PT_PER_PX,
    "axes.titlesize": 14 * PT_PER_PX,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.autolimit_mode": "round_numbers",
    "axes.xmargin": 0,
    "axes.ymargin": 0,
    "axes.edgecolor": "black",
    "axes.linewidth": 1 * PT_PER_PX,
    "axes.axisbelow": True,
    "axes.grid": True,
    "grid.color": "#e0e0e0",
    "grid.linewidth": 1 * PT_PER_PX,
    "lines.scale_dashes": False,
    "xtick.major.size": 0,
    "ytick.major.size": 0,
    "text.parse_math": False,      # a `$` in a label is a dollar sign
    "legend.frameon": False,
    "legend.handlelength": 2.2,
}


def fmt_tick(v, _pos=None):
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


def downsample(xs, ys, limit=MAX_POINTS):
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


def _locator():
    # About five intervals, each 1, 2, 2.5 or 5 times a power of ten.
    return MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10])


def line_plot(title, xlabel, ylabel, series, ymin_zero=True):
    """Return an SVG document (str) with one line per series."""
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(WIDTH / PX_PER_INCH, HEIGHT / PX_PER_INCH))
        fig.subplots_adjust(left=LEFT / WIDTH, right=1 - RIGHT / WIDTH, top=1 - TOP / HEIGHT,
                            bottom=BOTTOM / HEIGHT)
        ax = fig.add_subplot()
        finite = []
        for i, s in enumerate(series):
            xs, ys = downsample(s["x"], s["y"])
            finite += [y for y in ys if math.isfinite(y)]
            ax.plot(xs, ys, color=s.get("color") or PALETTE[i % len(PALETTE)], linewidth=1.6 * PT_PER_PX,
                    linestyle=(0, (6 * PT_PER_PX, 4 * PT_PER_PX)) if s.get("dash") else "-",
                    label=s["label"])
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_locator(_locator())
            axis.set_major_formatter(FuncFormatter(fmt_tick))
        if ymin_zero and finite:
            # Zero joins the data before the limits are rounded to ticks.
            ax.update_datalim([(0.0, min(0.0, min(finite)))], updatex=False)
        ax.autoscale_view()
        ax.set_title(title, pad=8)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if series:
            ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None})
    return out.getvalue()
