#!/usr/bin/env bash
# Instructions per frame of a `{timecode}` layer (the logo above one line, outline and soft
# shadow) beyond the frame itself, counted with valgrind's callgrind (the same count for the
# same binary and input whatever else the machine does), side by side:
#   ours, bands    blend-bench's timecode cases: 300 frames rendered and blended, first uses
#                  (the block drawn whole once, each band drawn once) included
#   ours, whole    the same layer drawn and converted whole every frame, as before bands
#                  (30 frames)
#   ffmpeg         drawtext with its time code, a border of 4 px at 1080p and a hard shadow
#                  (ffmpeg has no soft one), minus the same graph without it (60 frames); no
#                  logo (ours counts its logo too)
# at 1080p and 2160p in I420, NV12 and BGRA.
#
#   Benchmarks/text-bench.sh            (writes Benchmarks/results/text-bench.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release -j 2 --product blend-bench 2>&1 | grep -E "error" >&2 || true
bin=.build/release/blend-bench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
font=$(fc-match -f '%{file}' 'DejaVu Sans')
count() { # callgrind total of the command's `measured` part (or all of it with --all)
  local tog=(--collect-atstart=no --toggle-collect='*measured*')
  if [ "$1" = --all ]; then tog=(); shift; fi
  SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind "${tog[@]}" --callgrind-out-file="$out/c.out" "$@" \
    >"$out/log" 2>&1 || { cat "$out/log" >&2; exit 1; }
  awk '/^(summary|totals):/ {print $2; exit}' "$out/c.out"
}
ffmpeg_graph() { # height format with-text
  local h=$1 f=$2 w=$(($1 * 16 / 9)) vf="format=$2"
  if [ "$3" = 1 ]; then
    local fs=$((h * 43 / 1000)) b=$((h * 4 / 1080)) s=$((h * 4 / 1080))
    vf="format=$f,drawtext=fontfile=$font:timecode='00\\:00\\:00\\:00':rate=30:fontsize=$fs:fontcolor=white:borderw=$b:bordercolor=black:shadowx=$s:shadowy=$s:shadowcolor=black@0.6:x=w-tw-$((h / 40)):y=h-th-$((h / 40))"
  fi
  echo "$vf"
}
{
  printf '%-6s %-5s %16s %16s %16s %10s\n' height fmt "ours, bands" "ours, whole" "ffmpeg drawtext" "whole/bands"
  for h in 1080 2160; do
    for f in I420 NV12 BGRA; do
      bands=$(count "$bin" . budget "timecode-$h-$f")
      whole=$(count "$bin" . budget "timecode-$h-$f-whole")
      declare -A ffname=([I420]=yuv420p [NV12]=nv12 [BGRA]=bgra)
      ff=${ffname[$f]}
      base=$(count --all ffmpeg -v error -f lavfi -i "color=gray:s=$((h * 16 / 9))x$h:r=30" -frames:v 60 -vf "$(ffmpeg_graph $h $ff 0)" -f null -)
      text=$(count --all ffmpeg -v error -f lavfi -i "color=gray:s=$((h * 16 / 9))x$h:r=30" -frames:v 60 -vf "$(ffmpeg_graph $h $ff 1)" -f null -)
      printf '%-6s %-5s %16d %16d %16d %10.1f\n' "$h" "$f" $((bands / 300)) $((whole / 30)) $(((text - base) / 60)) \
        "$(awk -v a="$whole" -v b="$bands" 'BEGIN {print (a / 30) / (b / 300)}')"
    done
  done
} | tee Benchmarks/results/text-bench.txt
