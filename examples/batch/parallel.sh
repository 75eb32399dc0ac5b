#!/usr/bin/env bash
# Runs one batch over several machines with GNU parallel: shard k of N runs on whichever
# host is free, each shard a single gst-watermark process exporting its rows.
# Every host needs gst-watermark and the same paths (a shared folder, e.g. NFS).
#
#   examples/batch/parallel.sh manifest.csv out/ 4 host1,host2
#
# Outputs are committed by rename under a lock, so a rerun (after a failed host, say)
# only does what is missing, and shards that overlap by mistake never write a file twice.
set -euo pipefail
manifest=${1:?manifest} outdir=${2:?output folder} shards=${3:-4} hosts=${4:-:}   # ":" = this machine

# {} is the shard index 0..N-1; --halt stops the others when one shard fails badly
# (a failed *file* is reported in the shard's JSONL report and does not fail the shard's peers).
seq 0 $((shards - 1)) | parallel --sshlogin "$hosts" --jobs 1 --halt soon,fail=1 \
  gst-watermark batch --manifest "$manifest" --output-dir "$outdir" \
  --shard {}/"$shards" --report "$outdir/report-{}.jsonl"
