#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs what the real-kernel harness needs and unpacks the pinned Debian 6.12 kernel into
# validation/work/. Idempotent: a second run only checks.
#
#   validation/setup.sh            (as root: it calls apt-get)
#
# Writes validation/work/kernel.env with KERNEL_RELEASE, KERNEL_PACKAGE, KERNEL_PACKAGE_VERSION,
# VMLINUZ, BRD_KO, ZRAM_KOS, LOOP_KO, LOOP_CONFIG, NULLB_KOS, EXT4_BUILTIN, LRU_GEN_CONFIG.
set -euo pipefail

PINNED_RELEASE="6.12.117+deb12-cloud-amd64"
METAPACKAGE="linux-image-6.12-cloud-amd64"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$here/work"
mkdir -p "$work"

log() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# unpack_ko SRC DST: a module from the package as a plain .ko (xz, zstd or
# uncompressed), unless DST is already there.
unpack_ko() {
    [ -s "$2" ] && return 0
    case "$1" in
        *.xz) xz -dc "$1" > "$2.tmp" ;;
        *.zst) zstd -qdc "$1" > "$2.tmp" ;;
        *.ko) cp "$1" "$2.tmp" ;;
        *) die "unknown module compression: $1" ;;
    esac
    mv "$2.tmp" "$2"
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# --- host packages -------------------------------------------------------------------------
need_pkgs=()
dpkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
for p in qemu-system-x86 busybox-static xz-utils cpio zstd e2fsprogs gzip; do
    dpkg_installed "$p" || need_pkgs+=("$p")
done
apt_updated=0
apt_update_once() {
    if [ "$apt_updated" -eq 0 ]; then
        log "apt-get update"
        as_root apt-get update -qq
        apt_updated=1
    fi
}
if [ "${#need_pkgs[@]}" -gt 0 ]; then
    apt_update_once
    log "installing ${need_pkgs[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}"
fi
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing after install"
[ -x /bin/busybox ] || die "/bin/busybox (busybox-static) missing"
if file_out="$(LC_ALL=C ldd /bin/busybox 2>&1)"; then
    die "/bin/busybox is dynamically linked; install busybox-static (it replaces busybox)"
fi

# --- the kernel ----------------------------------------------------------------------------
release="$PINNED_RELEASE"
pkg="linux-image-$release"
deb=""
shopt -s nullglob
existing=("$work"/debs/"$pkg"_*.deb)
shopt -u nullglob
if [ "${#existing[@]}" -gt 0 ]; then
    deb="${existing[0]}"
else
    mkdir -p "$work/debs"
    # apt-cache needs fresh lists to know the package.
    if ! apt-cache show "$pkg" >/dev/null 2>&1; then apt_update_once; fi
    if apt-cache show "$pkg" >/dev/null 2>&1; then
        (cd "$work/debs" && apt-get download -q -o APT::Sandbox::User=root "$pkg")
    else
        apt_update_once
        dep="$(apt-cache depends "$METAPACKAGE" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-6\.12[^ ]*\)$/\1/p' | head -n1)"
        [ -n "$dep" ] || die "neither $pkg nor the metapackage $METAPACKAGE can be resolved"
        release="${dep#linux-image-}"
        pkg="$dep"
        cat >&2 <<WARN

################################################################################################
## WARNING: the pinned kernel linux-image-$PINNED_RELEASE is no longer in the archive.
## Falling back to $pkg (what $METAPACKAGE depends on today).
## Results from this kernel are NOT directly comparable with ones taken on $PINNED_RELEASE;
## every result records the kernel actually used.
################################################################################################

WARN
        existing=("$work"/debs/"$pkg"_*.deb)
        if [ ! -e "${existing[0]:-}" ]; then
            (cd "$work/debs" && apt-get download -q -o APT::Sandbox::User=root "$pkg")
        fi
    fi
    shopt -s nullglob
    existing=("$work"/debs/"$pkg"_*.deb)
    shopt -u nullglob
    [ "${#existing[@]}" -gt 0 ] || die "apt-get download $pkg produced no .deb"
    deb="${existing[0]}"
fi
pkg_version="$(dpkg-deb -f "$deb" Version)"
release="$(dpkg-deb -f "$deb" Package)"; release="${release#linux-image-}"

kdir="$work/kernel-$release"
if [ ! -e "$kdir/.extracted" ]; then
    log "extracting $(basename "$deb")"
    rm -rf "$kdir"
    mkdir -p "$kdir"
    dpkg -x "$deb" "$kdir"
    touch "$kdir/.extracted"
fi
vmlinuz="$kdir/boot/vmlinuz-$release"
config="$kdir/boot/config-$release"
[ -f "$vmlinuz" ] || die "no $vmlinuz in the package"
[ -f "$config" ] || die "no $config in the package"

brd_xz="$(find "$kdir/lib/modules/$release" -name 'brd.ko*' | head -n1)"
[ -n "$brd_xz" ] || die "brd.ko not found in the package"
brd="$work/brd-$release.ko"
unpack_ko "$brd_xz" "$brd"

# zram and what it needs (zsmalloc, the lz4 compressors its backends link), in load order, for
# traces whose swap is `zram=y`.
zram_dir="$work/zram-$release"
zram_kos=""
mkdir -p "$zram_dir"
for m in lib/lz4/lz4_compress lib/lz4/lz4hc_compress mm/zsmalloc drivers/block/zram/zram; do
    src="$(find "$kdir/lib/modules/$release/kernel/$(dirname "$m")" -maxdepth 1 -name "$(basename "$m").ko*" | head -n1)"
    [ -n "$src" ] || die "$m.ko not found in the package"
    dst="$zram_dir/$(basename "$m").ko"
    unpack_ko "$src" "$dst"
    zram_kos="$zram_kos $dst"
done

cfg() { local v; v="$(sed -n "s/^$1=//p" "$config")"; printf '%s' "${v:-n}"; }

# null_blk and configfs, which it needs, in load order, for `run-kernel.sh --swap-nullb PARAMS`:
# a memory-backed asynchronous swap device whose completion time and bandwidth are set by its
# module parameters. Left out (NULLB_KOS empty) if the kernel has no null_blk module.
nullb_dir="$work/nullb-$release"
nullb_kos=""
if [ "$(cfg CONFIG_BLK_DEV_NULL_BLK)" = m ]; then
    mkdir -p "$nullb_dir"
    for m in fs/configfs/configfs drivers/block/null_blk/null_blk; do
        src="$(find "$kdir/lib/modules/$release/kernel/$(dirname "$m")" -maxdepth 1 -name "$(basename "$m").ko*" | head -n1)"
        if [ -z "$src" ]; then
            [ "$m" = fs/configfs/configfs ] && [ "$(cfg CONFIG_CONFIGFS_FS)" = y ] && continue
            die "$m.ko not found in the package"
        fi
        dst="$nullb_dir/$(basename "$m").ko"
        unpack_ko "$src" "$dst"
        nullb_kos="$nullb_kos $dst"
    done
fi

# loop (drivers/block/loop), for `run-kernel.sh --swap-loop`: swap on /dev/loop0 over /dev/ram1,
# a block device that is not SWP_SYNCHRONOUS_IO. A module in Debian's cloud kernel
# (CONFIG_BLK_DEV_LOOP=m, no dependencies); built in, it needs no file.
loop_cfg="$(cfg CONFIG_BLK_DEV_LOOP)"
loop_ko=""
if [ "$loop_cfg" = m ]; then
    loop_src="$(find "$kdir/lib/modules/$release/kernel/drivers/block" -maxdepth 1 -name 'loop.ko*' | head -n1)"
    [ -n "$loop_src" ] || die "CONFIG_BLK_DEV_LOOP=m but loop.ko is not in the package"
    loop_ko="$work/loop-$release.ko"
    unpack_ko "$loop_src" "$loop_ko"
elif [ "$loop_cfg" != y ]; then
    log "WARNING: CONFIG_BLK_DEV_LOOP is '$loop_cfg': run-kernel.sh --swap-loop will not work"
fi
ext4="$(cfg CONFIG_EXT4_FS)"
case "$ext4" in
    y) ext4_builtin=yes ;;
    m) ext4_builtin=no
       log "WARNING: ext4 is a module in this kernel (CONFIG_EXT4_FS=m); build-initramfs.sh would need ext4.ko and its dependencies" ;;
    *) ext4_builtin=no; log "WARNING: CONFIG_EXT4_FS is '${ext4:-unset}'" ;;
esac
brd_cfg="$(cfg CONFIG_BLK_DEV_RAM)"
lru_gen="CONFIG_LRU_GEN=$(cfg CONFIG_LRU_GEN) CONFIG_LRU_GEN_ENABLED=$(cfg CONFIG_LRU_GEN_ENABLED) CONFIG_LRU_GEN_STATS=$(cfg CONFIG_LRU_GEN_STATS) CONFIG_MEMCG=$(cfg CONFIG_MEMCG) CONFIG_BLK_DEV_RAM=$brd_cfg"

if [ "$release" != "$PINNED_RELEASE" ]; then pinned=no; else pinned=yes; fi
cat > "$work/kernel.env.tmp" <<ENV
KERNEL_RELEASE='$release'
KERNEL_PACKAGE='linux-image-$release'
KERNEL_PACKAGE_VERSION='$pkg_version'
KERNEL_PINNED='$pinned'
VMLINUZ='$vmlinuz'
BRD_KO='$brd'
ZRAM_KOS='${zram_kos# }'
LOOP_KO='$loop_ko'
LOOP_CONFIG='CONFIG_BLK_DEV_LOOP=$loop_cfg'
NULLB_KOS='${nullb_kos# }'
EXT4_BUILTIN='$ext4_builtin'
LRU_GEN_CONFIG='$lru_gen'
ENV
mv "$work/kernel.env.tmp" "$work/kernel.env"

log "kernel linux-image-$release $pkg_version (pinned: $pinned)"
log "vmlinuz $vmlinuz"
log "brd.ko  $brd"
log "loop: CONFIG_BLK_DEV_LOOP=$loop_cfg${loop_ko:+ ($loop_ko)}"
log "ext4 built in: $ext4_builtin; $lru_gen"
log "$(qemu-system-x86_64 --version | head -n1)"
