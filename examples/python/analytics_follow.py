#!/usr/bin/env python3
"""Detections described with GStreamer's analytics metadata (1.24 and later), followed by the
watermark element: blurred, boxed and labelled where each frame says.

An application (here one that makes its frames and pushes them through appsrc, standing in
for a detector and a tracker) attaches a GstAnalyticsRelationMeta to each frame: an object-detection entry for a box that moves, a
classification entry related to it (its class, "person") and a tracking entry (id 7). The
element reads the class, the confidence and the tracking id from them as it reads a
GstVideoRegionOfInterestMeta's type, confidence param and id.

    python3 analytics_follow.py DIR [--frames N] [--no-meta]

Writes each frame as DIR/frame-NNN.png and prints its box as "box N: x y w h". With
--no-meta the same frames go through without metadata (a reference). Needs Debian 13's
gir1.2-gst-plugins-bad-1.0 (GstAnalytics-1.0) and the plugin (make install or GST_PLUGIN_PATH).
"""
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstAnalytics", "1.0")
from gi.repository import GLib, Gst, GstAnalytics  # noqa: E402


def box(n):
    """The object's box on frame n: 64×48, moving right 4 pixels a frame."""
    return 40 + 4 * n, 60, 64, 48


WIDTH, HEIGHT = 320, 240


def picture():
    """An I420 frame: a luma checkerboard of 8-pixel squares, neutral chroma."""
    luma = bytes(200 if (x // 8 + y // 8) % 2 else 40 for y in range(HEIGHT) for x in range(WIDTH))
    return luma + bytes([128]) * (WIDTH * HEIGHT // 2)


def describe(buffer, n):
    """What a detector and a tracker would attach to frame n: the box, its class, its track."""
    x, y, w, h = box(n)
    meta = GstAnalytics.buffer_add_analytics_relation_meta(buffer)
    ok, od = meta.add_od_mtd(GLib.quark_from_string("object"), x, y, w, h, 0.9)
    ok2, cls = meta.add_one_cls_mtd(0.8, GLib.quark_from_string("person"))
    ok3, track = meta.add_tracking_mtd(7, buffer.pts)
    if not (ok and ok2 and ok3):
        raise RuntimeError("could not attach the analytics metadata")
    meta.set_relation(GstAnalytics.RelTypes.RELATE_TO, od.id, cls.id)
    meta.set_relation(GstAnalytics.RelTypes.RELATE_TO, track.id, od.id)
    print(f"box {n}: {x} {y} {w} {h}", flush=True)


def main(argv):
    folder = argv[1] if len(argv) > 1 and not argv[1].startswith("--") else "."
    frames = int(argv[argv.index("--frames") + 1]) if "--frames" in argv else 10
    with_meta = "--no-meta" not in argv
    Gst.init(None)
    pipeline = Gst.parse_launch(
        f"appsrc name=app format=time caps=video/x-raw,format=I420,width={WIDTH},height={HEIGHT},framerate=30/1 "
        "! watermark name=wm roi-fill=blur mask-radius=0.02 roi-box-color=0xFF00FF00 roi-box-width=0.01 "
        'roi-label="{roi:type} #{roi:id} {roi:confidence:%.0f}%" roi-min-confidence=0.5 '
        "! videoconvert ! video/x-raw,format=RGB ! pngenc ! multifilesink "
        f"location={folder}/frame-%03d.png"
    )
    if pipeline.get_by_name("wm") is None:
        print("the watermark element is missing (install it or set GST_PLUGIN_PATH)", file=sys.stderr)
        return 1
    app = pipeline.get_by_name("app")
    pipeline.set_state(Gst.State.PLAYING)
    frame = picture()
    for n in range(frames):
        # A buffer the application made is writable: its metas are added before it is pushed.
        buffer = Gst.Buffer.new_wrapped(frame)
        buffer.pts = n * Gst.SECOND // 30
        buffer.duration = Gst.SECOND // 30
        if with_meta:
            describe(buffer, n)
        app.emit("push-buffer", buffer)
    app.emit("end-of-stream")
    msg = pipeline.get_bus().timed_pop_filtered(Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if msg.type == Gst.MessageType.ERROR:
        err, _ = msg.parse_error()
        print(f"error: {err.message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
