// SPDX-License-Identifier: GPL-2.0-only
//! Where results go: a file opened before the run starts (so a path that
//! cannot be written fails at once, not after minutes of simulation), or
//! standard output for `-`. A closed pipe (`mglru ... | head`) ends the
//! program quietly, as the other end asked.

use std::fs::File;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

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
}

/// A temporary name beside `path`, in the same folder (so the rename that
/// replaces `path` with it is atomic), keeping the extension (the plots'
/// encoders go by it): `dir/.NAME.mglru-PID.tmp.EXT`.
pub fn temp_beside(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    path.with_file_name(format!(".{name}.mglru-{}.tmp{ext}", std::process::id()))
}

/// Write a file whole or not at all: `write` fills a temporary file beside
/// `path`, which then replaces `path` by a rename. Whatever stops the
/// program before the rename, `path` holds its old contents or nothing.
pub fn write_atomically(path: &Path, write: impl FnOnce(&Path) -> std::io::Result<()>) -> std::io::Result<()> {
    let tmp = temp_beside(path);
    let r = write(&tmp).and_then(|_| std::fs::rename(&tmp, path));
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}

impl Output {
    /// Check now that `path` can be written (`-` = standard output): a
    /// temporary file beside it is created and removed again. Nothing is
    /// left at `path` until [`Output::write`], so a run that fails or is
    /// interrupted leaves a previous result alone and no empty file.
    pub fn open(flag: &'static str, path: &str) -> Result<Output, Failure> {
        if path == "-" {
            return Ok(Output { flag, path: None });
        }
        let p = PathBuf::from(path);
        if p.is_dir() {
            return Err(Failure::io(format!("{flag} {path}: cannot write there: it is a folder; give a file name")));
        }
        let tmp = temp_beside(&p);
        File::create(&tmp).map_err(|e| Failure::io(format!("{flag} {path}: cannot write there: {e}")))?;
        let _ = std::fs::remove_file(&tmp);
        Ok(Output { flag, path: Some(p) })
    }

    pub fn is_stdout(&self) -> bool {
        self.path.is_none()
    }

    /// A writer for a long output, written to a temporary file that
    /// [`Committed::commit`] renames over the path; a closed pipe on
    /// standard output is the caller's to treat as [`print`] does.
    pub fn into_writer(self) -> Result<Committed, Failure> {
        match self.path {
            None => Ok(Committed { w: Box::new(std::io::stdout().lock()), tmp: None }),
            Some(p) => {
                let tmp = temp_beside(&p);
                let f = File::create(&tmp).map_err(|e| Failure::io(format!("{} {}: {e}", self.flag, p.display())))?;
                Ok(Committed { w: Box::new(f), tmp: Some((tmp, p, self.flag)) })
            }
        }
    }

    /// Replace the file's contents with `bytes` (or print them).
    pub fn write(self, bytes: &[u8]) -> Result<(), Failure> {
        let Some(p) = self.path.as_ref() else {
            let mut o = std::io::stdout().lock();
            return match o.write_all(bytes).and_then(|_| o.flush()) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == ErrorKind::BrokenPipe => std::process::exit(0),
                Err(e) => Err(Failure::io(format!("{}: writing to standard output: {e}", self.flag))),
            };
        };
        write_atomically(p, |tmp| std::fs::write(tmp, bytes)).map_err(|e| Failure::io(format!("{} {}: {e}", self.flag, p.display())))
    }
}

/// A long output's writer; the file appears at its path on `commit`.
pub struct Committed {
    w: Box<dyn Write>,
    tmp: Option<(PathBuf, PathBuf, &'static str)>,
}

impl Write for Committed {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.w.write(b)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

impl Committed {
    /// Flush, and put the file in place.
    pub fn commit(mut self) -> Result<(), Failure> {
        self.w.flush().map_err(|e| Failure::io(format!("writing the output: {e}")))?;
        if let Some((tmp, path, flag)) = self.tmp.take() {
            std::fs::rename(&tmp, &path).map_err(|e| Failure::io(format!("{flag} {}: {e}", path.display())))?;
        }
        Ok(())
    }
}

impl Drop for Committed {
    fn drop(&mut self) {
        // Not committed: an error stopped the output half way.
        if let Some((tmp, _, _)) = self.tmp.take() {
            let _ = std::fs::remove_file(tmp);
        }
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
