#!/usr/bin/python3
"""NULL → PLAYING → EOS → NULL cycles of one pipeline (image, text with a placeholder and a
3-layer config) in one process; prints the resident memory after warm-up and at the end.

    GST_PLUGIN_PATH=… /usr/bin/python3 Tests/reliability/cycles.py CYCLES CONFIG LOGO [WARM_UP]

WARM_UP cycles (default 50) run before the first measurement.
"""
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    cycles, config, logo = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    Gst.init(None)
    description = (f"videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=320,height=240 ! "
                   f'watermark image="{logo}" text="cycle {{frame}}" config="{config}" ! fakesink')
    failures = 0
    warm_up = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    before = 0
    for i in range(warm_up + cycles):
        if i == warm_up:
            before = rss_kb()
        pipeline = Gst.parse_launch(description)
        pipeline.set_state(Gst.State.PLAYING)
        msg = pipeline.get_bus().timed_pop_filtered(60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if msg is None or msg.type != Gst.MessageType.EOS:
            failures += 1
        pipeline.set_state(Gst.State.NULL)
        del pipeline
    print(f"cycles={cycles} failures={failures} rss_before_kb={before} rss_after_kb={rss_kb()}")


if __name__ == "__main__":
    main()
