#!/usr/bin/env bash
# Runs the image Jib built, with no container engine (none runs here): its layers unpacked in order into
# a root directory, then its own entrypoint and environment, as its own user, chrooted there. Checks that
# `--version` answers, and that `serve` with the image's settings becomes ready on /readyz, writes its data
# under the volume as the non-root user, and stops cleanly on SIGTERM. Needs root (chroot, mount).
#
# usage: smoke.sh IMAGE_TAR VERSION
set -euo pipefail

image_tar=$(readlink -f "$1")
version=$2
work=$(mktemp -d)
root="$work/root"
server=""
cleanup() {
    if [[ -n "$server" ]]; then kill -TERM "$server" 2>/dev/null || true; fi
    umount "$root/proc" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/image" "$root"
tar --warning=no-unknown-keyword -xf "$image_tar" -C "$work/image"
# manifest.json (docker-archive): the config file and the layers, base first.
mapfile -t layers < <(python3 -c 'import json,sys; [print(l) for l in json.load(open(sys.argv[1]))[0]["Layers"]]' "$work/image/manifest.json")
config=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["Config"])' "$work/image/manifest.json")
for layer in "${layers[@]}"; do
    tar --warning=no-unknown-keyword -xzf "$work/image/$layer" -C "$root"
done

read_config() { python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['config']; $1" "$work/image/$config"; }
user=$(read_config 'print(c["User"])')
[[ "$user" == "10001:10001" ]] || { echo "image user is '$user', expected 10001:10001" >&2; exit 1; }
read_config 'assert "/var/lib/kaas" in c["Volumes"], c' 
read_config 'assert "9092/tcp" in c["ExposedPorts"] and "9644/tcp" in c["ExposedPorts"], c'
mapfile -t entrypoint < <(read_config 'print("\n".join(c["Entrypoint"]))')
mapfile -t image_env < <(read_config 'print("\n".join(c["Env"]))')

mkdir -p "$root/proc"
mount -t proc proc "$root/proc"   # the JVM finds its libraries through /proc/self/exe

# A scratch image has no env(1): set the image's environment (then the overrides) on the host side. env
# and chroot exec, so the java process keeps the PID the shell started.
chroot_bin=$(command -v chroot)
out=$(env -i "${image_env[@]}" "$chroot_bin" --userspec="$user" "$root" "${entrypoint[@]}" --version)
[[ "$out" == "kaas $version" ]] || { echo "--version printed '$out'" >&2; exit 1; }
echo "image: --version: $out"

admin_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# The image's own settings and arguments (serve) but for the addresses: loopback, so the test exposes nothing.
mapfile -t cmd < <(read_config 'print("\n".join(c["Cmd"]))')
env -i "${image_env[@]}" KAAS_LISTENERS=PLAINTEXT://127.0.0.1:0 KAAS_ADMIN_LISTENER="127.0.0.1:$admin_port" \
    "$chroot_bin" --userspec="$user" "$root" "${entrypoint[@]}" "${cmd[@]}" > "$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 600); do
    if python3 -c 'import sys,urllib.request; sys.exit(0 if urllib.request.urlopen(sys.argv[1], timeout=1).status == 200 else 1)' \
        "http://127.0.0.1:$admin_port/readyz" 2>/dev/null; then
        break
    fi
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; echo "serve exited" >&2; exit 1; }
    sleep 0.1
done
python3 -c 'import urllib.request,sys; print("image: /readyz:", urllib.request.urlopen(sys.argv[1]).read().decode().strip())' "http://127.0.0.1:$admin_port/readyz"
owner=$(stat -c %u:%g "$root/var/lib/kaas/__cluster")
[[ "$owner" == "10001:10001" ]] || { echo "data written as $owner" >&2; exit 1; }
kill -TERM "$server"
wait "$server" || true
server=""
grep -q "kaas broker 0 stopped" "$work/serve.log" || { cat "$work/serve.log" >&2; echo "no clean stop" >&2; exit 1; }
# The example manifests agree with the image: its user, its ports, probes on its admin listener.
python3 - "$work/image/$config" "$(dirname "$0")/../../../deploy/kubernetes/kaas.yaml" <<'PY'
import json, sys, yaml
image = json.load(open(sys.argv[1]))["config"]
docs = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d]
sts = next(d for d in docs if d["kind"] == "StatefulSet")
pod = sts["spec"]["template"]["spec"]
c = pod["containers"][0]
assert f'{pod["securityContext"]["runAsUser"]}:{pod["securityContext"]["runAsGroup"]}' == image["User"]
ports = {p["name"]: p["containerPort"] for p in c["ports"]}
assert {f"{p}/tcp" for p in ports.values()} == set(image["ExposedPorts"]), ports
assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "admin"} and ports["admin"] == 9644
assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
assert any(m["mountPath"] == "/var/lib/kaas" for m in c["volumeMounts"]) and "/var/lib/kaas" in image["Volumes"]
assert sts["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == "data"
print("image: deploy/kubernetes/kaas.yaml matches the image (user, ports, probes, volume)")
PY
echo "image: serve became ready as $user with data in /var/lib/kaas, stopped cleanly on SIGTERM"
