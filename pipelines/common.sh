# Sourced by every pipeline script: finds the plugin (installed, or this checkout's
# release/debug build) and sets defaults. Each script runs on any machine: the sources
# default to test sources.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
if ! gst-inspect-1.0 watermark >/dev/null 2>&1; then
  for dir in "$ROOT/.build/release" "$ROOT/.build/debug"; do
    if [ -f "$dir/libgstwatermark.so" ]; then
      export GST_PLUGIN_PATH="$dir${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
      break
    fi
  done
fi
LOGO="${LOGO:-$ROOT/assets/logo.svg}"
TEXT="${TEXT:-© ACME 2026}"
# Number of video frames for the finite graphs (30 fps): NUM_BUFFERS=-1 runs until Ctrl-C.
NUM_BUFFERS="${NUM_BUFFERS:-300}"
