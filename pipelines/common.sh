# Sourced by every pipeline script: finds the plugin (installed, or this checkout's
# release/debug build) and sets defaults. Each script runs on any machine: the sources
# default to test sources.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
# The newer of this checkout's release and debug builds, if any.
BUILD_DIR=""
for dir in "$ROOT/.build/release" "$ROOT/.build/debug"; do
  if [ -f "$dir/libgstwatermark.so" ] && { [ -z "$BUILD_DIR" ] || [ "$dir/libgstwatermark.so" -nt "$BUILD_DIR/libgstwatermark.so" ]; }; then
    BUILD_DIR="$dir"
  fi
done
if [ -n "$BUILD_DIR" ]; then
  export GST_PLUGIN_PATH="$BUILD_DIR${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
fi
LOGO="${LOGO:-$ROOT/assets/logo.svg}"
TEXT="${TEXT:-© ACME 2026}"
# Number of video frames for the finite graphs (30 fps): NUM_BUFFERS=-1 runs until Ctrl-C.
NUM_BUFFERS="${NUM_BUFFERS:-300}"
