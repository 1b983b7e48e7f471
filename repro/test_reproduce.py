#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Smoke tests of repro/reproduce.py (standard library only; not part of CI).

    python3 -m unittest repro/test_reproduce.py      # from the repository root
    python3 repro/test_reproduce.py
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import svgplot  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


class SvgWriter(unittest.TestCase):
    def parse(self, text):
        return ET.fromstring(text.encode("utf-8"))

    def test_well_formed_with_axes_legend_and_lines(self):
        series = [
            {"label": "classic <a&b>", "x": [0, 1, 2, 3], "y": [0, 10, 5, 2e6]},
            {"label": "mglru", "x": [0, 1.5, 3], "y": [1, 2, 3], "dash": True},
        ]
        root = self.parse(svgplot.line_plot("t & \"quotes\"", "time (s)", "pages", series))
        self.assertEqual(root.tag, SVG + "svg")
        self.assertEqual(len(root.findall(SVG + "polyline")), 2)
        texts = [t.text for t in root.iter(SVG + "text")]
        self.assertIn("classic <a&b>", texts)       # escaped in the file, restored by the parser
        self.assertIn("mglru", texts)
        self.assertIn("2M", texts)                    # a y tick covers the maximum

    def test_degenerate_inputs(self):
        for series in ([], [{"label": "empty", "x": [], "y": []}],
                       [{"label": "flat", "x": [5, 5], "y": [0, 0]}]):
            self.parse(svgplot.line_plot("x", "x", "y", series))

    def test_deterministic_and_downsampled(self):
        xs = list(range(5000))
        ys = [(i * 7919) % 1000 for i in xs]
        a = svgplot.line_plot("d", "x", "y", [{"label": "s", "x": xs, "y": ys}])
        b = svgplot.line_plot("d", "x", "y", [{"label": "s", "x": xs, "y": ys}])
        self.assertEqual(a, b)
        pts = self.parse(a).find(SVG + "polyline").get("points").split()
        self.assertLessEqual(len(pts), 410)

    def test_ticks(self):
        self.assertEqual(svgplot.nice_ticks(0, 10), [0, 2, 4, 6, 8, 10])
        t = svgplot.nice_ticks(0.3, 97.2)
        self.assertLessEqual(t[0], 0.3)
        self.assertGreaterEqual(t[-1], 97.2)


class QuickSection(unittest.TestCase):
    def test_quick_only_one_section(self):
        with tempfile.TemporaryDirectory() as out:
            p = subprocess.run([sys.executable, os.path.join(HERE, "reproduce.py"), "--quick", "--only", "S4-c",
                                "--out", out], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(p.returncode, 0, p.stderr[-3000:])
            with open(os.path.join(out, "REPRODUCTIONS.md")) as f:
                doc = f.read()
            self.assertIn("## S4-a..f, S4-u", doc)
            # every summary row of the section carries a computed verdict
            rows = [l for l in doc.splitlines() if l.startswith("| [S4-")]
            self.assertGreaterEqual(len(rows), 7)
            for l in rows:
                self.assertRegex(l, r"\*\*(yes|no|n\.a\.)\*\* \|$")
            self.assertRegex(doc, r"\*\*\d+ comparisons\*\*")
            svgs = [f for f in os.listdir(os.path.join(out, "repro")) if f.endswith(".svg")]
            self.assertTrue(svgs)
            for fn in svgs:
                ET.parse(os.path.join(out, "repro", fn))
                self.assertIn("](repro/%s)" % fn, doc)
            self.assertTrue(re.search(r"\./target/release/mglru run --workload '?ycsb:workload=b,scale=64", doc))


if __name__ == "__main__":
    unittest.main()
