#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the guest's initramfs: a gzipped newc cpio with busybox-static, e2fsprogs' mke2fs (with
# its shared libraries, for a real ext4), brd.ko, the replayer, /init and the trace.
#
#   validation/build-initramfs.sh REPLAYER OUT.cpio.gz [--trace TRACE] [--mode MODE]
#                                 [--replay-arg ARG]... [--setup SETUP.env] [--swap-loop]
#                                 [--swap-nullb PARAMS] [--kernel-env FILE]
#
# REPLAYER is a static binary (`mglru-replay`), run as `/mglru-replay /trace --data-dir
# /mnt/data [ARG...]`. MODE is what /init writes to /sys/kernel/mm/lru_gen/enabled: y, n or a
# mask such as 0x0001 (default y). Without --trace the image has no /trace and /init does not
# run the replayer (useful only to time a boot). --setup takes the output of `harness.py
# trace-setup TRACE` when the caller has it already. --swap-loop adds loop.ko and util-linux's
# losetup (with its libraries) and tells /init to put the trace's swap (not zram) on /dev/loop0
# over /dev/ram1 with direct I/O: an asynchronous swap device (run-kernel.sh --swap-loop).
# --swap-nullb PARAMS adds configfs.ko and null_blk.ko and tells /init to swap on a memory-backed
# /dev/nullb0 loaded with the comma-separated null_blk parameters PARAMS (e.g.
# irqmode=2,completion_nsec=1000000,mbps=20). Without them the image is as before. --kernel-env takes the
# kernel description setup.sh wrote (default validation/work/kernel.env, the 6.12 kernel; e.g.
# validation/work/kernel-7.2.env), whose modules go into the image. Needs validation/setup.sh first.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
die() { printf 'build-initramfs: error: %s\n' "$*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: build-initramfs.sh REPLAYER OUT.cpio.gz [--trace TRACE] [--mode y|n|0xMASK] [--replay-arg ARG]..."
replayer="$1"; out="$2"; shift 2
trace=""; mode="y"; replay_args=(); setup_env=""; swap_loop=0; swap_nullb=""; kernel_env="$here/work/kernel.env"
while [ $# -gt 0 ]; do
    case "$1" in
        --trace) trace="$2"; shift 2 ;;
        --mode) mode="$2"; shift 2 ;;
        --replay-arg) replay_args+=("$2"); shift 2 ;;
        --setup) setup_env="$2"; shift 2 ;;
        --swap-loop) swap_loop=1; shift ;;
        --kernel-env) kernel_env="$2"; shift 2 ;;
        --swap-nullb) swap_nullb="$2"; shift 2
                      [[ "$swap_nullb" =~ ^[a-z_]+=[0-9]+(,[a-z_]+=[0-9]+)*$ ]] \
                          || die "--swap-nullb takes null_blk parameters NAME=N[,NAME=N]..., not '$swap_nullb'" ;;
        *) die "unknown option $1" ;;
    esac
done
case "$mode" in
    y|n|[0-7]|0x[0-7]|0x000[0-7]|0x00[0-7]|0x0[0-7]) ;;
    *) die "mode must be y, n or a mask 0x0..0x7 (e.g. 0x0001), not '$mode'" ;;
esac
[ -f "$kernel_env" ] || die "no $kernel_env: run validation/setup.sh first (with --kernel for 6.1 or 7.2)"
# shellcheck disable=SC1090
. "$kernel_env"
[ -x "$replayer" ] || die "replayer '$replayer' is not an executable file"
if LC_ALL=C ldd "$replayer" >/dev/null 2>&1; then
    die "replayer '$replayer' is dynamically linked; build it static (-C target-feature=+crt-static)"
fi
[ -z "$trace" ] || [ -f "$trace" ] || die "trace '$trace' not found"

root="$(mktemp -d "${TMPDIR:-/tmp}/mglru-initramfs.XXXXXX")"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,mnt/data,tmp,etc,lib64,lib/x86_64-linux-gnu,e2fs}

# busybox and its applets as symlinks
cp /bin/busybox "$root/bin/busybox"
for app in $(/bin/busybox --list-full); do
    [ -e "$root/$app" ] || ln -s /bin/busybox "$root/$app"
done

# mke2fs from e2fsprogs (busybox's makes only ext2) with the libraries it links
cp /sbin/mke2fs "$root/e2fs/mke2fs"
[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$root/etc/mke2fs.conf"
for lib in $(ldd /sbin/mke2fs | awk '/=>/ { print $3 } /ld-linux/ && !/=>/ { print $1 }'); do
    case "$lib" in
        /lib64/*) cp -L "$lib" "$root/lib64/" ;;
        *) cp -L "$lib" "$root/lib/x86_64-linux-gnu/" ;;
    esac
done

cp "$BRD_KO" "$root/brd.ko"
# zram's modules, loaded in this order when the trace's swap is zram (kernel.env's ZRAM_KOS,
# written by setup.sh; an older kernel.env without it builds an initramfs without zram).
mkdir -p "$root/zram"
n=0
for ko in ${ZRAM_KOS:-}; do
    n=$((n + 1))
    cp "$ko" "$root/zram/$n-$(basename "$ko")"
done
# --swap-loop: loop.ko (unless built in) and losetup from util-linux (busybox's cannot set
# direct I/O) with the libraries it links, beside mke2fs's in /lib.
if [ "$swap_loop" = 1 ]; then
    case "${LOOP_CONFIG:-}" in
        *=m) [ -n "${LOOP_KO:-}" ] && [ -s "$LOOP_KO" ] || die "no loop.ko (rerun validation/setup.sh)"
             cp "$LOOP_KO" "$root/loop.ko" ;;
        *=y) ;;
        *) die "--swap-loop: kernel.env has no loop driver (LOOP_CONFIG='${LOOP_CONFIG:-}'; rerun validation/setup.sh)" ;;
    esac
    [ -x /usr/sbin/losetup ] || [ -x /sbin/losetup ] || die "--swap-loop needs util-linux's losetup on the host"
    losetup_bin="$(command -v /usr/sbin/losetup || command -v /sbin/losetup)"
    cp "$losetup_bin" "$root/e2fs/losetup"
    for lib in $(ldd "$losetup_bin" | awk '/=>/ { print $3 } /ld-linux/ && !/=>/ { print $1 }'); do
        case "$lib" in
            /lib64/*) cp -L "$lib" "$root/lib64/" ;;
            *) cp -L "$lib" "$root/lib/x86_64-linux-gnu/" ;;
        esac
    done
fi
if [ -n "$swap_nullb" ]; then
    [ "$swap_loop" = 0 ] || die "--swap-loop and --swap-nullb exclude each other"
    [ -n "${NULLB_KOS:-}" ] || die "--swap-nullb: kernel.env has no NULLB_KOS (rerun validation/setup.sh)"
    mkdir -p "$root/nullb"
    n=0
    for ko in $NULLB_KOS; do
        n=$((n + 1))
        cp "$ko" "$root/nullb/$n-$(basename "$ko")"
    done
fi
cp "$replayer" "$root/mglru-replay"
chmod 755 "$root/mglru-replay"

# the run's settings, read by /init
{
    printf 'MODE=%q\n' "$mode"
    printf 'REPLAY_ARGS=%q\n' "${replay_args[*]:-}"
    # only with --swap-loop / --swap-nullb: without them run.conf is as before
    if [ "$swap_loop" = 1 ]; then printf 'SWAP_LOOP=1\n'; fi
    if [ -n "$swap_nullb" ]; then printf 'SWAP_NULLB=%q\n' "$swap_nullb"; fi
    if [ -n "$trace" ]; then
        cp "$trace" "$root/trace"
        if [ -n "$setup_env" ]; then cat "$setup_env"; else python3 "$here/harness.py" trace-setup "$trace"; fi
        printf 'HAVE_TRACE=1\n'
    else
        printf 'HAVE_TRACE=0\nRD_SIZE_KB=65536\nSWAP_KB=0\nREADAHEAD_KB=128\nFILES=0\n'
    fi
} > "$root/etc/run.conf"

install -m 755 "$here/init.sh" "$root/init"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --owner=0:0 --quiet) \
    | gzip -6 > "$out.tmp"
mv "$out.tmp" "$out"
printf 'build-initramfs: %s (%s bytes)\n' "$out" "$(stat -c %s "$out")" >&2
