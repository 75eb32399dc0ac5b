#!/usr/bin/env bash
# A Slurm job array: one task per shard. `--shard auto` reads SLURM_ARRAY_TASK_ID,
# SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT, so arrays numbered from 1 work too.
#
#   sbatch examples/batch/slurm-array.sh
#
#SBATCH --job-name=watermark
#SBATCH --array=1-8
#SBATCH --cpus-per-task=4
#SBATCH --mem=2G
#SBATCH --time=02:00:00
#SBATCH --output=logs/watermark-%A_%a.log
set -euo pipefail

# --jobs follows the CPUs Slurm gave the task; a resubmitted array skips finished outputs.
gst-watermark batch --manifest /shared/lectures/manifest.csv \
  --output-dir /shared/lectures/out --output "{stem}-{student_id}.mp4" \
  --shard auto --jobs "$(( (SLURM_CPUS_PER_TASK + 1) / 2 ))" \
  --report "/shared/lectures/out/report-${SLURM_ARRAY_TASK_ID}.jsonl"
