#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs what the real-kernel harness needs and unpacks a pinned Debian kernel into
# validation/work/. Idempotent: a second run only checks.
#
#   validation/setup.sh [--kernel 6.12|6.1|7.2]      (as root: it calls apt-get)
#
#   6.12 (default)  linux-image-6.12.117+deb12-cloud-amd64 6.12.117-1~deb12u1 (bookworm), MGLRU on
#                   at boot; writes validation/work/kernel.env (as it always has)
#   6.1             linux-image-6.1.0-57-cloud-amd64 6.1.192-3 (bookworm-security, the machine's
#                   apt sources), MGLRU built but off at boot; writes validation/work/kernel-6.1.env
#   7.2             linux-{binary,modules,base}-7.2.13+deb14-cloud-amd64 7.2.13-1 (Debian sid,
#                   through a private apt sources list and lists under validation/work/apt-sid/;
#                   the machine's sources are not touched); writes validation/work/kernel-7.2.env
#
# The kernel.env file has KERNEL_RELEASE, KERNEL_PACKAGE, KERNEL_PACKAGE_VERSION, KERNEL_PINNED,
# VMLINUZ, BRD_KO, ZRAM_KOS, LOOP_KO, LOOP_CONFIG, NULLB_KOS, EXT4_BUILTIN, LRU_GEN_CONFIG (the
# 6.1 and 7.2 files also KERNEL_SERIES, KERNEL_CONFIG, KERNEL_DEBS and ZRAM_DEF_COMP).
# Packages are downloaded with `apt-get download` and unpacked with `dpkg -x`, never installed.
set -euo pipefail

series=6.12
while [ $# -gt 0 ]; do
    case "$1" in
        --kernel) series="${2:-}"; shift 2 || { echo "setup: error: --kernel needs 6.1, 6.12 or 7.2" >&2; exit 1; } ;;
        -h|--help) sed -n '3,20p' "$0"; exit 0 ;;
        *) echo "setup: error: unknown argument '$1' (usage: setup.sh [--kernel 6.1|6.12|7.2])" >&2; exit 1 ;;
    esac
done
case "$series" in
    6.12) PINNED_RELEASE="6.12.117+deb12-cloud-amd64"
          METAPACKAGE="linux-image-6.12-cloud-amd64" ;;
    6.1)  PINNED_RELEASE="6.1.0-57-cloud-amd64"
          PINNED_VERSION="6.1.192-3" ;;
    7.2)  PINNED_RELEASE="7.2.13+deb14-cloud-amd64"
          PINNED_VERSION="7.2.13-1" ;;
    *) echo "setup: error: --kernel takes 6.1, 6.12 or 7.2, not '$series'" >&2; exit 1 ;;
esac

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
if [ "$series" = 6.12 ]; then
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

moddir="$kdir/lib/modules/$release"
env_file="$work/kernel.env"
else
    # 6.1 and 7.2: the exact pinned version of each package, or (if the archive has dropped it)
    # the version apt offers now, with a loud warning; KERNEL_PINNED records which.
    if [ "$series" = 7.2 ]; then
        # Debian sid through a private sources list: its lists, cache and downloads live under
        # work/apt-sid/; the machine's apt configuration is not touched.
        sid="$work/apt-sid"
        mkdir -p "$sid/lists/partial" "$sid/cache/archives/partial"
        printf '%s\n' "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main" \
            > "$sid/sources.list"
        [ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || die "no /usr/share/keyrings/debian-archive-keyring.gpg (package debian-archive-keyring)"
        apt_opts=(-o "Dir::Etc::sourcelist=$sid/sources.list" -o Dir::Etc::sourceparts=/dev/null
                  -o "Dir::State::Lists=$sid/lists" -o "Dir::Cache=$sid/cache")
    else
        apt_opts=()
    fi
    private_updated=0
    apt_private_update() {
        if [ "$series" = 7.2 ]; then
            [ "$private_updated" = 0 ] || return 0
            log "apt-get update (private sid list $sid/sources.list)"
            apt-get "${apt_opts[@]}" update -qq || die "apt-get update of the private sid list failed"
            private_updated=1
        else
            apt_update_once
        fi
    }
    # The packages that make up the kernel: 6.1 has one image package; sid splits 7.2 into an
    # empty meta package that depends on linux-binary (the image), linux-modules and linux-base
    # (the config).
    meta_pkg="linux-image-$PINNED_RELEASE"
    if [ "$series" = 7.2 ]; then
        parts=("linux-binary-$PINNED_RELEASE" "linux-modules-$PINNED_RELEASE" "linux-base-$PINNED_RELEASE")
    else
        parts=("$meta_pkg")
    fi
    mkdir -p "$work/debs"
    pinned=yes
    debs=()
    for part in "${parts[@]}"; do
        shopt -s nullglob
        have=("$work"/debs/"${part}_${PINNED_VERSION/:/%3a}"_*.deb)
        [ "${#have[@]}" -gt 0 ] || have=("$work"/debs/"${part}"_*.deb)
        shopt -u nullglob
        if [ "${#have[@]}" -eq 0 ]; then
            if ! apt-cache "${apt_opts[@]}" show "$part=$PINNED_VERSION" >/dev/null 2>&1; then apt_private_update; fi
            if apt-cache "${apt_opts[@]}" show "$part=$PINNED_VERSION" >/dev/null 2>&1; then
                want="$part=$PINNED_VERSION"
            elif apt-cache "${apt_opts[@]}" show "$part" >/dev/null 2>&1; then
                want="$part"
                cat >&2 <<WARN

################################################################################################
## WARNING: $part $PINNED_VERSION is no longer in the archive.
## Falling back to the version apt offers now. Results from it are NOT directly comparable with
## ones taken on $PINNED_VERSION; every result records the kernel actually used.
################################################################################################

WARN
            else
                die "$part is not in the archive (any version)${apt_opts:+ of the private sid list}"
            fi
            (cd "$work/debs" && apt-get "${apt_opts[@]}" download -q -o APT::Sandbox::User=root "$want") \
                || die "apt-get download $want failed"
            shopt -s nullglob
            have=("$work"/debs/"${part}"_*.deb)
            shopt -u nullglob
            [ "${#have[@]}" -gt 0 ] || die "apt-get download $want produced no .deb"
        fi
        deb="${have[0]}"
        [ "$(dpkg-deb -f "$deb" Version)" = "$PINNED_VERSION" ] || pinned=no
        debs+=("$deb")
    done
    pkg_version="$(dpkg-deb -f "${debs[0]}" Version)"
    release="$PINNED_RELEASE"
    kdir="$work/kernel-$release"
    if [ ! -e "$kdir/.extracted" ]; then
        rm -rf "$kdir"
        mkdir -p "$kdir"
        for deb in "${debs[@]}"; do
            log "extracting $(basename "$deb")"
            dpkg -x "$deb" "$kdir"
        done
        touch "$kdir/.extracted"
    fi
    if [ "$series" = 7.2 ]; then
        moddir="$kdir/usr/lib/modules/$release"
        vmlinuz="$moddir/vmlinuz"
        config="$moddir/config"
    else
        moddir="$kdir/lib/modules/$release"
        vmlinuz="$kdir/boot/vmlinuz-$release"
        config="$kdir/boot/config-$release"
    fi
    [ -f "$vmlinuz" ] || die "no $vmlinuz in the package(s) ${parts[*]}"
    [ -f "$config" ] || die "no $config in the package(s) ${parts[*]}"
    [ -d "$moddir/kernel" ] || die "no modules under $moddir/kernel"
    env_file="$work/kernel-$series.env"
fi

brd_xz="$(find "$moddir" -name 'brd.ko*' | head -n1)"
[ -n "$brd_xz" ] || die "brd.ko not found in the package"
brd="$work/brd-$release.ko"
unpack_ko "$brd_xz" "$brd"

cfg() { local v; v="$(sed -n "s/^$1=//p" "$config")"; printf '%s' "${v:-n}"; }

# zram and what it needs (zsmalloc, the lz4 compressors its backends link), in load order, for
# traces whose swap is `zram=y`.
zram_dir="$work/zram-$release"
zram_kos=""
mkdir -p "$zram_dir"
if [ "$series" = 6.12 ]; then
for m in lib/lz4/lz4_compress lib/lz4/lz4hc_compress mm/zsmalloc drivers/block/zram/zram; do
    src="$(find "$moddir/kernel/$(dirname "$m")" -maxdepth 1 -name "$(basename "$m").ko*" | head -n1)"
    [ -n "$src" ] || die "$m.ko not found in the package"
    dst="$zram_dir/$(basename "$m").ko"
    unpack_ko "$src" "$dst"
    zram_kos="$zram_kos $dst"
done
else
    # 6.1 and 7.2 differ in what is a module (7.2 builds zsmalloc and lz4 in; 6.1 reaches its
    # default compressor, lzo-rle, through the crypto API, a module it would request at run time,
    # which the guest cannot: it has no modprobe tree). So the load order is worked out from each
    # module's `depends=` (its .modinfo section), skipping what modules.builtin lists, then the
    # default compressor's crypto module (CONFIG_ZRAM_DEF_COMP) is put before zram.
    declare -A ko_of=()   # module name (- as _) -> its file
    while IFS= read -r x; do
        b="${x##*/}"; b="${b%%.ko*}"; ko_of["${b//-/_}"]="$x"
    done < <(find "$moddir/kernel" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst')
    mod_norm() { local b; b="${1##*/}"; b="${b%%.ko*}"; printf '%s' "${b//-/_}"; }
    mod_file() {   # the file of module $1 ("" if built in); dies if neither
        local want; want="${1//-/_}"
        if [ -n "${ko_of[$want]:-}" ]; then printf '%s' "${ko_of[$want]}"; return 0; fi
        if [ -f "$moddir/modules.builtin" ] && sed 's|.*/||; s|\.ko$||; s|-|_|g' "$moddir/modules.builtin" | grep -qx "$want"; then
            return 0
        fi
        die "module $1 is neither a file under $moddir/kernel nor in modules.builtin"
    }
    mod_deps() {   # the `depends=` list of module file $1, one a line
        case "$1" in
            *.xz) xz -dc "$1" ;; *.zst) zstd -qdc "$1" ;; *) cat "$1" ;;
        esac | tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' '\n' | sed '/^$/d'
    }
    chain=()
    mod_chain() {  # appends module $1's files, dependencies first, to chain
        local f d c
        f="$(mod_file "$1")"
        [ -n "$f" ] || return 0
        for c in "${chain[@]+"${chain[@]}"}"; do [ "$c" = "$f" ] && return 0; done
        for d in $(mod_deps "$f"); do mod_chain "$d"; done
        chain+=("$f")
    }
    zram_def_comp="$(cfg CONFIG_ZRAM_DEF_COMP | tr -d '"')"
    comp_ko="${ko_of[${zram_def_comp//-/_}]:-}"
    case "$comp_ko" in */kernel/crypto/*) mod_chain "$zram_def_comp" ;; esac
    mod_chain zram
    for src in "${chain[@]}"; do
        dst="$zram_dir/$(mod_norm "$src").ko"
        unpack_ko "$src" "$dst"
        zram_kos="$zram_kos $dst"
    done
fi

# null_blk and configfs, which it needs, in load order, for `run-kernel.sh --swap-nullb PARAMS`:
# a memory-backed asynchronous swap device whose completion time and bandwidth are set by its
# module parameters. Left out (NULLB_KOS empty) if the kernel has no null_blk module.
nullb_dir="$work/nullb-$release"
nullb_kos=""
if [ "$(cfg CONFIG_BLK_DEV_NULL_BLK)" = m ]; then
    mkdir -p "$nullb_dir"
    for m in fs/configfs/configfs drivers/block/null_blk/null_blk; do
        src="$(find "$moddir/kernel/$(dirname "$m")" -maxdepth 1 -name "$(basename "$m").ko*" | head -n1)"
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
    loop_src="$(find "$moddir/kernel/drivers/block" -maxdepth 1 -name 'loop.ko*' | head -n1)"
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

if [ "$series" = 6.12 ]; then
    if [ "$release" != "$PINNED_RELEASE" ]; then pinned=no; else pinned=yes; fi
fi
cat > "$env_file.tmp" <<ENV
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
if [ "$series" != 6.12 ]; then
    # (kernel.env of 6.12 keeps exactly its old keys for existing callers)
    deb_names=""
    for deb in "${debs[@]}"; do deb_names="$deb_names $(basename "$deb")"; done
    cat >> "$env_file.tmp" <<ENV
KERNEL_SERIES='$series'
KERNEL_CONFIG='$config'
KERNEL_DEBS='${deb_names# }'
ZRAM_DEF_COMP='$(cfg CONFIG_ZRAM_DEF_COMP | tr -d '"')'
ENV
fi
mv "$env_file.tmp" "$env_file"

log "kernel linux-image-$release $pkg_version (pinned: $pinned)"
log "vmlinuz $vmlinuz"
log "brd.ko  $brd"
log "loop: CONFIG_BLK_DEV_LOOP=$loop_cfg${loop_ko:+ ($loop_ko)}"
log "ext4 built in: $ext4_builtin; $lru_gen"
log "zram modules:${zram_kos:- (none)}"
log "wrote $env_file"
log "$(qemu-system-x86_64 --version | head -n1)"
