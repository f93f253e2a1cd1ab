#!/usr/bin/env bash
# Pack Debian's chromium-headless-shell (apt-get download + dpkg -x), every shared library it needs (resolved with
# ldd, each taken from its own Debian package, also apt-get download + dpkg -x), the libraries it loads at run time
# (GL/EGL loaders, NSS modules), a font, this machine's Node binary and the bench kit (pages built ahead, bundled
# runners, playwright-core) into parts of at most PART_MIB (default 55) MiB under one git-ignored folder, for a
# machine that reaches no registry. Nothing is downloaded where it runs: scripts/gpu/run-on-gpu.sh reassembles it.
#
#   scripts/gpu/pack-browser.sh [OUT]      OUT defaults to .gpu/ in the repo root (git-ignored)
#
# Needs: Debian 12 (bookworm) with chromium's dependencies installed (ldd resolves against them), apt-get, dpkg,
# xz, node 20. Large files are xz'd one by one and cached by content under .tmp/gpu-pack, so a rerun is quick.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$(realpath -m "${1:-$repo/.gpu}")
part_mib=${PART_MIB:-55}
work=${GLIMPSE_GPU_WORK:-$repo/.tmp/gpu-pack}
tree=$work/tree
log() { echo "[pack $(date +%T)] $*" >&2; }

# Loaded with dlopen (ldd cannot see them): glvnd EGL/GL loaders for ANGLE's EGL backend, NSS's crypto modules.
DLOPEN_PACKAGES="libegl1 libglvnd0 libgles2 libgl1 libglx0 libopengl0 libnss3"
# glibc itself is the host's (the browser needs >= 2.35, its package says); libstdc++/libgcc go to lib-compat,
# used only where the host has none (a newer host copy must win: host GPU driver libraries may need it).
GLIBC_RE='^(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64)\.so'
COMPAT_RE='^(libstdc\+\+|libgcc_s)\.so'

mkdir -p "$work/debs" "$work/cache"
rm -rf "$tree" "$work/x" "$work/libx" "$work/payload"
mkdir -p "$tree/chromium/lib" "$tree/chromium/lib-compat" "$tree/chromium/fonts" "$tree/chromium/locales" "$tree/node/bin" "$work/x" "$work/libx"

download() { (cd "$work/debs" && apt-get download "$@" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true); }
deb_of() { ls "$work/debs/$1"_*.deb 2>/dev/null | head -1; }

log "chromium-headless-shell + chromium-common"
for p in chromium-headless-shell chromium-common; do [ -n "$(deb_of $p)" ] || download $p; dpkg -x "$(deb_of $p)" "$work/x"; done
src=$work/x/usr/lib/chromium
# The browser binary (223 MB) travels inside its Debian package's own data.tar.xz (no second compression here);
# run-on-gpu.sh unpack takes it out. Beside it, what the headless shell reads next to itself; chromium-common's
# Vulkan validation layer, mock driver, full-browser resources and other locales are left out.
ar p "$(deb_of chromium-headless-shell)" data.tar.xz >"$tree/chromium/headless-shell.data.tar.xz"
cp "$src"/headless_*.pak "$src/icudtl.dat" "$src/snapshot_blob.bin" "$src/v8_context_snapshot.bin" \
  "$src/libEGL.so" "$src/libGLESv2.so" "$src/libvk_swiftshader.so" "$src/vk_swiftshader_icd.json" "$src/libvulkan.so.1" "$tree/chromium/"
cp "$src/locales/en-US.pak" "$tree/chromium/locales/"

# Libraries: ldd over every ELF file in the pack, until no new name appears; each from its Debian package.
declare -A have=()
resolve_round() {
  local new=0 f line name path pkg
  for f in "$src/chromium-headless-shell" "$tree"/chromium/*.so* "$tree"/chromium/lib/*.so*; do
    [ -f "$f" ] || continue
    while read -r line; do
      case $line in *"not found"*) echo "ldd: $f: $line (install chromium's dependencies here first)" >&2; exit 1 ;; esac
      name=$(awk '{print $1}' <<<"$line"); path=$(awk '$2=="=>"{print $3}' <<<"$line")
      [ -n "$path" ] || continue
      [[ $name =~ $GLIBC_RE ]] && continue
      [ -n "${have[$name]:-}" ] && continue
      pkg=$(dpkg -S "$(realpath "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null || dpkg -S "/usr$path" 2>/dev/null) || { echo "no package owns $path" >&2; exit 1; }
      pkg=${pkg%%:*}
      [ -n "$(deb_of "$pkg")" ] || download "$pkg"
      [ -d "$work/libx/$pkg" ] || dpkg -x "$(deb_of "$pkg")" "$work/libx/$pkg"
      local found; found=$(find "$work/libx/$pkg" -name "$name" | head -1)
      [ -n "$found" ] || { echo "$name not in $pkg's package" >&2; exit 1; }
      if [[ $name =~ $COMPAT_RE ]]; then cp -L "$found" "$tree/chromium/lib-compat/$name"; else cp -L "$found" "$tree/chromium/lib/$name"; fi
      have[$name]=$pkg; echo "$name $pkg" >>"$work/libs.txt"; new=1
    done < <(ldd "$f" 2>/dev/null | grep '=>' || true)
  done
  return $((1 - new))
}
: >"$work/libs.txt"
log "dlopen'd: $DLOPEN_PACKAGES"
for pkg in $DLOPEN_PACKAGES; do
  [ -n "$(deb_of "$pkg")" ] || download "$pkg"
  dpkg -x "$(deb_of "$pkg")" "$work/libx/$pkg"
  while read -r f; do n=$(basename "$f"); cp -L "$f" "$tree/chromium/lib/$n"; have[$n]=$pkg; echo "$n $pkg" >>"$work/libs.txt"; done \
    < <(find "$work/libx/$pkg" -name '*.so*' \( -type f -o -type l \) | grep -E '/lib/x86_64-linux-gnu/[^/]+$')
done
round=1
while resolve_round; do log "ldd round $round: $(wc -l <"$work/libs.txt") libraries"; round=$((round + 1)); done

# Closure check: with only the pack's folders on the path, every library outside glibc resolves inside the pack.
bad=$(LD_LIBRARY_PATH="$tree/chromium/lib:$tree/chromium/lib-compat" ldd "$src/chromium-headless-shell" "$tree"/chromium/lib/*.so* \
  | awk '$2=="=>"{print $1" "$3}' | grep -Ev "$GLIBC_RE" | grep -v " $tree/chromium/lib" || true)
[ -z "$bad" ] || { echo "resolved outside the pack:"; echo "$bad"; exit 1; } >&2

log "font (fonts-dejavu-core)"
[ -n "$(deb_of fonts-dejavu-core)" ] || download fonts-dejavu-core
dpkg -x "$(deb_of fonts-dejavu-core)" "$work/x"
cp "$work/x/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf" "$work/x/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf" "$tree/chromium/fonts/"
cat >"$tree/chromium/fonts.conf" <<'CONF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig><dir prefix="relative">fonts</dir><cachedir>/tmp/glimpse-fontconfig</cachedir></fontconfig>
CONF
cp "$repo/scripts/gpu/chrome.sh" "$tree/chromium/chrome"
chmod +x "$tree/chromium/chrome"
{
  echo "chromium-headless-shell $(dpkg-deb -f "$(deb_of chromium-headless-shell)" Version)"
  echo "chromium-common $(dpkg-deb -f "$(deb_of chromium-common)" Version)"
  echo "# library package (ldd closure + dlopen'd)"
  sort -u "$work/libs.txt"
} >"$tree/chromium/PACKAGES.txt"

log "node $(node --version)"
cp -L "$(command -v node)" "$tree/node/bin/node"

log "bench kit (pages built ahead, bundled runners, playwright-core)"
(cd "$repo" && nice npx tsx scripts/gpu/build-kit.ts "$tree/kit")

log "payload: large files xz'd one by one (cached by content; .xz files as they are)"
mkdir -p "$work/payload"
# Smallest first: the long compressions (browser, Node) come last.
(cd "$tree" && find . -type f -printf '%s %p\n' | sort -n | cut -d' ' -f2-) | while read -r rel; do
  f=$tree/$rel; dest=$work/payload/$rel; mkdir -p "$(dirname "$dest")"
  if [ "$(stat -c %s "$f")" -gt 65536 ] && [[ $rel != *.xz ]]; then
    sum=$(sha256sum "$f" | cut -c1-64)
    [ -f "$work/cache/$sum.xz" ] || { nice xz -T2 -9 -c "$f" >"$work/cache/$sum.xz.tmp" && mv "$work/cache/$sum.xz.tmp" "$work/cache/$sum.xz"; }
    cp "$work/cache/$sum.xz" "$dest.xz"; chmod --reference="$f" "$dest.xz"
  else
    cp -p "$f" "$dest"
  fi
done

rm -rf "$out/parts"; mkdir -p "$out/parts"
tar -cf - -C "$work/payload" . | split -b "${part_mib}M" -d -a 2 - "$out/parts/glimpse-gpu.tar."
(cd "$out/parts" && sha256sum glimpse-gpu.tar.* >SHA256SUMS)
cp "$repo/scripts/gpu/run-on-gpu.sh" "$out/run-on-gpu.sh"
log "$(ls "$out/parts" | grep -c 'tar\.') parts under $out/parts:"
ls -l "$out/parts" >&2
