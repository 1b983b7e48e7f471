#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Tests of harness.py's boot: which runs count as ended early, the bounded retry and what the
result records of it. No guest is booted: a stand-in for QEMU prints a console and writes the
result port's file.

    python3 validation/test_harness.py        (or python3 -m unittest validation/test_harness.py)
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402

RESULT = {"kernel": "7.2.13+deb14-cloud-amd64", "vmstat": {"pgscan_file": 5}, "memcg": {"app": {}},
          "lru_gen": ""}
CLEAN = """\
MGLRU-HARNESS stage=init uptime=2.1 uname=7.2.13+deb14-cloud-amd64
MGLRU-HARNESS mode=y lru_gen_enabled=0x0007 lru_gen_enabled_boot=0x0007
MGLRU-HARNESS stage=replay-start uptime=3.0
MGLRU-HARNESS stage=replay-end replay_rc=0 uptime=9.0
MGLRU-REPLAY-RESULT {result}
MGLRU-HARNESS lru_gen_enabled_after=0x0007
MGLRU-HARNESS stage=poweroff uptime=9.5
"""
OOPS = """\
MGLRU-HARNESS stage=init uptime=2.1 uname=7.2.13+deb14-cloud-amd64
[    2.9] Oops: invalid opcode: 0000 [#1] SMP NOPTI
[    2.9] Kernel panic - not syncing: Fatal exception
"""

# Stands in for qemu-system-x86_64: attempt N (counted in a file) prints CONSOLES[N-1] (the last
# one again for later attempts) and writes its result line to the result port's file.
FAKE_QEMU = textwrap.dedent("""\
    import json, sys
    state, result_path, consoles = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
    try:
        n = int(open(state).read()) + 1
    except FileNotFoundError:
        n = 1
    open(state, "w").write(str(n))
    text = consoles[min(n, len(consoles)) - 1]
    sys.stdout.write(text)
    with open(result_path, "w") as f:
        f.write("".join(l + "\\n" for l in text.splitlines() if l.startswith("MGLRU-REPLAY-RESULT")))
""")


def console(template=CLEAN, result=None):
    return template.format(result=json.dumps(RESULT if result is None else result))


class EarlyEnd(unittest.TestCase):
    def judge(self, text, timed_out=False):
        raw = harness.find_result([text])
        try:
            res = json.loads(raw) if raw is not None else None
        except json.JSONDecodeError:
            res = None
        return harness.early_end(text, raw, res, harness.harness_tags(text), timed_out)

    def test_a_clean_run_is_accepted(self):
        self.assertIsNone(self.judge(console()))

    def test_an_oops_is_retried_even_with_a_result(self):
        reason, retry, lines = self.judge(console() + "[ 8.0] BUG: unable to handle page fault\n")
        self.assertTrue(retry)
        self.assertIn("oops", reason)
        self.assertEqual(lines, ["[ 8.0] BUG: unable to handle page fault"])

    def test_a_panic_before_the_replayer_is_retried(self):
        reason, retry, lines = self.judge(OOPS)
        self.assertTrue(retry)
        self.assertEqual(len(lines), 2)

    def test_a_cut_result_line_is_retried(self):
        text = console().replace(json.dumps(RESULT), json.dumps(RESULT)[:30])
        reason, retry, _ = self.judge(text)
        self.assertTrue(retry)
        self.assertIn("not complete JSON", reason)

    def test_a_result_without_counters_is_retried(self):
        reason, retry, _ = self.judge(console(result={"kernel": "x", "memcg": {}}))
        self.assertTrue(retry)
        self.assertIn("vmstat", reason)

    def test_a_guest_that_stops_mid_replay_is_retried(self):
        text = "\n".join(l for l in console().splitlines() if "replay-end" not in l
                         and "RESULT" not in l)
        reason, retry, _ = self.judge(text)
        self.assertTrue(retry)
        self.assertIn("replay-end", reason)

    def test_a_failing_replayer_with_a_clean_console_is_not_retried(self):
        text = "\n".join(l for l in console().splitlines() if "RESULT" not in l)
        text = text.replace("replay_rc=0", "replay_rc=2")
        text += "\nmglru-replay: error: t.trace:2: `memcg app swap.peak=reset`: cannot reset\n"
        reason, retry, lines = self.judge(text)
        self.assertFalse(retry)
        self.assertIn("exited with 2", reason)
        self.assertEqual(len(lines), 1)

    def test_a_guest_killed_after_its_complete_result_is_kept(self):
        self.assertIsNone(self.judge(console(), timed_out=True))
        cut = "\n".join(l for l in console().splitlines() if "RESULT" not in l)
        self.assertEqual(self.judge(cut, timed_out=True)[0], "timeout")

    def test_init_errors_and_timeouts_are_not_retried(self):
        self.assertFalse(self.judge("MGLRU-HARNESS error=lru_gen/enabled_reads_0x0000\n")[1])
        self.assertFalse(self.judge("MGLRU-HARNESS stage=init\n", timed_out=True)[1])
        # a soft lockup is a warning, not an early end
        self.assertIsNone(self.judge(console() + "watchdog: BUG: soft lockup - CPU#1 stuck\n"))


class Retry(unittest.TestCase):
    def boot(self, consoles, attempts):
        d = tempfile.mkdtemp(prefix="harness-test-")
        self.addCleanup(shutil.rmtree, d, True)
        fake = os.path.join(d, "qemu.py")
        with open(fake, "w") as f:
            f.write(FAKE_QEMU)
        with open(os.path.join(d, "consoles.json"), "w") as f:
            json.dump(consoles, f)
        out = os.path.join(d, "r.json")
        p = subprocess.run(
            [sys.executable, os.path.join(HERE, "harness.py"), "boot", "--out", out, "--log-dir", d,
             "--timeout", "30", "--attempts", str(attempts),
             "--meta", "kernel_release=7.2.13+deb14-cloud-amd64", "--meta", "kernel_series=7.2",
             "--meta", "mode=y", "--", sys.executable, fake, os.path.join(d, "state"),
             os.path.join(d, "result.log"), os.path.join(d, "consoles.json")],
            capture_output=True, text=True)
        doc = None
        if os.path.exists(out):
            with open(out) as f:
                doc = json.load(f)
        return p, doc, d

    def test_an_oops_then_a_clean_boot_gives_the_clean_result(self):
        p, doc, d = self.boot([OOPS, console()], attempts=3)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("attempt 1 of 3 ended early", p.stderr)
        m = doc["meta"]
        self.assertEqual(m["attempts"], 2)
        self.assertEqual(len(m["failed_attempts"]), 1)
        self.assertEqual(m["failed_attempts"][0]["attempt"], 1)
        self.assertIn("Oops: invalid opcode", m["failed_attempts"][0]["lines"][0])
        self.assertEqual(m["kernel_series"], "7.2")  # a string, not the number 7.2
        self.assertEqual(doc["kernel"], "7.2.13+deb14-cloud-amd64 (package version ?)")
        self.assertEqual(m["lru_gen_enabled_boot"], "0x0007")
        self.assertTrue(os.path.exists(os.path.join(d, "console.attempt1.log")))

    def test_the_retries_are_bounded_and_nothing_partial_is_written(self):
        p, doc, _ = self.boot([OOPS], attempts=2)
        self.assertEqual(p.returncode, 4)
        self.assertIsNone(doc)
        self.assertIn("on all 2 attempts", p.stderr)

    def test_a_clean_first_boot_records_one_attempt(self):
        p, doc, _ = self.boot([console()], attempts=3)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(doc["meta"]["attempts"], 1)
        self.assertEqual(doc["meta"]["failed_attempts"], [])

    def test_a_guest_running_another_kernel_is_refused(self):
        other = dict(RESULT, kernel="6.12.117+deb12-cloud-amd64")
        p, doc, _ = self.boot([console(result=other)], attempts=1)
        self.assertEqual(p.returncode, 1)
        self.assertIn("not the '7.2.13+deb14-cloud-amd64'", p.stderr)


if __name__ == "__main__":
    unittest.main()
