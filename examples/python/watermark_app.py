#!/usr/bin/env python3
"""Embedding the watermark element from Python (PyGObject, Debian's python3-gst-1.0).

Builds videotestsrc → watermark → x264enc → mp4mux → file, fades the logo in with a
GstController on `opacity`, updates the caption's variable (a GstStructure) from a timer while
playing, and handles the bus until EOS.

    python3 watermark_app.py out.mp4 [logo.svg]

The plugin must be installed (make install) or found through GST_PLUGIN_PATH.
"""
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstController", "1.0")
from gi.repository import GLib, Gst, GstController  # noqa: E402


def main(argv):
    output = argv[1] if len(argv) > 1 else "watermark-app.mp4"
    logo = argv[2] if len(argv) > 2 else None
    Gst.init(None)

    pipeline = Gst.parse_launch(
        "videotestsrc is-live=true num-buffers=90 ! video/x-raw,width=640,height=360,framerate=30/1 "
        "! watermark name=wm ! videoconvert ! x264enc tune=zerolatency speed-preset=superfast "
        f"! mp4mux ! filesink location={output}"
    )
    wm = pipeline.get_by_name("wm")
    if wm is None:
        print("the watermark element is missing (install it or set GST_PLUGIN_PATH)", file=sys.stderr)
        return 1
    wm.set_property("text", "Starting…")
    wm.set_property("anchor", "bottom-left")
    if logo:
        wm.set_property("image", logo)

    # Fade the whole overlay in over the first second: opacity is controllable.
    source = GstController.InterpolationControlSource()
    source.set_property("mode", GstController.InterpolationMode.LINEAR)
    source.set(0, 0.0)
    source.set(1 * Gst.SECOND, 1.0)
    wm.add_control_binding(GstController.DirectControlBinding.new_absolute(wm, "opacity", source))

    loop = GLib.MainLoop()
    state = {"count": 0, "code": 0}

    # The caption's number is a variable: an application sets `variables`, a GstStructure,
    # and the next frame shows the new values (all of them together).
    wm.set_property("text", "Donations: {var:total} €")

    def tick():
        state["count"] += 1
        wm.set_property("variables", Gst.Structure.new_from_string(f"v, total=(int){state['count'] * 5}"))
        print(f"variables: {wm.get_property('variables').to_string()}", flush=True)
        return True

    def on_message(_bus, msg):
        if msg.type == Gst.MessageType.ERROR:
            err, _debug = msg.parse_error()
            print(f"error from {msg.src.get_name()}: {err.message}", file=sys.stderr)
            state["code"] = 1
            loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()
        return True

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    GLib.timeout_add(500, tick)
    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        print("could not start the pipeline", file=sys.stderr)
        return 1
    loop.run()
    pipeline.set_state(Gst.State.NULL)
    if state["code"] == 0:
        print(f"wrote {output}")
    return state["code"]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
