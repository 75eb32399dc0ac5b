#!/usr/bin/env bash
# Live stream over RTMP (FLV) to a server's ingest URL, e.g. rtmp://a.example/live/KEY.
# Default: an RTMP server on this machine (nginx with libnginx-mod-rtmp, application "live").
# Watch: gst-play-1.0 rtmp://127.0.0.1/live/watermark
. "$(dirname "$0")/common.sh"
URL="${1:-rtmp://127.0.0.1:${PORT:-1935}/live/watermark}"
exec gst-launch-1.0 -e \
  videotestsrc is-live=true pattern=ball num-buffers="$NUM_BUFFERS" ! video/x-raw,width=1280,height=720,framerate=30/1 \
  ! watermark image="$LOGO" text="$TEXT" \
  ! videoconvert ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse \
  ! flvmux streamable=true ! rtmp2sink location="$URL"
