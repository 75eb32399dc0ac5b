#!/usr/bin/env bash
# Capture-to-file: a live source (camera if DEVICE is set, else a moving test pattern)
# with the watermark burned in, recorded to an MP4. -e turns Ctrl-C into EOS, so the
# file is finalized. A file, not a stream: x264 at constant quality (CRF 21) as its
# preset defines it, with no bitrate cap (VBV buffer 0), B-frames and lookahead. Play it with: gst-play-1.0 capture.mp4
. "$(dirname "$0")/common.sh"
OUT="${1:-capture.mp4}"
if [ -n "${DEVICE:-}" ]; then SRC="v4l2src device=$DEVICE"; else SRC="videotestsrc is-live=true pattern=ball num-buffers=$NUM_BUFFERS"; fi
exec gst-launch-1.0 -e \
  $SRC ! video/x-raw,width=1280,height=720,framerate=30/1 ! videoconvert \
  ! watermark image="$LOGO" text="$TEXT" \
  ! videoconvert ! x264enc speed-preset=veryfast pass=qual quantizer=21 vbv-buf-capacity=0 key-int-max=250 aud=false ! h264parse \
  ! mp4mux ! filesink location="$OUT"
