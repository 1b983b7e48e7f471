// SPDX-License-Identifier: GPL-2.0-only
//! The worker process of one trace task, and the command protocol between
//! the controller and the workers.
//!
//! Each worker is forked by the controller and talks to it over one
//! `AF_UNIX` `SOCK_SEQPACKET` socket: the controller sends a fixed-size
//! [`Cmd`], the worker performs it and answers with a fixed-size [`Ack`].
//! File descriptors travel with `SCM_RIGHTS`, so every worker uses the
//! controller's open file description of a file (one `struct file`, one
//! readahead state per file, as in the simulator).
//!
//! The worker code runs in a child forked from a process that may have
//! other threads (the test harness), so it only makes system calls: no
//! allocation, no locks, no panics.

use std::ffi::CStr;
use std::mem::{size_of, zeroed};
use std::ptr;

/// Install the file descriptor sent with the command (`SCM_RIGHTS`);
/// `Ack::val` is its number in the worker.
pub const CMD_INSTALL: u64 = 1;
/// `mmap(MAP_PRIVATE|MAP_ANONYMOUS)` of `a` bytes + `MADV_NOHUGEPAGE`,
/// then, if `c` is 1, `MADV_POPULATE_WRITE` (the trace's `populate=y`:
/// `MAP_POPULATE` would fault the pages in before `MADV_NOHUGEPAGE`);
/// with `b` = 1 `MAP_SHARED|MAP_ANONYMOUS` (shmem), populated with
/// `MADV_POPULATE_READ`. `Ack::val` is the address.
pub const CMD_MAP_ANON: u64 = 2;
/// `mmap(MAP_SHARED)` of fd `a`, `b` bytes + `MADV_NOHUGEPAGE`, then, if
/// `c` is 1, `MADV_POPULATE_READ`; `Ack::val` is the address.
pub const CMD_MAP_FILE: u64 = 3;
/// `madvise(a, b, c)`.
pub const CMD_MADVISE: u64 = 4;
/// `posix_fadvise(a, 0, 0, c)` (the whole file).
pub const CMD_FADVISE: u64 = 5;
/// `pread(a, buf=b, len=c, off=d)`, buffer capacity `e`; `Ack::res` is the
/// number of system calls, `Ack::val` the bytes read.
pub const CMD_PREAD: u64 = 6;
/// `pwrite`, arguments as [`CMD_PREAD`].
pub const CMD_PWRITE: u64 = 7;
/// A volatile 8-byte load at `a + i * 4096` for `i` in `0..b`.
pub const CMD_LOAD: u64 = 8;
/// A volatile 8-byte store of `c + i` at `a + i * 4096` for `i` in `0..b`.
pub const CMD_STORE: u64 = 9;
/// Acknowledge and exit.
pub const CMD_EXIT: u64 = 10;
/// `munmap(a, b)`.
pub const CMD_MUNMAP: u64 = 11;
/// `close(a)`.
pub const CMD_CLOSE: u64 = 12;
/// `mlock(a, b)`.
pub const CMD_MLOCK: u64 = 13;
/// `munlock(a, b)`.
pub const CMD_MUNLOCK: u64 = 14;
/// `fork()` (the trace's `fork`): the descriptor sent with the command is
/// the child's socket, `a` the address of the child's start counter (0:
/// none). The child answers on its socket first (`Ack::val` its pid) and
/// then serves commands there; the parent answers with the child's pid.
/// The worker's children are reaped by the kernel (`SIGCHLD` ignored).
pub const CMD_FORK: u64 = 15;

/// `Ack::val` of a failed start: joining the cgroup failed.
pub const STAGE_CGROUP: u64 = 1;
/// `Ack::val` of a failed start: pinning to the task's CPU failed.
pub const STAGE_AFFINITY: u64 = 2;

/// The page size the worker steps by.
pub const PAGE: u64 = 4096;

/// A command from the controller.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cmd {
    /// One of the `CMD_*` values.
    pub op: u64,
    /// Arguments, see the `CMD_*` values.
    pub a: u64,
    /// Second argument.
    pub b: u64,
    /// Third argument.
    pub c: u64,
    /// Fourth argument.
    pub d: u64,
    /// Fifth argument.
    pub e: u64,
}

/// A worker's answer: `res < 0` is `-errno`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ack {
    /// `-errno` on failure, else 0 or a count.
    pub res: i64,
    /// A result value (address, fd, bytes, pid).
    pub val: u64,
}

/// What a worker does before serving commands; built by the controller
/// before `fork` (the child must not allocate).
#[derive(Debug)]
pub struct Setup {
    /// The worker's end of the socket.
    pub sock: i32,
    /// Descriptors to close first (the controller's ends of all sockets).
    pub close: Vec<i32>,
    /// `cgroup.procs` of the task's memcg, where the worker writes its pid.
    pub procs: Option<std::ffi::CString>,
    /// `/proc/self/oom_score_adj`, reset to 0 (the controller runs at
    /// -1000, which a fork inherits).
    pub oom_score_adj: Option<std::ffi::CString>,
    /// What is written there: the trace's `oom_score_adj` (0 unless given).
    pub oom_score_adj_value: Vec<u8>,
    /// `mlockall(MCL_CURRENT | MCL_ONFAULT)`: the worker's own few pages
    /// (stack, copies of the controller's data) are kept off the LRU, so
    /// reclaim only ever sees the trace's pages of this memcg.
    pub mlock: bool,
    /// The filled part of the shared I/O buffer (address, length): mapped
    /// into the worker's page table at start (`MADV_POPULATE_WRITE`), so
    /// the first `pread`/`pwrite` of each page does not add a minor fault
    /// to the run's counters.
    pub prefault: (u64, u64),
    /// The CPU the trace pins the task to (`task ... cpu=K`):
    /// `sched_setaffinity` to that CPU alone.
    pub cpu: Option<u32>,
    /// `--parallel`: the address of this worker's counter of commands
    /// started, in a page shared with the controller (0: none).
    pub started: u64,
}

fn errno() -> i64 {
    i64::from(
        std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO),
    )
}

fn send_ack(sock: i32, ack: &Ack) -> bool {
    loop {
        // SAFETY: ack is a valid buffer of the given size.
        let n = unsafe {
            libc::send(
                sock,
                (ack as *const Ack).cast(),
                size_of::<Ack>(),
                libc::MSG_NOSIGNAL,
            )
        };
        if n == size_of::<Ack>() as isize {
            return true;
        }
        if n < 0 && errno() == i64::from(libc::EINTR) {
            continue;
        }
        return false;
    }
}

fn exit(code: i32) -> ! {
    // SAFETY: _exit never returns and runs no user-space cleanup, which is
    // what a forked child must do.
    unsafe { libc::_exit(code) }
}

/// Writes `text` to the file `path` with one `write`; `-errno` on failure.
fn write_file(path: &CStr, text: &[u8]) -> i64 {
    // SAFETY: path is a valid C string.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return -errno();
    }
    // SAFETY: text is a valid buffer.
    let n = unsafe { libc::write(fd, text.as_ptr().cast(), text.len()) };
    let r = if n < 0 { -errno() } else { 0 };
    // SAFETY: fd is ours.
    unsafe { libc::close(fd) };
    r
}

/// Formats `v` in decimal into `buf`, returning the used tail.
fn itoa(mut v: u64, buf: &mut [u8; 24]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    &buf[i..]
}

/// Receives one command and an optional descriptor. `None` when the
/// controller has gone away.
fn recv_cmd(sock: i32) -> Option<(Cmd, i32, bool)> {
    let mut cmd = Cmd::default();
    let mut cbuf = [0u64; 8];
    loop {
        let mut iov = libc::iovec {
            iov_base: (&mut cmd as *mut Cmd).cast(),
            iov_len: size_of::<Cmd>(),
        };
        // SAFETY: msghdr is plain old data.
        let mut msg: libc::msghdr = unsafe { zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cbuf.as_mut_ptr().cast();
        msg.msg_controllen = size_of::<[u64; 8]>() as _;
        // SAFETY: msg points at valid buffers that outlive the call.
        let n = unsafe { libc::recvmsg(sock, &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n == 0 {
            return None;
        }
        if n < 0 {
            if errno() == i64::from(libc::EINTR) {
                continue;
            }
            return None;
        }
        let mut fd = -1;
        // SAFETY: msg was filled by recvmsg; the CMSG macros walk its
        // control buffer within msg_controllen.
        unsafe {
            let c = libc::CMSG_FIRSTHDR(&msg);
            if !c.is_null()
                && (*c).cmsg_level == libc::SOL_SOCKET
                && (*c).cmsg_type == libc::SCM_RIGHTS
            {
                fd = ptr::read_unaligned(libc::CMSG_DATA(c).cast::<i32>());
            }
        }
        return Some((cmd, fd, n as usize == size_of::<Cmd>()));
    }
}

/// Repeats `pread`/`pwrite` until `len` bytes are done (one call unless
/// the request is larger than the kernel's `MAX_RW_COUNT` or the buffer).
fn rw(write: bool, fd: i32, buf: u64, cap: u64, len: u64, off: u64) -> Ack {
    let mut done = 0u64;
    let mut calls = 0i64;
    while done < len {
        let chunk = (len - done).min(cap.max(PAGE));
        // SAFETY: buf..buf+cap is the controller's shared buffer, mapped
        // read-write in this process (inherited over fork).
        let n = unsafe {
            if write {
                libc::pwrite(
                    fd,
                    buf as *const libc::c_void,
                    chunk as usize,
                    (off + done) as libc::off_t,
                )
            } else {
                libc::pread(
                    fd,
                    buf as *mut libc::c_void,
                    chunk as usize,
                    (off + done) as libc::off_t,
                )
            }
        };
        calls += 1;
        if n < 0 {
            if errno() == i64::from(libc::EINTR) {
                continue;
            }
            return Ack {
                res: -errno(),
                val: done,
            };
        }
        if n == 0 {
            break;
        }
        done += n as u64;
    }
    Ack {
        res: calls,
        val: done,
    }
}

/// Performs one command.
fn perform(cmd: &Cmd, fd: i32) -> Ack {
    let ok = |val: u64| Ack { res: 0, val };
    let fail = || Ack {
        res: -errno(),
        val: 0,
    };
    match cmd.op {
        CMD_INSTALL => {
            if fd < 0 {
                Ack {
                    res: -i64::from(libc::EBADF),
                    val: 0,
                }
            } else {
                ok(fd as u64)
            }
        }
        CMD_MAP_ANON | CMD_MAP_FILE => {
            let (len, flags, mfd) = if cmd.op == CMD_MAP_ANON && cmd.b == 1 {
                (cmd.a, libc::MAP_SHARED | libc::MAP_ANONYMOUS, -1)
            } else if cmd.op == CMD_MAP_ANON {
                (cmd.a, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1)
            } else {
                (cmd.b, libc::MAP_SHARED, cmd.a as i32)
            };
            // SAFETY: a fresh mapping chosen by the kernel.
            let p = unsafe {
                libc::mmap(
                    ptr::null_mut(),
                    len as usize,
                    libc::PROT_READ | libc::PROT_WRITE,
                    flags,
                    mfd,
                    0,
                )
            };
            if p == libc::MAP_FAILED {
                return fail();
            }
            // Best effort: fails with EINVAL on kernels without THP.
            // SAFETY: p..p+len is the mapping just made.
            unsafe { libc::madvise(p, len as usize, libc::MADV_NOHUGEPAGE) };
            if cmd.c == 1 {
                // A shared mapping is populated for reading, as MAP_POPULATE does.
                let advice = if cmd.op == CMD_MAP_ANON && cmd.b == 0 { libc::MADV_POPULATE_WRITE } else { libc::MADV_POPULATE_READ };
                // SAFETY: as above.
                if unsafe { libc::madvise(p, len as usize, advice) } != 0 {
                    return fail();
                }
            }
            ok(p as u64)
        }
        CMD_MADVISE => {
            // SAFETY: the controller passes a whole mapping of this
            // process; madvise validates the range.
            let r =
                unsafe { libc::madvise(cmd.a as *mut libc::c_void, cmd.b as usize, cmd.c as i32) };
            if r != 0 {
                fail()
            } else {
                ok(0)
            }
        }
        CMD_FADVISE => {
            // SAFETY: plain system call; returns an errno value.
            let r = unsafe { libc::posix_fadvise(cmd.a as i32, 0, 0, cmd.c as i32) };
            if r != 0 {
                Ack {
                    res: -i64::from(r),
                    val: 0,
                }
            } else {
                ok(0)
            }
        }
        CMD_PREAD | CMD_PWRITE => rw(
            cmd.op == CMD_PWRITE,
            cmd.a as i32,
            cmd.b,
            cmd.e,
            cmd.c,
            cmd.d,
        ),
        CMD_LOAD => {
            let mut sum = 0u64;
            for i in 0..cmd.b {
                // SAFETY: the controller checked that the pages lie inside
                // a mapping of this process; an access beyond a file's end
                // raises SIGBUS, which the controller reports.
                sum = sum
                    .wrapping_add(unsafe { ptr::read_volatile((cmd.a + i * PAGE) as *const u64) });
            }
            ok(sum)
        }
        CMD_STORE => {
            for i in 0..cmd.b {
                // SAFETY: as for CMD_LOAD.
                unsafe {
                    ptr::write_volatile((cmd.a + i * PAGE) as *mut u64, cmd.c.wrapping_add(i) | 1)
                };
            }
            ok(0)
        }
        CMD_EXIT => ok(0),
        CMD_MUNMAP => {
            // SAFETY: the controller passes a whole mapping this worker
            // made; nothing of the worker's own lives there.
            let r = unsafe { libc::munmap(cmd.a as *mut libc::c_void, cmd.b as usize) };
            if r != 0 {
                fail()
            } else {
                ok(0)
            }
        }
        CMD_MLOCK | CMD_MUNLOCK => {
            // SAFETY: the controller passes a whole mapping this worker made.
            let r = unsafe {
                if cmd.op == CMD_MLOCK {
                    libc::mlock(cmd.a as *const libc::c_void, cmd.b as usize)
                } else {
                    libc::munlock(cmd.a as *const libc::c_void, cmd.b as usize)
                }
            };
            if r != 0 {
                fail()
            } else {
                ok(0)
            }
        }
        CMD_CLOSE => {
            // SAFETY: plain system call on a descriptor the controller
            // installed or the worker inherited.
            let r = unsafe { libc::close(cmd.a as i32) };
            if r != 0 {
                fail()
            } else {
                ok(0)
            }
        }
        _ => Ack {
            res: -i64::from(libc::EINVAL),
            val: 0,
        },
    }
}

/// The worker's main loop; never returns.
pub fn main(s: &Setup) -> ! {
    for &fd in &s.close {
        // SAFETY: closing descriptors this child inherited and never uses.
        unsafe { libc::close(fd) };
    }
    if let Some(p) = &s.procs {
        let mut b = [0u8; 24];
        // SAFETY: getpid has no preconditions.
        let pid = unsafe { libc::getpid() } as u64;
        let r = write_file(p, itoa(pid, &mut b));
        if r < 0 {
            send_ack(
                s.sock,
                &Ack {
                    res: r,
                    val: STAGE_CGROUP,
                },
            );
            exit(1);
        }
    }
    if let Some(cpu) = s.cpu {
        // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET and
        // sched_setaffinity only touch it and the calling thread.
        let r = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu as usize, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
        };
        if r != 0 {
            // SAFETY: reading errno right after the failed call.
            let e = unsafe { *libc::__errno_location() };
            send_ack(
                s.sock,
                &Ack {
                    res: -(e as i64),
                    val: STAGE_AFFINITY,
                },
            );
            exit(1);
        }
    }
    if let Some(p) = &s.oom_score_adj {
        write_file(p, &s.oom_score_adj_value);
    }
    if s.mlock {
        // SAFETY: plain system call.
        unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_ONFAULT) };
    }
    if s.prefault.1 > 0 {
        // Best effort (EINVAL before Linux 5.14).
        // SAFETY: the range is the controller's shared buffer, inherited.
        unsafe {
            libc::madvise(
                s.prefault.0 as *mut libc::c_void,
                s.prefault.1 as usize,
                libc::MADV_POPULATE_WRITE,
            )
        };
    }
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() } as u64;
    if !send_ack(s.sock, &Ack { res: 0, val: pid }) {
        exit(1);
    }
    // A forked child serves its own socket and start counter.
    let (mut sock, mut started) = (s.sock, s.started);
    loop {
        let Some((cmd, fd, whole)) = recv_cmd(sock) else {
            exit(0);
        };
        if started != 0 {
            // SAFETY: started is this worker's u32 in the shared start
            // board, mapped before the fork and never unmapped by it; the
            // futex wakes the controller waiting for this start.
            unsafe {
                let at = &*(started as *const std::sync::atomic::AtomicU32);
                at.fetch_add(1, std::sync::atomic::Ordering::Release);
                libc::syscall(libc::SYS_futex, started as *const u32, libc::FUTEX_WAKE, 1);
            }
        }
        if whole && cmd.op == CMD_FORK {
            if fd < 0 {
                if !send_ack(sock, &Ack { res: -i64::from(libc::EBADF), val: 0 }) {
                    exit(1);
                }
                continue;
            }
            // SAFETY: plain system calls; the child only makes system
            // calls, as this process does.
            let child = unsafe {
                libc::signal(libc::SIGCHLD, libc::SIG_IGN);
                libc::fork()
            };
            if child == 0 {
                // SAFETY: the parent's socket is the parent's business.
                unsafe { libc::close(sock) };
                sock = fd;
                started = cmd.a;
                // SAFETY: getpid has no preconditions.
                let me = unsafe { libc::getpid() } as u64;
                if !send_ack(sock, &Ack { res: 0, val: me }) {
                    exit(1);
                }
                continue;
            }
            let ack = if child < 0 { Ack { res: -errno(), val: 0 } } else { Ack { res: 0, val: child as u64 } };
            // SAFETY: the child's end, now the child's alone.
            unsafe { libc::close(fd) };
            if !send_ack(sock, &ack) {
                exit(1);
            }
            continue;
        }
        let ack = if !whole {
            Ack {
                res: -i64::from(libc::EINVAL),
                val: 0,
            }
        } else {
            perform(&cmd, fd)
        };
        if fd >= 0 && cmd.op != CMD_INSTALL {
            // SAFETY: an unexpected descriptor received with the command.
            unsafe { libc::close(fd) };
        }
        if !send_ack(sock, &ack) {
            exit(1);
        }
        if cmd.op == CMD_EXIT {
            exit(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn itoa_formats_decimal() {
        let mut b = [0u8; 24];
        assert_eq!(itoa(0, &mut b), b"0");
        assert_eq!(itoa(4711, &mut b), b"4711");
        assert_eq!(itoa(u64::MAX, &mut b), b"18446744073709551615");
    }

    #[test]
    fn protocol_sizes_are_fixed() {
        assert_eq!(size_of::<Cmd>(), 48);
        assert_eq!(size_of::<Ack>(), 16);
    }
}
