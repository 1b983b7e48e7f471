#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the validation guest (copied in by build-initramfs.sh). Prepares a quiet machine,
# runs the replayer once, prints tagged lines on the serial console, powers off.
#
# Tagged lines, read by harness.py:
#   MGLRU-HARNESS key=value ...        settings and measurements of the guest
#   MGLRU-REPLAY-RESULT {json}         printed by the replayer; copied to ttyS1 as well
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

tag() { echo "MGLRU-HARNESS $*"; }
fail() {
    tag "error=$(echo "$*" | tr ' ' '_')"
    echo "init: FAILED: $*"
    poweroff -f
    sleep 10
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /sys/fs/cgroup /sys/kernel/debug /mnt/data
mount -t cgroup2 cgroup2 /sys/fs/cgroup || fail "mount cgroup2"
mount -t debugfs debugfs /sys/kernel/debug || fail "mount debugfs"
tag "stage=init uptime=$(cut -d' ' -f1 /proc/uptime) uname=$(uname -r)"

. /etc/run.conf

# ramdisks: ram0 holds the ext4 file system, ram1 the swap (brd gives both the same size)
insmod /brd.ko rd_nr=2 rd_size="$RD_SIZE_KB" || fail "insmod brd.ko rd_size=$RD_SIZE_KB"
tag "rd_size_kb=$RD_SIZE_KB"

# ext4 without a journal (no jbd2 thread, no journal writes), inode tables zeroed now so that no
# ext4lazyinit thread writes them during the run, few inodes, no reserved blocks, no discard.
# 4 KiB blocks, as on any ordinary ext4 (mke2fs would pick 1 KiB for a "small" filesystem under
# 512 MiB): a written page then carries one buffer_head, charged to its memcg, not four.
if /e2fs/mke2fs -q -F -t ext4 -b 4096 -O ^has_journal -E lazy_itable_init=0,nodiscard -m 0 -N 1024 \
        /dev/ram0 >/tmp/mkfs.log 2>&1; then
    tag "mkfs=ext4-nojournal-4k"
    fstype=ext4
else
    cat /tmp/mkfs.log
    echo "init: e2fsprogs mke2fs failed, falling back to busybox mke2fs (ext2 layout)"
    mke2fs -F -b 4096 -m 0 /dev/ram0 >/dev/null || fail "mke2fs /dev/ram0"
    tag "mkfs=busybox-ext2"
    fstype=ext4   # the ext4 driver mounts the ext2 layout (CONFIG_EXT4_USE_FOR_EXT2)
fi
mount -t "$fstype" -o noatime /dev/ram0 /mnt/data || fail "mount /dev/ram0"

# tmpfs for the trace's `file ... tmpfs=y` files (the replayer's --tmpfs-dir; /dev is devtmpfs
# here, with no /dev/shm). Its pages are shmem, charged to the memcg of the task that writes
# them. No huge pages (shmem_enabled stays at its default, never); the size limit is the
# trace's tmpfs files plus 16 MiB (harness.py trace-setup), so the limit never bites first.
mkdir -p /mnt/tmpfs
mount -t tmpfs -o "size=${TMPFS_KB:-16384}k,huge=never,mode=1777" tmpfs /mnt/tmpfs || fail "mount tmpfs /mnt/tmpfs"
tag "tmpfs_dir=/mnt/tmpfs tmpfs_kb=${TMPFS_KB:-16384}"

if [ "${SWAP_KB:-0}" -gt 0 ] && [ "${SWAP_ZRAM:-n}" = y ]; then
    # zram (`swap SIZE zram=y`): lz4, the kernel's default compressor, on a device of the
    # trace's size; its memory comes and goes with the stored pages.
    for ko in /zram/*.ko; do
        [ -e "$ko" ] || fail "no zram modules in the initramfs (rerun validation/setup.sh)"
        insmod "$ko" || fail "insmod $ko"
    done
    [ -e /sys/block/zram0 ] || fail "no /sys/block/zram0 after insmod zram"
    echo "$((SWAP_KB * 1024))" > /sys/block/zram0/disksize || fail "zram0 disksize $SWAP_KB KB"
    mkswap /dev/zram0 >/dev/null || fail "mkswap /dev/zram0"
    swapon /dev/zram0 || fail "swapon /dev/zram0"
    tag "swap_kb=$SWAP_KB swap_device=zram0 zram_comp=$(cat /sys/block/zram0/comp_algorithm | tr ' ' ,) swap_device_kb=$(awk '$1 == "/dev/zram0" { print $3 }' /proc/swaps)"
elif [ "${SWAP_KB:-0}" -gt 0 ] && [ "${SWAP_LOOP:-0}" = 1 ]; then
    # run-kernel.sh --swap-loop: swap on /dev/loop0 over /dev/ram1, direct I/O. loop is not
    # SWP_SYNCHRONOUS_IO: a swap write is queued to loop's worker, which completes it later
    # (end of writeback, folio_rotate_reclaimable), and a swap-in goes through the swap cache.
    if [ -e /loop.ko ]; then insmod /loop.ko || fail "insmod loop.ko"; fi
    [ -e /dev/loop0 ] || mknod /dev/loop0 b 7 0 || fail "no /dev/loop0"
    /e2fs/losetup --direct-io=on /dev/loop0 /dev/ram1 || fail "losetup --direct-io=on /dev/loop0 /dev/ram1"
    mkswap /dev/loop0 "$SWAP_KB" >/dev/null || fail "mkswap /dev/loop0 $SWAP_KB"
    swapon /dev/loop0 || fail "swapon /dev/loop0"
    tag "swap_kb=$SWAP_KB swap_device=loop0 swap_backing=ram1 loop_dio=$(cat /sys/block/loop0/loop/dio 2>/dev/null) loop_rotational=$(cat /sys/block/loop0/queue/rotational) swap_device_kb=$(awk '$1 == "/dev/loop0" { print $3 }' /proc/swaps)"
elif [ "${SWAP_KB:-0}" -gt 0 ] && [ -n "${SWAP_NULLB:-}" ]; then
    # run-kernel.sh --swap-nullb PARAMS: swap on a memory-backed null_blk (not
    # SWP_SYNCHRONOUS_IO), 4 KiB blocks, whole GiB, with the run's completion parameters.
    for ko in /nullb/*.ko; do
        [ -e "$ko" ] || fail "no null_blk modules in the initramfs (rerun validation/setup.sh)"
        case "$ko" in
            *null_blk.ko) insmod "$ko" nr_devices=1 queue_mode=2 memory_backed=1 bs=4096 \
                              gb=$(( (SWAP_KB + 1048575) / 1048576 )) $(echo "$SWAP_NULLB" | tr , ' ') \
                              || fail "insmod null_blk $SWAP_NULLB" ;;
            *) insmod "$ko" || fail "insmod $ko" ;;
        esac
    done
    [ -b /dev/nullb0 ] || fail "no /dev/nullb0 after insmod null_blk"
    mkswap /dev/nullb0 "$SWAP_KB" >/dev/null || fail "mkswap /dev/nullb0 $SWAP_KB"
    swapon /dev/nullb0 || fail "swapon /dev/nullb0"
    tag "swap_kb=$SWAP_KB swap_device=nullb0 nullb_params=$SWAP_NULLB nullb_rotational=$(cat /sys/block/nullb0/queue/rotational) swap_device_kb=$(awk '$1 == "/dev/nullb0" { print $3 }' /proc/swaps)"
elif [ "${SWAP_KB:-0}" -gt 0 ]; then
    mkswap /dev/ram1 "$SWAP_KB" >/dev/null || fail "mkswap /dev/ram1 $SWAP_KB"
    swapon /dev/ram1 || fail "swapon /dev/ram1"
    tag "swap_kb=$SWAP_KB swap_device_kb=$(awk '$1 == "/dev/ram1" { print $3 }' /proc/swaps)"
else
    tag "swap_kb=0"
fi

echo "$READAHEAD_KB" > /sys/block/ram0/queue/read_ahead_kb || fail "read_ahead_kb"
tag "read_ahead_kb=$(cat /sys/block/ram0/queue/read_ahead_kb)"
echo never > /sys/kernel/mm/transparent_hugepage/enabled
echo never > /sys/kernel/mm/transparent_hugepage/defrag
# vm.page-cluster and other sysctls are the replayer's to set (the trace's `sysctl` lines).
tag "page_cluster_boot=$(cat /proc/sys/vm/page-cluster)"

# The boot value first: 6.12 and 7.2 boot with MGLRU on (0x0007), Debian's 6.1 with it off (0x0000,
# CONFIG_LRU_GEN_ENABLED unset). Then the mode is written and checked: y must read back non-zero
# (0x0007 on x86), n as 0x0000, a mask as that mask, else the run stops here.
lru_gen_boot=$(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null) || fail "no /sys/kernel/mm/lru_gen/enabled (CONFIG_LRU_GEN off?)"
echo "$MODE" > /sys/kernel/mm/lru_gen/enabled || fail "write $MODE to lru_gen/enabled"
lru_gen_now=$(cat /sys/kernel/mm/lru_gen/enabled)
case "$MODE" in
    y) [ "$((lru_gen_now))" -ne 0 ] || fail "lru_gen/enabled reads $lru_gen_now after writing y" ;;
    n) [ "$((lru_gen_now))" -eq 0 ] || fail "lru_gen/enabled reads $lru_gen_now after writing n" ;;
    *) [ "$((lru_gen_now))" -eq "$((MODE))" ] || fail "lru_gen/enabled reads $lru_gen_now after writing $MODE" ;;
esac
tag "mode=$MODE lru_gen_enabled=$lru_gen_now lru_gen_enabled_boot=$lru_gen_boot"

# Kernel messages from here on go to the log buffer only (dumped at the end), so that none
# cuts into the result line on the console.
echo 1 > /proc/sys/kernel/printk

sync
echo 3 > /proc/sys/vm/drop_caches
tag "memtotal_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) memfree_kb=$(awk '/^MemFree:/ { print $2 }' /proc/meminfo)"

dmesg -c >/dev/null   # what the kernel says from here on is dumped at the end
if [ "$HAVE_TRACE" = 1 ]; then
    tag "stage=replay-start uptime=$(cut -d' ' -f1 /proc/uptime)"
    # stdout to a file (printed below), stderr straight to the console
    # shellcheck disable=SC2086
    /mglru-replay /trace --data-dir /mnt/data --tmpfs-dir /mnt/tmpfs $REPLAY_ARGS >/tmp/replay.out
    rc=$?
    tag "stage=replay-end replay_rc=$rc uptime=$(cut -d' ' -f1 /proc/uptime)"
    cat /tmp/replay.out
    # a second serial port carries only the replayer's output: no kernel message can cut into it
    if [ -c /dev/ttyS1 ]; then
        cat /tmp/replay.out > /dev/ttyS1
    fi
fi
tag "lru_gen_enabled_after=$(cat /sys/kernel/mm/lru_gen/enabled)"
echo "MGLRU-HARNESS-DMESG-BEGIN"
dmesg | tail -n 200
echo "MGLRU-HARNESS-DMESG-END"
tag "stage=poweroff uptime=$(cut -d' ' -f1 /proc/uptime)"
poweroff -f
sleep 10
