#!/usr/bin/python3
"""The costs of data-driven overlays, inside the element, interleaved, at 1080p I420.

Cases (from bench.py's table, the same geometry):
  - `{frame}`, and `{data:n:%.0f}` from a file whose value is the frame number (the same
    digits, a new text every frame, looked up and interpolated from the file);
  - a small logo placed still, and the same logo with x bound to a data field that moves it
    every frame.
Each round runs every case once (GStreamer's latency tracer, element scope, minus the
tracer's own cost on `identity`, measured in the same round); printed are the medians over
rounds of each case's mean per-frame time and the ratios the targets name.

    GST_PLUGIN_PATH=$PWD/.build/release /usr/bin/python3 Benchmarks/data-bench.py [--rounds 7] [--frames 1500]
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

CASES = ["watermark {frame}", "watermark {data} every frame", "watermark marker, still",
         "watermark marker, x bound to data"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--frames", type=int, default=1500)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="wm-data-bench-")
    cases = bench.gst_cases(1920, bench.three_layer_config(tmp), 1080, 1.0, tmp)
    head = "videotestsrc num-buffers=N pattern=black ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1"
    means = {c: [] for c in CASES}
    for r in range(args.rounds):
        tracer = bench.latency_distribution(head, "identity", args.frames)["mean"]
        for c in CASES:
            means[c].append(bench.latency_distribution(head, cases[c], args.frames)["mean"] - tracer)
        print(f"round {r + 1}: " + ", ".join(f"{c.removeprefix('watermark ')} {means[c][-1]:.1f}" for c in CASES),
              flush=True)
    med = {c: statistics.median(v) for c, v in means.items()}
    print(f"\nmean per-frame time inside the element, 1080p I420, median of {args.rounds} rounds × {args.frames} frames")
    for c in CASES:
        print(f"  {c:36s} {med[c]:8.1f} µs  [{min(means[c]):7.1f} – {max(means[c]):7.1f}]")
    frame, data = med["watermark {frame}"], med["watermark {data} every frame"]
    still, bound = med["watermark marker, still"], med["watermark marker, x bound to data"]
    print("\ntargets")
    print(f"  {'PASS' if data <= frame * 1.05 else 'FAIL'}  {{data}} every frame ≤ {{frame}} (5 % noise allowance): "
          f"{data:.1f} vs {frame:.1f} µs, {data / frame:.2f}×")
    print(f"  {'PASS' if bound <= 1.2 * still else 'FAIL'}  marker bound to data ≤ 1.2× still: "
          f"{bound:.1f} vs {still:.1f} µs, {bound / still:.2f}×")


if __name__ == "__main__":
    main()
