// SPDX-License-Identifier: GPL-2.0-only
//! Where results go: a file opened before the run starts (so a path that
//! cannot be written fails at once, not after minutes of simulation), or
//! standard output for `-`. A closed pipe (`mglru ... | head`) ends the
//! program quietly, as the other end asked.

use std::fs::File;
use std::io::{ErrorKind, Write};
use std::path::PathBuf;

use mglru_sweep::Failure;

/// Write to standard output; a reader that went away ends the program
/// with success and no message.
pub fn print(text: &str) -> Result<(), Failure> {
    let mut o = std::io::stdout().lock();
    match o.write_all(text.as_bytes()).and_then(|_| o.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(Failure::io(format!("writing to standard output: {e}"))),
    }
}

/// An output named on the command line.
pub struct Output {
    flag: &'static str,
    path: Option<PathBuf>,
    file: Option<File>,
}

impl Output {
    /// Open `path` for writing now (`-` = standard output). The file is
    /// created if missing but its old contents stay until [`Output::write`]
    /// replaces them, so a run that fails leaves a previous result alone.
    pub fn open(flag: &'static str, path: &str) -> Result<Output, Failure> {
        if path == "-" {
            return Ok(Output { flag, path: None, file: None });
        }
        let p = PathBuf::from(path);
        let f = File::options()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&p)
            .map_err(|e| Failure::io(format!("{flag} {path}: cannot write there: {e}")))?;
        Ok(Output { flag, path: Some(p), file: Some(f) })
    }

    pub fn is_stdout(&self) -> bool {
        self.path.is_none()
    }


    /// A writer for a long output (the file emptied first); a closed pipe
    /// on standard output is the caller's to treat as [`print`] does.
    pub fn into_writer(self) -> Result<Box<dyn Write>, Failure> {
        match self.file {
            None => Ok(Box::new(std::io::stdout().lock())),
            Some(f) => {
                let p = self.path.as_ref().expect("a file has a path").display().to_string();
                f.set_len(0).map_err(|e| Failure::io(format!("{} {p}: {e}", self.flag)))?;
                Ok(Box::new(f))
            }
        }
    }

    /// Replace the file's contents with `bytes` (or print them).
    pub fn write(mut self, bytes: &[u8]) -> Result<(), Failure> {
        let Some(f) = self.file.as_mut() else {
            let mut o = std::io::stdout().lock();
            return match o.write_all(bytes).and_then(|_| o.flush()) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == ErrorKind::BrokenPipe => std::process::exit(0),
                Err(e) => Err(Failure::io(format!("{}: writing to standard output: {e}", self.flag))),
            };
        };
        let p = self.path.as_ref().expect("a file has a path").display().to_string();
        f.set_len(0)
            .and_then(|_| f.write_all(bytes))
            .and_then(|_| f.flush())
            .map_err(|e| Failure::io(format!("{} {p}: {e}", self.flag)))
    }
}

/// At most one output may be standard output.
pub fn one_stdout(outputs: &[(&str, Option<&str>)]) -> Result<(), Failure> {
    let on: Vec<&str> = outputs.iter().filter(|(_, p)| *p == Some("-")).map(|(f, _)| *f).collect();
    if on.len() > 1 {
        return Err(Failure::input(format!("{} all ask for standard output (`-`): send all but one to files", on.join(" and "))));
    }
    Ok(())
}
