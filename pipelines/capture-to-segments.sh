#!/usr/bin/env bash
# Capture to numbered 2-second MP4 segments (splitmuxsink): a crash or power loss loses
# at most the open segment. splitmuxsink asks for a keyframe at each boundary, so the
# GOP is left to the encoder. Each capture-NNNNN.mp4 plays on its own.
. "$(dirname "$0")/common.sh"
PATTERN="${1:-capture-%05d.mp4}"
exec gst-launch-1.0 -e \
  videotestsrc is-live=true pattern=ball num-buffers="$NUM_BUFFERS" ! video/x-raw,width=1280,height=720,framerate=30/1 \
  ! watermark image="$LOGO" text="$TEXT" \
  ! videoconvert ! x264enc speed-preset=veryfast pass=qual quantizer=21 vbv-buf-capacity=0 key-int-max=250 aud=false ! h264parse \
  ! splitmuxsink location="$PATTERN" max-size-time=2000000000 muxer-factory=mp4mux send-keyframe-requests=true
