#!/usr/bin/python3
"""Soak: a live 1080p30 capture with a logo and a clock layer, encoded to H.264 in an MP4,
for SECONDS (default 600). Every 10 s it prints resident memory and frame counts; at the
end: frames produced by the live source, frames through the element, frames encoded,
frames dropped (expected from the wall clock minus frames through the element), RSS
growth, and whether the file plays to the end.

    GST_PLUGIN_PATH=… /usr/bin/python3 Tests/reliability/soak.py [SECONDS] [OUTPUT.mp4]
Exit status 1 on an error, a leak (RSS growth > 5 MB after warm-up: the first minute, or
a quarter of a shorter run) or a file that does not play.
"""
import os
import statistics
import subprocess
import sys
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def count(element, pad_name, counter, key):
    pad = element.get_static_pad(pad_name)

    def probe(_pad, _info):
        counter[key] += 1
        return Gst.PadProbeReturn.OK
    pad.add_probe(Gst.PadProbeType.BUFFER, probe)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 600
    out = sys.argv[2] if len(sys.argv) > 2 else "/tmp/wm-soak.mp4"
    Gst.init(None)
    logo = os.path.join(ROOT, "assets", "logo.svg")
    pipeline = Gst.parse_launch(
        "videotestsrc is-live=true pattern=smpte name=src ! video/x-raw,width=1920,height=1080,framerate=30/1 ! "
        f'watermark name=wm image="{logo}" text="{{clock:%H:%M:%S}} · frame {{frame}}" ! queue max-size-buffers=60 leaky=downstream name=q ! '
        "x264enc tune=zerolatency speed-preset=ultrafast name=enc ! h264parse ! mp4mux ! "
        f'filesink location="{out}"')
    counts = {"source": 0, "element": 0, "encoded": 0}
    count(pipeline.get_by_name("src"), "src", counts, "source")
    count(pipeline.get_by_name("wm"), "src", counts, "element")
    count(pipeline.get_by_name("enc"), "src", counts, "encoded")
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    start = time.monotonic()
    rss_start = rss_mb()
    # Baseline after warm-up (encoder and fonts loaded): 60 s in, or a quarter of a short run.
    # Resident memory swings by a frame or so (queues, buffer pools) from one moment to the
    # next: the baseline and the end are medians over 10 s windows, so a leak (a lasting
    # rise) shows and a swing does not.
    warm = min(60.0, seconds / 4)
    window = min(10.0, seconds / 6)
    rss_samples = []
    next_report = 10
    error = None
    while time.monotonic() - start < seconds:
        msg = bus.timed_pop_filtered(200 * Gst.MSECOND, Gst.MessageType.ERROR)
        if msg:
            error = msg.parse_error()[0].message
            break
        t = time.monotonic() - start
        rss_samples.append((t, rss_mb()))
        if t >= next_report:
            print(f"t={t:5.0f}s  rss={rss_mb():6.1f} MB  source={counts['source']}  element={counts['element']}  encoded={counts['encoded']}", flush=True)
            next_report += 10
    elapsed = time.monotonic() - start
    rss_end = rss_mb()
    pipeline.send_event(Gst.Event.new_eos())
    bus.timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    after_warm = [r for t, r in rss_samples if warm <= t < warm + window] or [rss_start]
    last = [r for t, r in rss_samples if t >= elapsed - window] or [rss_end]
    base, rss_end = statistics.median(after_warm), statistics.median(last)
    expected = int(elapsed * 30)
    # Frames the element lost (it must lose none) and frames the machine could not produce
    # or encode in real time (the source and encoder falling behind the clock).
    lost = counts["source"] - counts["element"]
    dropped = max(0, expected - counts["encoded"])
    plays = subprocess.run(["gst-discoverer-1.0", out], capture_output=True, text=True).returncode == 0
    print(f"soak: {elapsed:.0f} s live 1080p30, source {counts['source']} frames, element {counts['element']}, "
          f"encoded {counts['encoded']}, lost in the element {lost}, behind real time {dropped} of {expected}, "
          f"RSS {rss_start:.1f} → {rss_end:.1f} MB (growth {rss_end - base:+.1f} MB after {warm:.0f} s of warm-up; "
          f"medians of {window:.0f} s), "
          f"file {'plays' if plays else 'DOES NOT PLAY'}{', error: ' + error if error else ''}")
    bad = error or not plays or rss_end - base > 5 or lost > 1
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
