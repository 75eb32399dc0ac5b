#!/usr/bin/env bash
# Live stream as MPEG-TS over UDP (default to this machine, port 5000).
# Receive: gst-launch-1.0 udpsrc port=5000 caps=video/mpegts ! tsdemux ! h264parse ! avdec_h264 ! videoconvert ! autovideosink
#     or:  ffplay udp://127.0.0.1:5000
. "$(dirname "$0")/common.sh"
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-5000}"
exec gst-launch-1.0 -e \
  videotestsrc is-live=true pattern=ball num-buffers="$NUM_BUFFERS" ! video/x-raw,width=1280,height=720,framerate=30/1 \
  ! watermark image="$LOGO" text="$TEXT" \
  ! videoconvert ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse config-interval=-1 \
  ! mpegtsmux alignment=7 ! udpsink host="$HOST" port="$PORT"
