#!/usr/bin/env bash
# The container image's root filesystem below kaas's own layers, built from this machine alone (no base
# image can be pulled here): a JRE cut from the build's JDK with jlink, the shared libraries it links
# against (copied from this machine's Debian), /etc/passwd and /etc/group with the kaas user, /tmp and
# the data volume /var/lib/kaas. Jib then builds FROM scratch with this as an extra directory.
#
# usage: runtime-root.sh JAVA_HOME OUTPUT_DIR
set -euo pipefail

java_home=$1
out=$2
# What kaas's jars use (jdeps --print-module-deps on them), plus the EC provider for any TLS a client library
# may touch.
modules=java.base,java.compiler,java.desktop,java.naming,java.security.jgss,java.security.sasl,java.sql,jdk.httpserver,jdk.jfr,jdk.management,jdk.sctp,jdk.unsupported,jdk.crypto.ec

rm -rf "$out"
mkdir -p "$out/opt" "$out/etc" "$out/tmp" "$out/var/lib/kaas"
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
    --compress=2 --output "$out/opt/java"

# Every library the JRE's executables and libraries load, as ldd resolves them here (but for java.desktop's
# AWT, sound and imaging libraries: kaas only uses java.beans from that module, and a headless server never
# loads them); and what glibc loads at run time without ldd seeing it (libgcc_s for thread exit and unwinding).
copy_lib() {
    local lib=$1
    [[ -e "$lib" ]] || return 0
    mkdir -p "$out$(dirname "$lib")"
    cp -L "$lib" "$out$lib"
}
while read -r lib; do
    copy_lib "$lib"
done < <(find "$out/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) \
        ! \( -name 'libawt*' -o -name 'libjawt*' -o -name 'libsplashscreen*' -o -name 'libjsound*' \
        -o -name 'libfontmanager*' -o -name 'liblcms*' -o -name 'libjavajpeg*' -o -name 'libmlib_image*' \) -print0 \
    | xargs -0 ldd 2>/dev/null \
    | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\/.*ld-linux/ {print $1}' \
    | grep -v "^$out" | sort -u)
# libutil: jansi's native library (terminal detection) links it.
for extra in /lib/x86_64-linux-gnu/libgcc_s.so.1 /lib/x86_64-linux-gnu/libutil.so.1; do
    copy_lib "$extra"
done

# The kaas user (uid/gid 10001) the container runs as; root stays for nothing but file ownership.
printf 'root:x:0:0:root:/root:/sbin/nologin\nkaas:x:10001:10001:kaas:/var/lib/kaas:/sbin/nologin\n' > "$out/etc/passwd"
printf 'root:x:0:\nkaas:x:10001:\n' > "$out/etc/group"
# Name lookups from files first: "localhost" must resolve without a DNS server (Netty asks at start).
# Container runtimes mount their own /etc/hosts over this one.
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' > "$out/etc/hosts"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$out/etc/nsswitch.conf"
echo "image root: $(du -sh "$out" | cut -f1) in $out"
