#!/usr/bin/env bash
# RTSP: serving clients needs gst-rtsp-server, which gst-launch-1.0 cannot start, so this
# graph runs through the CLI (which embeds the server). The media pipeline it serves is
# printed first. Clients: gst-play-1.0 rtsp://127.0.0.1:8554/live  (or VLC, ffplay)
. "$(dirname "$0")/common.sh"
# The newer of this checkout's builds of the CLI, else the installed one.
CLI=""
for c in "$ROOT/.build/release/gst-watermark" "$ROOT/.build/debug/gst-watermark"; do
  if [ -x "$c" ] && { [ -z "$CLI" ] || [ "$c" -nt "$CLI" ]; }; then CLI="$c"; fi
done
CLI="${CLI:-gst-watermark}"
URL="${1:-rtsp://127.0.0.1:${PORT:-8554}/live}"
DURATION_ARGS=()
[ -n "${DURATION:-}" ] && DURATION_ARGS=(--duration "$DURATION")
"$CLI" stream "$URL" --test-source --image "$LOGO" --text "$TEXT" --print-pipeline
exec "$CLI" stream "$URL" --test-source --image "$LOGO" --text "$TEXT" "${DURATION_ARGS[@]}"
