#!/usr/bin/env bash
# File export with audio: decodes INPUT (default: a generated clip with a tone), burns
# the watermark into the video, re-encodes it to H.264, encodes the audio to AAC, and
# writes an MP4 with its index at the front (faststart) for web playback.
# Usage: export-file.sh [INPUT] [OUTPUT]   (INPUT must have both video and audio)
. "$(dirname "$0")/common.sh"
IN="${1:-}"
OUT="${2:-export.mp4}"
if [ -z "$IN" ]; then
  IN="$(mktemp --suffix=.mkv)"
  gst-launch-1.0 -q -e videotestsrc num-buffers="$NUM_BUFFERS" ! video/x-raw,width=1280,height=720,framerate=30/1 \
    ! x264enc speed-preset=ultrafast ! h264parse ! queue ! matroskamux name=m ! filesink location="$IN" \
    audiotestsrc num-buffers="$NUM_BUFFERS" samplesperbuffer=1600 ! audio/x-raw,rate=48000,channels=2 \
    ! audioconvert ! opusenc ! queue ! m.
fi
exec gst-launch-1.0 -e \
  filesrc location="$IN" ! decodebin name=d \
  d. ! queue ! videoconvert ! watermark image="$LOGO" text="$TEXT" ! videoconvert ! video/x-raw,format=I420 \
     ! x264enc speed-preset=veryfast ! h264parse ! queue ! mux. \
  d. ! queue ! audioconvert ! audioresample ! avenc_aac ! aacparse ! queue ! mux. \
  mp4mux name=mux faststart=true ! filesink location="$OUT"
