#!/usr/bin/env bash
# HLS: a playlist and 2-second segments in DIR (default ./hls), served by any web server.
# Play: gst-play-1.0 hls/playlist.m3u8   (or serve DIR over HTTP for browsers)
. "$(dirname "$0")/common.sh"
DIR="${1:-hls}"
mkdir -p "$DIR"
exec gst-launch-1.0 -e \
  videotestsrc is-live=true pattern=ball num-buffers="$NUM_BUFFERS" ! video/x-raw,width=1280,height=720,framerate=30/1 \
  ! watermark image="$LOGO" text="$TEXT" \
  ! videoconvert ! x264enc tune=zerolatency speed-preset=veryfast key-int-max=60 ! h264parse \
  ! hlssink2 location="$DIR/segment%05d.ts" playlist-location="$DIR/playlist.m3u8" target-duration=2 max-files=0 playlist-length=0
