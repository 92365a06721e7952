# headingd — what the VM tests share: Debian 12's own kernel under qemu (TCG), booted from an
# initramfs of busybox and the modules a test names, the host's / shared read-only (the .deb's
# headingd runs from it, chrooted), a directory shared read-write for the guest's script and its
# results. Sourced by scripts/vm/socketcan-test and scripts/vm/iio-test; the recipe and its
# pitfalls are ../shared/vm/README.md and FACTS.md.
# SPDX-License-Identifier: Apache-2.0
#
# The caller sets: root (the repository), cache (VM_CACHE: the kernel and .debs, kept between
# runs), work (a scratch directory it removes), name (for the log).

vm_log() { echo "$name: $*" >&2; }

# vm_prepare: the host's tools, and Debian 12's kernel downloaded (not installed) and unpacked once.
# Sets $version.
vm_prepare() {
    local need=()
    command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
    dpkg -s busybox-static >/dev/null 2>&1 || need+=(busybox-static)
    if [[ ${#need[@]} -gt 0 ]]; then
        vm_log "apt-get install ${need[*]}"
        local sudo=(); [[ $(id -u) -eq 0 ]] || sudo=(sudo)
        "${sudo[@]}" apt-get update -qq
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    fi
    mkdir -p "$cache/debs"
    local package
    package=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
    if [[ -z "$package" ]]; then apt-get update -qq; package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}'); fi
    version=${package#linux-image-}
    if [[ ! -e "$cache/kernel/boot/vmlinuz-$version" ]]; then
        vm_log "downloading $package"
        (cd "$cache/debs" && rm -f "${package}"_*.deb && apt-get download -q "$package" 2>&1 | grep -v 'Download is performed unsandboxed' >&2 || true)
        rm -rf "$cache/kernel" && dpkg -x "$cache/debs/${package}"_*.deb "$cache/kernel"
    fi
}

# vm_canutils: can-utils downloaded (not installed) and unpacked once, into $cache/canutils.
vm_canutils() {
    if [[ ! -x "$cache/canutils/usr/bin/canplayer" ]]; then
        (cd "$cache/debs" && rm -f can-utils_*.deb && apt-get download -q can-utils 2>&1 | grep -v 'Download is performed unsandboxed' >&2 || true)
        rm -rf "$cache/canutils" && dpkg -x "$cache/debs/"can-utils_*.deb "$cache/canutils"
    fi
}

# vm_n2k_venv: canboat's decoder (PyPI's nmea2000) and an independent node stack (nmea2k), pinned,
# in the venv $cache/n2k-venv, installed once.
vm_n2k_venv() {
    local venv=$cache/n2k-venv
    if ! "$venv/bin/python" -c "import nmea2000" 2>/dev/null; then
        python3 -m venv "$venv"
    fi
    if ! "$venv/bin/python" -c "import nmea2000, nmea2k" 2>/dev/null; then
        "$venv/bin/pip" install --quiet --disable-pip-version-check nmea2000==2026.10.3 nmea2k==0.2.0 >&2
    fi
}

# vm_initramfs MODULE...: the initramfs at $work/initramfs.cpio.gz, with the modules and their
# dependencies (in order) and 9p; the files already in $work/initramfs (a test's tools) go in too.
# Its init mounts the shares, runs /mnt/host/guest.sh, writes guest.out and guest.rc, powers off.
vm_initramfs() {
    local modules="$cache/kernel/lib/modules/$version/kernel"
    local -A where=() seen=()
    local file module_name
    while IFS= read -r file; do module_name=${file##*/}; module_name=${module_name%.ko*}; where[${module_name//-/_}]=$file; done < <(find "$modules" -name '*.ko*')
    local order=()
    add() {
        local key=${1//-/_}
        [[ -n "${seen[$key]:-}" ]] && return 0
        seen[$key]=1
        local file=${where[$key]:-}
        if [[ -z "$file" ]]; then
            grep -q "/${1}.ko\$\|/${key}.ko\$\|/${1//_/-}.ko\$" "$cache/kernel/lib/modules/$version/modules.builtin" && return 0
            vm_log "module $1 not found"; exit 1
        fi
        local dependency
        for dependency in $(grep -ao 'depends=[^[:cntrl:]]*' "$file" | head -1 | cut -d= -f2 | tr ',' ' '); do add "$dependency"; done
        order+=("$file")
    }
    local module
    for module in "$@" 9p 9pnet_virtio virtio_pci; do add "$module"; done
    local initramfs=$work/initramfs
    mkdir -p "$initramfs"/{bin,dev,proc,sys,tmp,mnt/host,mnt/hostroot,lib/modules,lib64,lib/x86_64-linux-gnu,usr/bin}
    cp /bin/busybox "$initramfs/bin/busybox"
    for file in "${order[@]}"; do
        case "$file" in
            *.ko) cp "$file" "$initramfs/lib/modules/" ;;
            *.ko.xz) xz -dc "$file" > "$initramfs/lib/modules/$(basename "$file" .xz)" ;;
        esac
        local base; base=$(basename "$file"); echo "${base%%.ko*}.ko"
    done > "$initramfs/lib/modules/load-order"
    cp -L /lib64/ld-linux-x86-64.so.2 "$initramfs/lib64/"
    cp -L /lib/x86_64-linux-gnu/libc.so.6 "$initramfs/lib/x86_64-linux-gnu/"
    cat > "$initramfs/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/usr/bin:/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for module in $(cat /lib/modules/load-order); do insmod /lib/modules/$module || echo "GUEST: insmod $module failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 host0 /mnt/host
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro hostroot /mnt/hostroot
sh /mnt/host/guest.sh > /mnt/host/guest.out 2>&1
echo $? > /mnt/host/guest.rc
sync
poweroff -f
INIT
    chmod +x "$initramfs/init"
    (cd "$initramfs" && find . | /bin/busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$work/initramfs.cpio.gz"
}

# vm_headingd DEB SHARE: the headingd the VM runs, into SHARE: the .deb's, or $HEADINGD's.
vm_headingd() {
    if [[ -n "${HEADINGD:-}" ]]; then
        # A headingd of your own (a quicker turn while developing), or scripts/test's: the package's
        # binary before the package is made. Without its debug information, as the package holds it.
        objcopy --strip-debug "$HEADINGD" "$2/headingd"
        echo "vm: HEADINGD is set: the VM runs $HEADINGD (its debug information stripped), not the package's headingd" >&2
    else
        dpkg-deb -x "$1" "$work/deb"
        cp "$work/deb/usr/bin/headingd" "$2/headingd"
    fi
}

# vm_boot SHARE: boots the kernel with the initramfs and SHARE as host0; prints the guest's output.
vm_boot() {
    vm_log "booting Debian's $version under qemu (TCG)"
    local boot=$SECONDS status
    set +e
    timeout --foreground -k 5 "${QEMU_TIMEOUT:-180}" qemu-system-x86_64 -accel tcg -cpu max -smp 1 -m 1024 \
        -nodefaults -no-user-config -display none -no-reboot -serial "file:$work/console.log" \
        -kernel "$cache/kernel/boot/vmlinuz-$version" -initrd "$work/initramfs.cpio.gz" \
        -append "console=ttyS0 panic=-1 quiet loglevel=4" \
        -virtfs "local,path=$1,mount_tag=host0,security_model=none,id=host0" \
        -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap,id=hostroot" < /dev/null
    status=$?
    set -e
    vm_log "qemu: $((SECONDS - boot)) s (exit $status)"
    cat "$1/guest.out" 2>/dev/null || tail -30 "$work/console.log"
}
