#!/usr/bin/env bash
# Preview + record from one graph: the tee sits *after* the watermark, so the window and
# the file always show the same overlay. Without a display, set SINK=fakesink.
. "$(dirname "$0")/common.sh"
OUT="${1:-preview-record.mp4}"
SINK="${SINK:-autovideosink}"
exec gst-launch-1.0 -e \
  videotestsrc is-live=true pattern=ball num-buffers="$NUM_BUFFERS" ! video/x-raw,width=1280,height=720,framerate=30/1 \
  ! watermark image="$LOGO" text="$TEXT" ! tee name=t \
  t. ! queue ! videoconvert ! $SINK sync=false \
  t. ! queue ! videoconvert ! x264enc tune=zerolatency speed-preset=veryfast ! h264parse ! mp4mux ! filesink location="$OUT"
