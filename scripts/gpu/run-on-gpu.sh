#!/usr/bin/env bash
# On the GPU machine (it reaches no registry): reassemble the pack of scripts/gpu/pack-browser.sh and run the
# packed Chromium (LD_LIBRARY_PATH, its own libraries) for the benchmarks. Run from the repo root there; the pack
# travels in .gpu/ (carry), a few parts per call, and is kept in GPU_HOME (default /root/gpu) while the machine is.
#
#   run-on-gpu.sh keep            copy the parts this call brought (.gpu/parts) to GPU_HOME/parts
#   run-on-gpu.sh unpack          check every part (SHA256SUMS), reassemble into GPU_HOME/root
#   run-on-gpu.sh machine         print what the machine runs (OS, kernel, glibc, GPU, driver, loaders) as JSON
#   run-on-gpu.sh probe           which graphics flags render WebGL on the GPU
#   run-on-gpu.sh bench [--quick] probe, then bench:bubble --gpu [--quick] and bench:timing --gpu $TIMING_ARGS
#                                 (default --presentations=30); results to RESULTS (default $OUT, else bench/results)
#                                 as bubble-gpu.json, timing-gpu.json, gpu-probe.json, gpu-machine.json
#   run-on-gpu.sh all [--quick]   keep + unpack + bench
#   run-on-gpu.sh fidelity        probe, then on the virtual display (begin-frame control) on the GPU:
#                                 bench:fidelity --gpu (fidelity-gpu.json) and the 1080p/2160p 60 fps clip bench
#                                 (bench/display/clips.ts --gpu, display-gpu.json); the browser's log as
#                                 virtual-display.log
#   run-on-gpu.sh allfidelity     keep + unpack + fidelity
# Dry run on a CPU machine: GPU_HOME=/tmp/x run-on-gpu.sh keep && ... unpack, then CHROMIUM_PATH=/tmp/x/root/chromium/chrome.
set -euo pipefail
home=${GPU_HOME:-/root/gpu}
root=$home/root
parts_in=${GLIMPSE_PARTS:-.gpu/parts}
results=$(realpath -m "${RESULTS:-${OUT:-bench/results}}")
log() { echo "[gpu $(date +%T)] $*" >&2; }

keep() {
  mkdir -p "$home/parts"
  local n=0 f
  for f in "$parts_in"/glimpse-gpu.tar.* "$parts_in"/SHA256SUMS; do
    [ -f "$f" ] || continue
    cp "$f" "$home/parts/"; n=$((n + 1))
  done
  log "kept $n files; $home/parts now holds: $(cd "$home/parts" && ls | tr '\n' ' ')"
}

unpack() {
  [ -f "$home/parts/SHA256SUMS" ] || { log "no SHA256SUMS in $home/parts: bring it (and every part) first"; exit 3; }
  local missing
  missing=$(cd "$home/parts" && awk '{print $2}' SHA256SUMS | while read -r p; do [ -f "$p" ] || echo "$p"; done)
  [ -z "$missing" ] || { log "parts still missing: $missing"; exit 3; }
  (cd "$home/parts" && sha256sum --quiet -c SHA256SUMS) || { log "a part is damaged"; exit 3; }
  rm -rf "$root"; mkdir -p "$root"
  cat "$home"/parts/glimpse-gpu.tar.* | tar -xf - -C "$root"
  find "$root" -name '*.xz' -print0 | xargs -0 -P "$(nproc)" -n 1 xz -d
  # The browser binary came inside its Debian package's data archive.
  tar -xf "$root/chromium/headless-shell.data.tar" -C "$root/chromium" --strip-components=4 ./usr/lib/chromium/chromium-headless-shell
  rm "$root/chromium/headless-shell.data.tar"
  log "unpacked into $root ($(du -sh "$root" | cut -f1))"
}

# The NVIDIA driver's user-space libraries and its Vulkan / EGL registrations, wherever the image put them.
driver_env() {
  local d icd egl
  extra=""
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu/nvidia; do [ -d "$d" ] && extra="$extra${extra:+:}$d"; done
  export GLIMPSE_EXTRA_LIBS="$extra"
  icd=$(find /usr/local/nvidia /usr/share/vulkan /etc/vulkan -name 'nvidia_icd*.json' 2>/dev/null | head -1 || true)
  egl=$(find /usr/local/nvidia /usr/share/glvnd /etc/glvnd -name '*nvidia*.json' -path '*egl_vendor.d*' 2>/dev/null | head -1 || true)
  [ -n "$icd" ] && export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"
  [ -n "$egl" ] && export __EGL_VENDOR_LIBRARY_FILENAMES="$egl"
  export CHROMIUM_PATH="$root/chromium/chrome"
  node="$root/node/bin/node"
}

machine() {
  driver_env
  local gpu os
  gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1 || echo "nvidia-smi failed")
  os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME" || uname -s)
  GPU="$gpu" OS_NAME="$os" KERNEL="$(uname -r)" GLIBC="$(ldd --version 2>&1 | head -1)" HOST_NODE="$(command -v node >/dev/null && node --version || echo none)" \
  CHROMIUM="$("$CHROMIUM_PATH" --version 2>&1 | head -1 || true)" PACKAGES="$(head -2 "$root/chromium/PACKAGES.txt" | tr '\n' ';')" \
  NVLIBS="$(ls $(echo "$GLIMPSE_EXTRA_LIBS" | tr ':' ' ') 2>/dev/null | grep -E 'libEGL_nvidia|libGLX_nvidia|libnvidia-glcore|libnvidia-eglcore|libnvidia-gpucomp' | sort -u | tr '\n' ' ' || true)" \
  "$node" -e '
    const e = process.env;
    const [name, driver, memory] = e.GPU.split(",").map((s) => s.trim());
    console.log(JSON.stringify({ os: e.OS_NAME, kernel: e.KERNEL, glibc: e.GLIBC, gpuModel: name, driver, gpuMemory: memory,
      hostNode: e.HOST_NODE, chromium: e.CHROMIUM, chromiumPackages: e.PACKAGES, driverLibrariesFound: e.NVLIBS.trim(),
      vulkanIcd: e.VK_DRIVER_FILES ?? null, eglVendor: e.__EGL_VENDOR_LIBRARY_FILENAMES ?? null, extraLibraryPath: e.GLIMPSE_EXTRA_LIBS,
      carried: "chromium-headless-shell + chromium-common (parts), its ldd closure and dlopen loaders from Debian 12 packages, Node " + process.version + ", bench kit" }));'
}

probe() {
  driver_env
  mkdir -p "$results"
  (cd "$root/kit" && timeout -k 5 200 "$node" probe.mjs "$results/gpu-probe.json" >/dev/null) || true
}

bench() {
  driver_env
  probe
  local flags
  flags=$("$node" -e 'const r = require(process.argv[1]); if (r.chosen) console.log(JSON.stringify(r.chosen.flags))' "$(realpath "$results/gpu-probe.json")")
  if [ -z "$flags" ]; then log "no flag set rendered WebGL on the GPU (see $results/gpu-probe.json): no GPU figures"; exit 4; fi
  log "GPU flags: $flags"
  export GLIMPSE_GPU_FLAGS="$flags" GLIMPSE_BENCH_PREBUILT="$root/kit/pages" BENCH_RESULTS_DIR="$results"
  GLIMPSE_GPU_MACHINE="$(machine)"; export GLIMPSE_GPU_MACHINE
  echo "$GLIMPSE_GPU_MACHINE" >"$results/gpu-machine.json"
  local status=0
  # Hard limits: a browser stuck on its GPU must not eat the call (the lease is short).
  (cd "$root/kit" && timeout -k 5 "${BUBBLE_LIMIT_S:-270}" "$node" bubble.mjs --gpu "$@") || status=$?
  # 30 presentations per condition by default: about 2 minutes, inside a 15-minute lease (TIMING_ARGS overrides).
  (cd "$root/kit" && timeout -k 5 "${TIMING_LIMIT_S:-170}" "$node" timing.mjs --gpu ${TIMING_ARGS:---presentations=30}) || status=$?
  return $status
}

# bench:3d only (render cost of a 1 M-triangle mesh and a 1 M-point cloud against an image, 1080p, on the GPU).
bench3d() {
  driver_env
  probe
  local flags
  flags=$("$node" -e 'const r = require(process.argv[1]); if (r.chosen) console.log(JSON.stringify(r.chosen.flags))' "$(realpath "$results/gpu-probe.json")")
  if [ -z "$flags" ]; then log "no flag set rendered WebGL on the GPU (see $results/gpu-probe.json): no GPU figures"; exit 4; fi
  export GLIMPSE_GPU_FLAGS="$flags" GLIMPSE_BENCH_PREBUILT="$root/kit/pages" BENCH_RESULTS_DIR="$results"
  GLIMPSE_GPU_MACHINE="$(machine)"; export GLIMPSE_GPU_MACHINE
  (cd "$root/kit" && timeout -k 5 "${THREE_D_LIMIT_S:-200}" "$node" three-d.mjs --gpu "$@")
}

# bench:fidelity and the clip bench on the virtual display, on the GPU flags the probe chose.
fidelity() {
  driver_env
  probe
  local flags status=0 dry=""
  flags=$("$node" -e 'const r = require(process.argv[1]); if (r.chosen) console.log(JSON.stringify(r.chosen.flags))' "$(realpath "$results/gpu-probe.json")")
  # GLIMPSE_DRY_RUN=1 (a CPU machine): the first candidate that rendered at all, its figures marked as a dry run.
  if [ -z "$flags" ] && [ "${GLIMPSE_DRY_RUN:-}" = 1 ]; then
    flags=$("$node" -e 'const r = require(process.argv[1]); const c = r.candidates.find((c) => !c.renderer.startsWith("failed")); if (c) console.log(JSON.stringify(c.flags))' "$(realpath "$results/gpu-probe.json")")
    dry=--dry-run
  fi
  # GLIMPSE_DISPLAY_FLAGS (a JSON array): other flags than the probe's for the virtual display (a second try).
  [ -n "${GLIMPSE_DISPLAY_FLAGS:-}" ] && flags=$GLIMPSE_DISPLAY_FLAGS
  if [ -z "$flags" ]; then log "no flag set rendered WebGL on the GPU (see $results/gpu-probe.json): no GPU figures"; exit 4; fi
  log "GPU flags: $flags${dry:+ (dry run)}"
  # sharp's addon needs a libstdc++: the host's, else the pack's (as chrome.sh does for the browser).
  ldconfig -p 2>/dev/null | grep -q 'libstdc++\.so\.6 ' || export LD_LIBRARY_PATH="$root/chromium/lib-compat${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export GLIMPSE_GPU_FLAGS="$flags" GLIMPSE_BENCH_PREBUILT="$root/kit/pages" BENCH_RESULTS_DIR="$results" \
    GLIMPSE_BENCH_CLIPS="$root/kit/clips" VIRTUAL_DISPLAY_LOG="$home/virtual-display.log"
  # Both benches serve the bench/timing page (their own build folders where Vite builds on the spot).
  local d; for d in bench-fidelity bench-display-clips; do [ -d "$root/kit/pages/$d" ] || cp -r "$root/kit/pages/bench-timing" "$root/kit/pages/$d"; done
  GLIMPSE_GPU_MACHINE="$(machine)"; export GLIMPSE_GPU_MACHINE
  echo "$GLIMPSE_GPU_MACHINE" >"$results/gpu-machine.json"
  : >"$VIRTUAL_DISPLAY_LOG"
  (cd "$root/kit" && timeout -k 5 "${FIDELITY_LIMIT_S:-200}" "$node" fidelity.mjs --gpu $dry) || { status=$?; log "bench:fidelity --gpu ended with $status"; }
  (cd "$root/kit" && timeout -k 5 "${CLIPS_LIMIT_S:-200}" "$node" clips.mjs --gpu $dry) || { status=$?; log "clips --gpu ended with $status"; }
  # The browser's own log (GPU process errors), at most its last 4 MB.
  tail -c 4000000 "$VIRTUAL_DISPLAY_LOG" >"$results/virtual-display.log" || true
  return $status
}

cmd=${1:-all}; shift || true
case $cmd in
  keep) keep ;;
  unpack) unpack ;;
  machine) machine ;;
  probe) probe ;;
  bench) bench "$@" ;;
  bench3d) bench3d "$@" ;;
  all3d) keep; unpack; bench3d "$@" ;;
  all) keep; unpack; bench "$@" ;;
  fidelity) fidelity ;;
  allfidelity) keep; unpack; fidelity ;;
  *) echo "usage: $0 keep|unpack|machine|probe|bench [--quick]|all [--quick]|bench3d|all3d|fidelity|allfidelity" >&2; exit 2 ;;
esac
