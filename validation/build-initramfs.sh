#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the guest's initramfs: a gzipped newc cpio with busybox-static, e2fsprogs' mke2fs (with
# its shared libraries, for a real ext4), brd.ko, the replayer, /init and the trace.
#
#   validation/build-initramfs.sh REPLAYER OUT.cpio.gz [--trace TRACE] [--mode MODE]
#                                 [--replay-arg ARG]... [--setup SETUP.env]
#
# REPLAYER is a static binary (`mglru-replay`), run as `/mglru-replay /trace --data-dir
# /mnt/data [ARG...]`. MODE is what /init writes to /sys/kernel/mm/lru_gen/enabled: y, n or a
# mask such as 0x0001 (default y). Without --trace the image has no /trace and /init does not
# run the replayer (useful only to time a boot). --setup takes the output of `harness.py
# trace-setup TRACE` when the caller has it already. Needs validation/setup.sh first.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
die() { printf 'build-initramfs: error: %s\n' "$*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: build-initramfs.sh REPLAYER OUT.cpio.gz [--trace TRACE] [--mode y|n|0xMASK] [--replay-arg ARG]..."
replayer="$1"; out="$2"; shift 2
trace=""; mode="y"; replay_args=(); setup_env=""
while [ $# -gt 0 ]; do
    case "$1" in
        --trace) trace="$2"; shift 2 ;;
        --mode) mode="$2"; shift 2 ;;
        --replay-arg) replay_args+=("$2"); shift 2 ;;
        --setup) setup_env="$2"; shift 2 ;;
        *) die "unknown option $1" ;;
    esac
done
case "$mode" in
    y|n|[0-7]|0x[0-7]|0x000[0-7]|0x00[0-7]|0x0[0-7]) ;;
    *) die "mode must be y, n or a mask 0x0..0x7 (e.g. 0x0001), not '$mode'" ;;
esac
[ -f "$here/work/kernel.env" ] || die "run validation/setup.sh first"
# shellcheck disable=SC1091
. "$here/work/kernel.env"
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
cp "$replayer" "$root/mglru-replay"
chmod 755 "$root/mglru-replay"

# the run's settings, read by /init
{
    printf 'MODE=%q\n' "$mode"
    printf 'REPLAY_ARGS=%q\n' "${replay_args[*]:-}"
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
