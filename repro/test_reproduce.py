#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Tests of repro/: the SVG writer, the helpers of repro/plumbing.py, and one
section of repro/reproduce.py at quick scale (not part of CI; the plots need
matplotlib: python3 -m pip install -r repro/requirements.txt).

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

    def texts(self, root):
        return [t.text for t in root.iter(SVG + "text")]

    def test_well_formed_with_title_axes_legend_and_lines(self):
        series = [
            {"label": "classic <a&b>", "x": [0, 1, 2, 3], "y": [0, 10, 5, 2e6]},
            {"label": "mglru $x$", "x": [0.3, 1.5, 97.2], "y": [1, 2, 3], "dash": True},
        ]
        root = self.parse(svgplot.line_plot("t & \"quotes\"", "time (s)", "pages", series))
        self.assertEqual(root.tag, SVG + "svg")
        self.assertEqual((root.get("width"), root.get("height")), ("645pt", "285pt"))   # 860 x 380 px
        texts = self.texts(root)
        for t in ("t & \"quotes\"", "time (s)", "pages", "classic <a&b>", "mglru $x$"):
            self.assertIn(t, texts)                   # escaped in the file, restored by the parser
        # The axes end on round ticks around the data; y starts at zero.
        for t in ("0", "100", "2M", "500k"):
            self.assertIn(t, texts)
        # One plotted line per series, the second dashed.
        styles = [p.get("style") or "" for p in root.iter(SVG + "path") if p.get("clip-path")]
        styles = [st for st in styles if "stroke: #e0e0e0" not in st]     # not the grid
        self.assertEqual(len(styles), 2)
        self.assertIn("stroke: #1f77b4", styles[0])
        self.assertIn("stroke: #d62728", styles[1])
        self.assertIn("stroke-dasharray", styles[1])
        self.assertNotIn("stroke-dasharray", styles[0])

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
        self.assertNotIn("<dc:date>", a)
        dx, dy = svgplot.downsample(xs, ys)
        self.assertLessEqual(len(dx), 410)
        self.assertEqual((dx[0], dx[-1]), (0, 4999))
        self.assertEqual((min(dy), max(dy)), (min(ys), max(ys)))
        self.assertEqual(svgplot.downsample([1, 2], [3, 4]), ([1, 2], [3, 4]))

    def test_tick_labels(self):
        self.assertEqual([svgplot.fmt_tick(v) for v in (0, 0.25, 1500, 2e6, 3e9, -2500)],
                         ["0", "0.25", "1.5k", "2M", "3G", "-2.5k"])


class Helpers(unittest.TestCase):
    def setUp(self):
        import plumbing
        self.r = plumbing

    def test_split_change(self):
        c = self.r.split_change(100, 130, 140)
        self.assertEqual((c["total"]["diff"], c["series"]["diff"], c["rest"]["diff"]), (40, 30, 10))
        self.assertAlmostEqual(c["total"]["pct"], 40.0)
        self.assertAlmostEqual(c["rest"]["pct"], 10 / 130 * 100)
        self.assertAlmostEqual(c["series"]["share"], 75.0)
        self.assertAlmostEqual(c["rest"]["share"], 25.0)
        self.assertIsNone(c["total"]["share"])
        # no change on the whole: no shares
        c = self.r.split_change(5, 7, 5)
        self.assertIsNone(c["series"]["share"])
        self.assertIsNone(c["rest"]["share"])

    def test_split_table_and_sentence(self):
        t = self.r.split_table([("a|b", 100, 130, 140)]).splitlines()
        self.assertEqual(len(t), 3)
        self.assertTrue(t[0].startswith("| metric | 6.12 | 6.12 + series"))
        self.assertEqual(t[2], "| a\\|b | 100 | 130 | 140 | +40.0% | +30.0% | +7.7% |")
        self.assertEqual(self.r.split_sentence("x", 100, 130, 140),
                         "x: 100 → 140 on 7.2 (+40.0%); the series +30.0% (100 → 130), 75% of the change, "
                         "the rest of 7.2 +7.7% (130 → 140), 25%.")
        self.assertEqual(self.r.split_sentence("y", 3, 3, 3), "y: the same in all three runs (3).")
        self.assertEqual(self.r.fmt_share(-0.3), "0%")
        # changes within the tolerance get no shares
        self.assertEqual(self.r.split_sentence("z", 1000, 1001, 1002),
                         "z: 1,000, 1,001 with the series, 1,002 on 7.2: within ±1% (the series +0.1%, the rest of 7.2 +0.1%).")

    def test_file_pages_read(self):
        class Res:
            vm = {"pgpgin": 4000, "pswpin": 100}
        self.assertEqual(self.r.file_pages_read(Res()), 900)
        self.assertEqual(self.r.file_pages_read(Res(), swap_bio=False), 1000)

    def test_same_shared_counters(self):
        class Res:
            def __init__(self, vm):
                self.vm = vm
        a = Res({"pgpgin": 4, "pgscan_khugepaged": 0, "pswpin": 1})
        self.assertEqual(self.r.same_shared_counters(a, Res({"pgpgin": 4, "pswpin": 1})), (True, 2))
        self.assertEqual(self.r.same_shared_counters(a, Res({"pgpgin": 8, "pswpin": 1})), (False, 2))

    def test_parse_kernel_differences(self):
        text = ("kernel versions (--kernel)\n"
                "  6.1    Linux 6.1 (Debian 12's kernel): no memcg LRU\n"
                "         differences: no-memcg-lru, workingset-6.1, swap-rw-page\n"
                "  6.12   Linux 6.12 (the default)\n"
                "         differences: none (the reference)\n"
                "\nvariants (--variant, on top of the version)\n"
                "  plain, 6.12    the kernel version as released (default)\n")
        self.assertEqual(self.r.parse_kernel_differences(text),
                         {"6.1": ["no-memcg-lru", "workingset-6.1", "swap-rw-page"], "6.12": []})

    def test_run_kernel_argument(self):
        class Ctx:
            work_rel = "target/w"
        run = self.r.Run("S", "7.2", ("workload", "ycsb:scale=64"), policy="mglru", kernel="7.2")
        a = run.argv(Ctx(), for_doc=True)
        self.assertEqual(a[:6], ["./target/release/mglru", "run", "--workload", "ycsb:scale=64", "--kernel", "7.2"])
        self.assertEqual(a[6:8], ["--policy", "mglru"])
        self.assertNotIn("--kernel", self.r.Run("S", "b", ("trace", "t"), policy="mglru").argv(Ctx()))


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
