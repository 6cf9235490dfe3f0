#!/usr/bin/env bash
# Installs what building Sinew needs beyond the Rust toolchain: cmake (SDL2 is built from the
# sdl2 crate's sources and linked in) and SDL2's development files, whose dependencies bring the
# window-system and sound headers that build compiles SDL's X11, Wayland, PulseAudio and ALSA
# support against (Mesa's EGL/GL, which headless rendering uses, ship with Debian). Safe to run
# repeatedly.
set -euo pipefail

missing=()
pkg-config --exists sdl2 2>/dev/null || missing+=(libsdl2-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
# Headless rendering: SDL's offscreen driver needs EGL and Mesa's software rasteriser.
ldconfig -p 2>/dev/null | grep -q 'libEGL_mesa.so' || missing+=(libegl-mesa0)
ldconfig -p 2>/dev/null | grep -q 'libEGL.so.1' || missing+=(libegl1)
[ -e /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so ] || [ -e /usr/lib/aarch64-linux-gnu/dri/swrast_dri.so ] \
  || ls /usr/lib/*/dri/swrast_dri.so >/dev/null 2>&1 || missing+=(libgl1-mesa-dri)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v cc >/dev/null 2>&1 || missing+=(gcc)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${missing[@]}" >&2
else
  echo "setup: missing system packages: ${missing[*]}" >&2
  echo "setup: install them with:  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
