#!/usr/bin/python3
"""Interleaved A/B timing of pipeline fragments, for checking one change quickly.

Each fragment runs as `videotestsrc num-buffers=N pattern=black ! CAPS ! FRAGMENT ! fakesink`
in this process, the fragments one after the other (A B C … A B C …) for several rounds;
printed per fragment: median wall µs per frame, the extra over the first fragment (the
reference, usually `identity`), and every round's extra.

    make build
    GST_PLUGIN_PATH=$PWD/.build/release /usr/bin/python3 Benchmarks/ab.py \\
        identity 'watermark text={frame} render-ahead=true' 'watermark text={frame} render-ahead=false'

The full comparison with the peers and the targets is Benchmarks/bench.py.
"""
import argparse
import statistics
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def run(caps, fragment, frames):
    pipeline = Gst.parse_launch(f"videotestsrc num-buffers={frames} pattern=black ! {caps} ! {fragment} ! fakesink")
    start = time.perf_counter()
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    elapsed = time.perf_counter() - start
    pipeline.set_state(Gst.State.NULL)
    if msg.type == Gst.MessageType.ERROR:
        raise SystemExit(f"{fragment}: {msg.parse_error()[0].message}")
    return elapsed / frames * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fragments", nargs="+", help="launch fragments; the first is the reference")
    ap.add_argument("--caps", default="video/x-raw,format=I420,width=1920,height=1080")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--frames", type=int, default=600)
    args = ap.parse_args()
    Gst.init(None)
    times = {f: [] for f in args.fragments}
    for _ in range(args.rounds):
        for f in args.fragments:
            times[f].append(run(args.caps, f, args.frames))
    reference = times[args.fragments[0]]
    print(f"{args.caps}, {args.rounds} rounds × {args.frames} frames; µs per frame (median), extra over the first")
    for f in args.fragments:
        extra = [t - r for t, r in zip(times[f], reference)]
        print(f"  {statistics.median(times[f]):8.1f}  {statistics.median(extra):+8.1f}  "
              f"[{', '.join(f'{e:+.0f}' for e in extra)}]  {f}")


if __name__ == "__main__":
    main()
