#!/usr/bin/env bash
# Live stream over SRT (MPEG-TS inside), as a caller to HOST:PORT (default this machine).
# Receive first, as a listener:
#   gst-launch-1.0 srtsrc uri="srt://:5001?mode=listener" ! tsdemux ! h264parse ! avdec_h264 ! videoconvert ! autovideosink
# (or: ffplay "srt://:5001?mode=listener"). Set MODE=listener to make this side listen instead.
. "$(dirname "$0")/common.sh"
URI="srt://${HOST:-127.0.0.1}:${PORT:-5001}${MODE:+?mode=$MODE}"
exec gst-launch-1.0 -e \
  videotestsrc is-live=true pattern=ball num-buffers="$NUM_BUFFERS" ! video/x-raw,width=1280,height=720,framerate=30/1 \
  ! watermark image="$LOGO" text="$TEXT" \
  ! videoconvert ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse config-interval=-1 \
  ! mpegtsmux alignment=7 ! srtsink uri="$URI"
