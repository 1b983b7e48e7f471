#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Replays one trace on a real Debian kernel (6.12 by default; 6.1 or 7.2 with --kernel) under QEMU
# and writes the counters as JSON in the shape of `mglru run --json`.
#
#   validation/run-kernel.sh TRACE --mode mglru|classic|y|n|0x0001|0x0003|... --out RESULT.json
#                            [--timeout SECONDS] [--replayer PATH] [--memory SIZE]
#                            [--replay-arg ARG]... [--icount SHIFT] [--swap-loop | --swap-nullb PARAMS]
#                            [--kernel 6.12|6.1|7.2] [--attempts N] [--keep] [--verbose]
#
#   --kernel     which of setup.sh's kernels to boot (default 6.12: work/kernel.env; 6.1 and 7.2:
#                work/kernel-6.1.env, work/kernel-7.2.env, from `setup.sh --kernel X`)
#   --attempts   boot at most N times (default 3) while a run ends early: an oops or panic on the
#                console, no result line, or a result line that is not complete JSON. Every try is
#                counted in the result's meta.attempts (failed ones in meta.failed_attempts). A run
#                that times out or whose replayer fails with a clean console is not retried.
#   --mode       mglru = y (0x0007), classic = n (0x0000), or a mask written as is
#   --timeout    kill QEMU after this many seconds of wall time (default 600) and fail (unless the
#                replayer's complete result and replay-end were out already: meta.killed_after_result)
#   --replayer   the static replayer (default target/x86_64-unknown-linux-gnu/release/mglru-replay)
#   --memory     guest RAM (default: the trace's `memory`, else 1G), e.g. 768M
#   --icount     run TCG with QEMU's instruction counter (-icount shift=SHIFT,sleep=off): the guest's
#                clock advances 2^SHIFT ns per guest instruction whatever the host's load, so guest
#                times measure instructions (validation/calibrate_steps.py); single-threaded TCG
#   --swap-loop  put the trace's swap (not zram=y) on /dev/loop0 over /dev/ram1 with direct I/O
#                instead of on /dev/ram1 itself: a block device that is not SWP_SYNCHRONOUS_IO, whose
#                writes complete in loop's worker (the model's `swap SIZE sync=n ram=y`). Off by
#                default: without it every trace swaps on brd as before.
#   --swap-nullb PARAMS  the same on a memory-backed null_blk /dev/nullb0 loaded with the null_blk
#                parameters PARAMS, comma-separated, e.g. irqmode=2,completion_nsec=1000000,mbps=20
#                (each request completes from a timer 1 ms after submission, at most 20 MiB/s): an
#                asynchronous device of chosen speed
#   --keep       keep the run's folder (initramfs, console.log, result.log) under validation/work/runs
#   --verbose    echo the serial console while it runs
#   (environment MGLRU_KERNEL_ARGS: extra kernel command-line arguments, for experiments)
#
# Exit status: 0 success; 1 usage or setup error; 3 timeout; 4 no result line; 5 replayer failed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
die() { printf 'run-kernel: error: %s\n' "$*" >&2; exit 1; }
usage="usage: run-kernel.sh TRACE --mode mglru|classic|0xMASK --out RESULT.json [--timeout S] [--replayer PATH] [--memory SIZE] [--replay-arg ARG]... [--icount SHIFT] [--swap-loop | --swap-nullb PARAMS] [--kernel 6.12|6.1|7.2] [--attempts N] [--keep] [--verbose]"

trace=""; mode=""; out=""; timeout=600; memory=""; keep=0; verbose=0; replay_args=(); icount=""
swap_loop=0; swap_nullb=""; kernel_series=6.12; attempts=3

replayer="$repo/target/x86_64-unknown-linux-gnu/release/mglru-replay"
while [ $# -gt 0 ]; do
    case "$1" in
        --mode) mode="${2:?}"; shift 2 ;;
        --out) out="${2:?}"; shift 2 ;;
        --timeout) timeout="${2:?}"; shift 2 ;;
        --replayer) replayer="${2:?}"; shift 2 ;;
        --memory) memory="${2:?}"; shift 2 ;;
        --replay-arg) replay_args+=(--replay-arg "${2:?}"); shift 2 ;;
        --icount) icount="${2:?}"; shift 2
                  [[ "$icount" =~ ^[0-9]$|^10$ ]] || die "--icount takes a shift from 0 to 10 (ns per instruction = 2^SHIFT), not '$icount'" ;;
        --swap-loop) swap_loop=1; shift ;;
        --swap-nullb) swap_nullb="${2:?}"; shift 2 ;;
        --kernel) kernel_series="${2:?}"; shift 2 ;;
        --attempts) attempts="${2:?}"; shift 2
                    [[ "$attempts" =~ ^[1-9]$ ]] || die "--attempts takes 1 to 9, not '$attempts'" ;;
        --keep) keep=1; shift ;;
        --verbose) verbose=1; shift ;;
        -h|--help) sed -n '3,35p' "$0"; exit 0 ;;
        -*) die "unknown option $1; $usage" ;;
        *) [ -z "$trace" ] || die "one TRACE only; $usage"; trace="$1"; shift ;;
    esac
done
[ -n "$trace" ] && [ -n "$mode" ] && [ -n "$out" ] || die "$usage"
[ -f "$trace" ] || die "trace '$trace' not found"
case "$timeout" in ''|*[!0-9]*) die "--timeout takes whole seconds" ;; esac
case "$mode" in
    mglru) kmode=y ;;
    classic) kmode=n ;;
    *) kmode="$mode" ;;
esac
case "$kernel_series" in
    6.12) kernel_env="$here/work/kernel.env" ;;
    6.1|7.2) kernel_env="$here/work/kernel-$kernel_series.env" ;;
    *) die "--kernel takes 6.1, 6.12 or 7.2, not '$kernel_series'" ;;
esac
[ -f "$kernel_env" ] || die "no $kernel_env: run validation/setup.sh$([ "$kernel_series" = 6.12 ] || echo " --kernel $kernel_series") first"
# shellcheck disable=SC1090
. "$kernel_env"
[ -x "$replayer" ] || die "no replayer at '$replayer': build it with
  RUSTFLAGS=\"-C target-feature=+crt-static\" cargo build --release -p mglru-replay --target x86_64-unknown-linux-gnu"

run_dir="$here/work/runs/$(date +%Y%m%d-%H%M%S)-$$"
mkdir -p "$run_dir"
cleanup() { if [ "$keep" = 0 ] && [ "${failed:-1}" = 0 ]; then rm -rf "$run_dir"; fi; }
trap cleanup EXIT

[ "$swap_loop" = 0 ] || [ -z "$swap_nullb" ] || die "--swap-loop and --swap-nullb exclude each other"
loop_flag=(); setup_flag=(); swap_meta=()
if [ "$swap_loop" = 1 ]; then
    loop_flag=(--swap-loop); setup_flag=(--swap-loop); swap_meta=(--meta swap_loop=1)
elif [ -n "$swap_nullb" ]; then
    loop_flag=(--swap-nullb "$swap_nullb"); setup_flag=(--swap-nullb); swap_meta=(--meta "swap_nullb=$swap_nullb")
fi
python3 "$here/harness.py" trace-setup "$trace" ${setup_flag[@]+"${setup_flag[@]}"} > "$run_dir/setup.env" || die "cannot read the trace's setup"
# shellcheck disable=SC1091
. "$run_dir/setup.env"
"$here/build-initramfs.sh" "$replayer" "$run_dir/initrd.cpio.gz" --trace "$trace" --mode "$kmode" \
    --setup "$run_dir/setup.env" --kernel-env "$kernel_env" ${loop_flag[@]+"${loop_flag[@]}"} ${replay_args[@]+"${replay_args[@]}"} 2>"$run_dir/build.log" \
    || { cat "$run_dir/build.log" >&2; die "build-initramfs failed"; }
if [ -n "$TRACE_WARNINGS" ]; then printf 'run-kernel: note: %s\n' "$TRACE_WARNINGS" >&2; fi
if [ -n "$memory" ]; then
    mem_mib="$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import harness; print((harness.parse_size(sys.argv[2], "--memory") + (1 << 20) - 1) >> 20)' "$here" "$memory")"
else
    mem_mib="$MEMORY_MIB"
fi

# KVM only on a CPU with hardware virtualisation and a real kvm module (not kvm_pvm)
accel="tcg,thread=multi"; cpu="max"; accel_name=tcg
if grep -qwE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then
    accel="kvm"; cpu="host"; accel_name=kvm
fi
icount_args=()
if [ -n "$icount" ]; then
    [ "$accel_name" = tcg ] || die "--icount needs TCG (this host would use $accel_name)"
    accel="tcg,thread=single"; accel_name="tcg-icount$icount"
    icount_args=(-icount "shift=$icount,sleep=off")
fi
qemu_version="$(qemu-system-x86_64 --version | head -n1)"

qemu=(qemu-system-x86_64 -accel "$accel" "${icount_args[@]}" -cpu "$cpu" -m "$mem_mib" -smp 2
      -nographic -no-reboot -monitor none -nic none
      -serial stdio -serial "file:$run_dir/result.log"
      -kernel "$VMLINUZ" -initrd "$run_dir/initrd.cpio.gz"
      -append "console=ttyS0 quiet panic=-1 transparent_hugepage=never${MGLRU_KERNEL_ARGS:+ $MGLRU_KERNEL_ARGS}")

printf 'run-kernel: %s, kernel %s, mode %s, %s MiB, %s; log %s\n' "$(basename "$trace")" "$KERNEL_RELEASE" "$kmode" "$mem_mib" "$accel_name" "$run_dir/console.log" >&2
set +e
HARNESS_VERBOSE="$verbose" python3 "$here/harness.py" boot --out "$out" --log-dir "$run_dir" --timeout "$timeout" --attempts "$attempts" \
    --meta "mode=$kmode" --meta "mode_arg=$mode" \
    --meta "kernel_release=$KERNEL_RELEASE" --meta "kernel_package=$KERNEL_PACKAGE" \
    --meta "kernel_package_version=$KERNEL_PACKAGE_VERSION" --meta "kernel_pinned=$KERNEL_PINNED" \
    --meta "kernel_series=$kernel_series" \
    --meta "qemu=$qemu_version" --meta "accel=$accel_name" --meta "qemu_memory_mib=$mem_mib" \
    --meta "trace=$(basename "$trace")" --meta "trace_memory_bytes=$MEMORY_BYTES" \
    --meta "trace_swap_bytes=$SWAP_BYTES" --meta "trace_swap_sync=$SWAP_SYNC" ${swap_meta[@]+"${swap_meta[@]}"} \
    -- "${qemu[@]}"
rc=$?
set -e
if [ "$rc" -eq 0 ]; then
    failed=0
    printf 'run-kernel: wrote %s\n' "$out" >&2
else
    failed=1
    printf 'run-kernel: run folder kept: %s\n' "$run_dir" >&2
fi
exit "$rc"
