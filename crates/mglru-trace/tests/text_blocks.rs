// SPDX-License-Identifier: GPL-2.0-only
//! The text form's block decoder (`next_ops` reading runs of access lines
//! in the shortcut form straight from the buffer) gives the ops, line
//! numbers and errors that `next_op` gives one by one, on runs longer
//! than the reader's buffer and on every way a line can leave the
//! shortcut.

use mglru_trace::{Op, TraceReader};
use std::io::Cursor;

type Decoded = (Vec<(Op, u64)>, Option<String>);

fn one_by_one(text: &str) -> Decoded {
    let mut r = TraceReader::from_reader("t.trace", Box::new(Cursor::new(text.as_bytes().to_vec()))).unwrap();
    let mut out = Vec::new();
    loop {
        match r.next_op() {
            Ok(Some(op)) => out.push((op, r.line())),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
}

fn in_blocks(text: &str, max: usize) -> Decoded {
    let mut r = TraceReader::from_reader("t.trace", Box::new(Cursor::new(text.as_bytes().to_vec()))).unwrap();
    let (mut ops, mut lines) = (Vec::new(), Vec::new());
    loop {
        let before = ops.len();
        match r.next_ops(&mut ops, &mut lines, before + max) {
            Ok(0) => return (ops.into_iter().zip(lines).collect(), None),
            Ok(n) => assert!(n <= max && lines.len() == ops.len()),
            Err(e) => return (ops.into_iter().zip(lines).collect(), Some(e.to_string())),
        }
    }
}

/// (equal prefix, ops, ops one by one, error, error one by one): a
/// failure message without 100,000 ops in it.
fn summary(got: &Decoded, want: &Decoded) -> (usize, usize, usize, Option<String>, Option<String>) {
    let n = got.0.iter().zip(&want.0).take_while(|(a, b)| a == b).count();
    (n, got.0.len(), want.0.len(), got.1.clone(), want.1.clone())
}

#[test]
fn text_runs_decode_and_fail_as_one_by_one() {
    let mut t = String::from("memory 64M\nfile f size=4G\nfile g size=64K\ntask t\nanon t a size=1M\n");
    let mut x: u64 = 3;
    let mut next = |m: u64| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    // Long runs (about 2.5 MB of them, beyond the buffer), then lines
    // that leave the shortcut in every way, each after a few lines in it.
    for _ in 0..120_000 {
        t.push_str(&format!("read t f {}\n", next(1 << 20)));
    }
    let odd = [
        "read t f 5 3",            // a count
        "read t f 5 0",            // count 0: an error, from the full parser
        "read t f 1048575 2",      // past the end: an error
        "read t f 12\r",           // carriage return
        "read t f 12 ",            // trailing space
        "read t f 12 # comment",   // a comment
        "read t f 00012",          // leading zeros
        "read t f 18446744073709551615", // 20 digits
        "read t f 1234567890123456789",  // 19 digits, out of range
        "read  t f 3",             // another spacing
        "read t g 3",              // another file
        "write t f 3",             // another kind
        "store t a 7",             // another class
        "# a comment line",
        "",
        "sleep 1ms",
    ];
    for (i, l) in odd.iter().enumerate() {
        for _ in 0..(3 + i % 4) {
            t.push_str(&format!("read t f {}\n", next(1 << 20)));
        }
        let mut one = t.clone();
        one.push_str(l);
        one.push('\n');
        for _ in 0..50 {
            one.push_str(&format!("read t f {}\n", next(1 << 20)));
        }
        // The last line without its newline, and with it.
        for text in [one.clone(), one.trim_end_matches('\n').to_string()] {
            let want = one_by_one(&text);
            for max in [1, 5, 256, 1 << 20] {
                let got = in_blocks(&text, max);
                assert!(got == want, "line {l:?}, max {max}: {:?}", summary(&got, &want));
            }
        }
        // Keep the lines that parse for the next cases.
        if one_by_one(&one).1.is_none() {
            t = one;
        }
    }
    let (ops, err) = one_by_one(&t);
    assert!(err.is_none(), "{err:?}");
    assert!(ops.len() > 120_000, "{}", ops.len());
}

/// The block decoder's word-wise lane (prefixes of 9 to 16 bytes, one to
/// seven digits and a newline) and its way back to the general loop, for
/// prefixes from 9 to 20 bytes and pages of one to nine digits, some with
/// a count: the same ops, lines and errors as one by one.
#[test]
fn text_runs_of_every_prefix_length_decode_as_one_by_one() {
    let mut s: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |m: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % m
    };
    // 400G = 104,857,600 pages: nine-digit pages exist.
    let mut t = String::from("memory 64M\n");
    let names = ["f", "fi", "fil", "file", "file5", "file_6", "file__7", "file___8", "file____9", "file_____10", "f"];
    let tasks = ["t", "t2", "t"];
    for n in names.iter().skip(1).take(names.len() - 2) {
        t.push_str(&format!("file {n} size=400G\n"));
    }
    t.push_str("file f size=400G\ntask t\ntask t2\n");
    for round in 0..60 {
        let name = names[(next(names.len() as u64)) as usize];
        let task = tasks[(round % tasks.len() as u64) as usize];
        let verb = if next(5) == 0 { "write" } else { "read" };
        for _ in 0..(1 + next(300)) {
            let digits = 1 + next(9) as u32;
            let page = next(10u64.pow(digits).min(104_857_500));
            match next(20) {
                0 => t.push_str(&format!("{verb} {task} {name} {page} {}\n", 1 + next(50))),
                1 => t.push_str(&format!("{verb} {task} {name} 00{page}\n")),
                _ => t.push_str(&format!("{verb} {task} {name} {page}\n")),
            }
        }
    }
    let want = one_by_one(&t);
    assert!(want.1.is_none(), "{:?}", want.1);
    for max in [1, 7, 256, 1 << 20] {
        let got = in_blocks(&t, max);
        assert!(got == want, "max {max}: {:?}", summary(&got, &want));
    }
}
