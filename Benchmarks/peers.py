#!/usr/bin/python3
"""Pipeline-level cost of the watermark element next to GStreamer's own overlays.

Each case is `videotestsrc num-buffers=N pattern=black ! caps ! CASE ! fakesink`, run to EOS
in this process (PyGObject). Cases run interleaved (A B C … A B C …) for several rounds so a
noisy machine affects all alike; each round's no-overlay baseline is subtracted, giving the
extra cost per frame. Prints median [min–max] per case and the ratio to the watermark
element, and writes the raw results as CSV.

    GST_PLUGIN_PATH=.build/release /usr/bin/python3 Benchmarks/peers.py [--rounds 5] [--frames 300]

Build the release plugin first (make build). Never benchmark a debug build.
"""
import argparse
import csv
import os
import statistics
import sys
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGO = os.path.join(ROOT, "assets", "logo.png")
TEXT = "© ACME 2026 watermark"  # 20-odd characters, as in the reference measurements


def cases(width):
    logo_w = int(width * 0.12)
    return {
        "baseline": "identity",
        "watermark (logo+text)": f'watermark image="{LOGO}" text="{TEXT}" overlay-mode=blend',
        "watermark (text)": f'watermark text="{TEXT}" overlay-mode=blend',
        "textoverlay": f'textoverlay text="{TEXT}" auto-resize=false valignment=bottom halignment=right',
        "gdkpixbufoverlay": f'gdkpixbufoverlay location="{LOGO}" overlay-width={logo_w} overlay-height={logo_w} '
                            "relative-x=0.85 relative-y=0.75 alpha=0.8",
        "textoverlay ! gdkpixbufoverlay": f'textoverlay text="{TEXT}" auto-resize=false valignment=bottom '
                                          f'halignment=right ! gdkpixbufoverlay location="{LOGO}" '
                                          f"overlay-width={logo_w} overlay-height={logo_w} relative-x=0.85 "
                                          "relative-y=0.75 alpha=0.8",
        "timeoverlay": "timeoverlay",
    }


def run(description):
    pipeline = Gst.parse_launch(description)
    bus = pipeline.get_bus()
    start = time.perf_counter()
    pipeline.set_state(Gst.State.PLAYING)
    msg = bus.timed_pop_filtered(120 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    elapsed = time.perf_counter() - start
    pipeline.set_state(Gst.State.NULL)
    if msg is None or msg.type == Gst.MessageType.ERROR:
        raise RuntimeError(f"failed: {description}: {msg.parse_error()[0].message if msg else 'timeout'}")
    return elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--csv", default="peers.csv")
    ap.add_argument("--sizes", default="1920x1080")
    ap.add_argument("--formats", default="I420,NV12,BGRA")
    args = ap.parse_args()
    Gst.init(None)
    if Gst.ElementFactory.find("watermark") is None:
        sys.exit("watermark element not found: set GST_PLUGIN_PATH=.build/release")

    rows = []
    for size in args.sizes.split(","):
        w, h = (int(v) for v in size.split("x"))
        for fmt in args.formats.split(","):
            head = f"videotestsrc num-buffers={args.frames} pattern=black ! video/x-raw,format={fmt},width={w},height={h},framerate=30/1"
            results = {name: [] for name in cases(w)}
            for _ in range(args.rounds):
                base = None
                for name, case in cases(w).items():
                    t = run(f"{head} ! {case} ! fakesink sync=false")
                    if name == "baseline":
                        base = t
                        continue
                    extra_us = (t - base) / args.frames * 1e6
                    results[name].append(extra_us)
                    rows.append({"size": size, "format": fmt, "case": name, "extra_us_per_frame": round(extra_us, 1)})
            print(f"\n{size} {fmt}: extra µs per frame over the no-overlay baseline, median [min–max] of {args.rounds} rounds")
            ours = statistics.median(results["watermark (logo+text)"])
            for name, values in results.items():
                if not values:
                    continue
                med = statistics.median(values)
                ratio = f"{med / ours:6.1f}× ours" if ours > 0 and name != "watermark (logo+text)" else ""
                print(f"  {name:34s} {med:8.1f}  [{min(values):.1f}–{max(values):.1f}]  {ratio}")
    with open(args.csv, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["size", "format", "case", "extra_us_per_frame"])
        writer.writeheader()
        writer.writerows(rows)
    print(f"\nraw results: {args.csv}")


if __name__ == "__main__":
    main()
