// SPDX-License-Identifier: GPL-2.0-only
//! Where results go, checked before the run starts (so a path that cannot
//! be written fails at once, not after minutes of simulation):
//!
//! - `-` (and `/dev/stdout`) is standard output;
//! - a path that exists and is not a regular file (a pipe, a FIFO, a
//!   terminal, `/dev/null`, `/dev/full`, `/dev/fd/N`) is opened now and
//!   written in a stream, never truncated or replaced;
//! - any other path gets a temporary file beside it (beside the file a
//!   symbolic link points to), renamed over it only when the output is
//!   complete, so the path holds its old contents or the whole new result.
//!
//! An output that is one of the command's inputs, or the same file as
//! another output, is refused before anything runs ([`distinct`]). A closed
//! pipe (`mglru ... | head`) ends the program quietly, as the other end asked.

use std::fs::File;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::MetadataExt;
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

/// Whether a path names standard output.
pub fn is_stdout_path(p: &str) -> bool {
    matches!(p, "-" | "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1")
}

/// What a path is, for telling two names of one file apart: the device and
/// inode of an existing file, else the absolute path it will have.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ident {
    Inode(u64, u64),
    Path(PathBuf),
}

fn ident(p: &Path) -> Option<Ident> {
    if let Ok(m) = std::fs::metadata(p) {
        return Some(Ident::Inode(m.dev(), m.ino()));
    }
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Some(Ident::Path(std::fs::canonicalize(parent).ok()?.join(p.file_name()?)))
}

enum Kind {
    Stdout,
    /// A pipe, FIFO, terminal or device, opened when the output was checked.
    Stream(File),
    /// A regular file (or one to create): `target` is where the result
    /// goes (a symbolic link resolved), `ident` what it is now.
    File { target: PathBuf, ident: Option<Ident> },
}

/// An output named on the command line.
pub struct Output {
    flag: &'static str,
    shown: String,
    kind: Kind,
}

/// A temporary name beside `path`, in the same folder (so the rename that
/// replaces `path` with it is atomic), keeping the extension (the plots'
/// encoders go by it): `dir/.NAME.mglru-PID.tmp.EXT`.
pub fn temp_beside(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    path.with_file_name(format!(".{name}.mglru-{}.tmp{ext}", std::process::id()))
}

/// The failure of a write: a reader that went away on a stream ends the
/// program quietly, like [`print`].
fn write_failure(flag: &str, shown: &str, e: std::io::Error) -> Failure {
    if e.kind() == ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    Failure::io(format!("{flag} {shown}: {e}"))
}

impl Output {
    /// Check now that `path` can be written (see the module's comment).
    /// Nothing is left at a file's path until the output is complete, so a
    /// run that fails or is interrupted leaves a previous result alone and
    /// no empty file.
    pub fn open(flag: &'static str, path: &str) -> Result<Output, Failure> {
        let shown = path.to_string();
        if is_stdout_path(path) {
            return Ok(Output { flag, shown, kind: Kind::Stdout });
        }
        let p = PathBuf::from(path);
        let cannot = |e: std::io::Error| Failure::io(format!("{flag} {path}: cannot write there: {e}"));
        let kind = match std::fs::metadata(&p) {
            Ok(m) if m.is_dir() => return Err(Failure::io(format!("{flag} {path}: cannot write there: it is a folder; give a file name"))),
            // Replacing a device or pipe by a rename would put a file in its
            // place (and truncating a pipe fails): write to it as it is.
            Ok(m) if !m.is_file() => Kind::Stream(std::fs::OpenOptions::new().append(true).open(&p).map_err(cannot)?),
            // `/dev/fd/N` of a file opened by the shell: append, as `>>` would.
            Ok(_) if p.starts_with("/dev/fd") || p.starts_with("/proc") => {
                Kind::Stream(std::fs::OpenOptions::new().append(true).open(&p).map_err(cannot)?)
            }
            Ok(m) => {
                // Beside the file a symbolic link names, so the link stays.
                let target = std::fs::canonicalize(&p).map_err(cannot)?;
                Kind::File { target, ident: Some(Ident::Inode(m.dev(), m.ino())) }
            }
            Err(_) => Kind::File { ident: ident(&p), target: p },
        };
        if let Kind::File { target, .. } = &kind {
            let tmp = temp_beside(target);
            File::create(&tmp).map_err(cannot)?;
            let _ = std::fs::remove_file(&tmp);
        }
        Ok(Output { flag, shown, kind })
    }

    pub fn is_stdout(&self) -> bool {
        matches!(self.kind, Kind::Stdout)
    }

    /// What the output is named in messages (`--json out.json`).
    pub fn name(&self) -> String {
        format!("{} {}", self.flag, self.shown)
    }

    /// A writer for a long output: a file's temporary file, which
    /// [`Committed::commit`] renames over the path; a stream's own writer.
    pub fn into_writer(self) -> Result<Committed, Failure> {
        let Output { flag, shown, kind } = self;
        match kind {
            Kind::Stdout => Ok(Committed { w: Box::new(std::io::stdout().lock()), tmp: None, flag, shown }),
            Kind::Stream(f) => Ok(Committed { w: Box::new(f), tmp: None, flag, shown }),
            Kind::File { target, .. } => {
                let tmp = temp_beside(&target);
                let f = File::create(&tmp).map_err(|e| Failure::io(format!("{flag} {shown}: {e}")))?;
                Ok(Committed { w: Box::new(f), tmp: Some((tmp, target)), flag, shown })
            }
        }
    }

    /// Replace the file's contents with `bytes` (or write them to the stream).
    pub fn write(self, bytes: &[u8]) -> Result<(), Failure> {
        let mut w = self.into_writer()?;
        w.write_all(bytes).map_err(|e| write_failure(w.flag, &w.shown, e))?;
        w.commit()
    }
}

/// A long output's writer; a file appears at its path on `commit`.
pub struct Committed {
    w: Box<dyn Write>,
    tmp: Option<(PathBuf, PathBuf)>,
    flag: &'static str,
    shown: String,
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
        self.w.flush().map_err(|e| write_failure(self.flag, &self.shown, e))?;
        if let Some((tmp, path)) = self.tmp.take() {
            std::fs::rename(&tmp, &path).map_err(|e| Failure::io(format!("{} {}: {e}", self.flag, self.shown)))?;
        }
        Ok(())
    }
}

impl Drop for Committed {
    fn drop(&mut self) {
        // Not committed: an error stopped the output half way.
        if let Some((tmp, _)) = self.tmp.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// At most one output may be standard output.
pub fn one_stdout(outputs: &[(&str, Option<&str>)]) -> Result<(), Failure> {
    let on: Vec<&str> = outputs.iter().filter(|(_, p)| p.is_some_and(is_stdout_path)).map(|(f, _)| *f).collect();
    if on.len() > 1 {
        return Err(Failure::input(format!("{} all ask for standard output (`-`): send all but one to files", on.join(" and "))));
    }
    Ok(())
}

/// Refuse, before the run, an output that is one of the inputs (the
/// same path, or another name of the same file: it would be destroyed)
/// or the same file as another output (one of the two would be lost).
/// Streams (pipes, devices) are left out: two outputs may go to `/dev/null`.
pub fn distinct(outputs: &[&Output], inputs: &[(&str, &Path)]) -> Result<(), Failure> {
    let files: Vec<(&Output, &Ident)> = outputs
        .iter()
        .filter_map(|o| match &o.kind {
            Kind::File { ident: Some(i), .. } => Some((*o, i)),
            _ => None,
        })
        .collect();
    for (o, id) in &files {
        for (what, p) in inputs {
            if is_stdout_path(&p.to_string_lossy()) || p.as_os_str() == "-" {
                continue;
            }
            if ident(p).as_ref() == Some(*id) {
                return Err(Failure::input(format!(
                    "{} is the input {what} {}: writing it would destroy the input; give the output another name",
                    o.name(),
                    p.display()
                )));
            }
        }
    }
    for (i, (a, ia)) in files.iter().enumerate() {
        if let Some((b, _)) = files[i + 1..].iter().find(|(_, ib)| ib == ia) {
            return Err(Failure::input(format!("{} and {} name the same file: one would overwrite the other; give each its own name", a.name(), b.name())));
        }
    }
    Ok(())
}
