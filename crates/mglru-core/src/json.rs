// SPDX-License-Identifier: GPL-2.0-only
//! A small JSON writer for reports (no external dependency).

use crate::report::Report;
use std::fmt::Write;

pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn map(out: &mut String, pairs: &[(&'static str, u64)], indent: &str) {
    out.push('{');
    for (i, (k, v)) in pairs.iter().enumerate() {
        let _ = write!(out, "{}\n{indent}  {}: {v}", if i > 0 { "," } else { "" }, escape(k));
    }
    let _ = write!(out, "\n{indent}}}");
}

/// The report as a JSON document (the `mglru run --json` shape).
pub fn report_json(r: &Report) -> String {
    let mut o = String::new();
    let _ = write!(o, "{{\n  \"policy\": {},\n  \"kernel\": {},\n  \"vmstat\": ", escape(r.policy), escape(r.kernel));
    map(&mut o, &r.vmstat, "  ");
    o.push_str(",\n  \"memcg\": {");
    for (i, m) in r.memcg.iter().enumerate() {
        let _ = write!(o, "{}\n    {}: {{\n      \"stat\": ", if i > 0 { "," } else { "" }, escape(&m.name));
        map(&mut o, &m.stat, "      ");
        let _ = write!(
            o,
            ",\n      \"current\": {},\n      \"peak\": {},\n      \"swap_current\": {},\n      \"events\": ",
            m.current, m.peak, m.swap_current
        );
        map(&mut o, &m.events, "      ");
        o.push_str("\n    }");
    }
    o.push_str("\n  },\n  \"oom_kills\": [");
    for (i, k) in r.oom_kills.iter().enumerate() {
        let _ = write!(
            o,
            "{}\n    {{\"time_ns\": {}, \"constraint\": {}, \"victim_task\": {}, \"victim_memcg\": {}, \"victim_pages\": {}}}",
            if i > 0 { "," } else { "" },
            k.time_ns,
            escape(&k.constraint),
            escape(&k.victim_task),
            escape(&k.victim_memcg),
            k.victim_pages
        );
    }
    let s = &r.sim;
    let _ = write!(
        o,
        "\n  ],\n  \"sim\": {{\n    \"operations\": {},\n    \"access_ops\": {},\n    \"throughput_ops_per_s\": {:.1},\n    \"page_accesses\": {},\n    \"dropped_accesses\": {},\n    \"failed_allocations\": {},\n    \"simulated_ns\": {},\n    \"task_ns\": {},\n    \"wall_seconds\": {:.6},\n    \"model_bytes\": {},\n    \"simulated_pages\": {}\n  }}\n}}\n",
        s.operations, s.access_ops, s.throughput(), s.page_accesses, s.dropped_accesses, s.failed_allocations, s.simulated_ns, s.task_ns, s.wall_seconds, s.model_bytes, s.simulated_pages
    );
    o
}
