#!/usr/bin/python3
"""The watermark element next to GStreamer's own overlays and ffmpeg, in one run.

Every case is `videotestsrc num-buffers=N pattern=black ! caps ! CASE ! fakesink`, run to
EOS in this process (PyGObject). Cases run interleaved (A B C … A B C …) for several rounds
so a noisy machine affects all alike; each round's no-overlay baseline (`identity`) is
subtracted, giving the extra cost per frame. ffmpeg cases generate their source inside the
filter graph (`color=`), and their own no-overlay graph is their baseline.

Printed: per size and format, µs/frame median [min–max] per case and its ratio to ours,
the memory-traffic floor of our blend (from blend-bench), then per-frame distributions of
live-text cases (GStreamer's latency tracer), peak RSS per pipeline, optionally an export
end to end, and every target of the performance issue with PASS/FAIL.
Written: Benchmarks/results/bench.csv (every sample), bench.json (summary), and
docs/benchmark.png (chart).

    make build   # release plugin and blend-bench
    GST_PLUGIN_PATH=$PWD/.build/release /usr/bin/python3 Benchmarks/bench.py [--quick] [--export]

Needs python3-gst-1.0 and, for the chart and the ffmpeg peer, python3-matplotlib and
ffmpeg (`apt-get install python3-matplotlib ffmpeg`); without them those parts are skipped.
Never benchmark a debug build.
"""
import argparse
import csv
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGO = os.path.join(ROOT, "assets", "logo.png")
TEXT = "© ACME 2026 watermark"  # 20-odd characters, as in the reference measurements
# One line of text 3.5 % of the frame height: at 1080p a ~390×40 box (38 px line and its
# outline), the reference geometry of the targets (a 230×80 logo plus a 390×40 text box). The
# element's default (5 %) doubles the text's area; ffmpeg's drawtext gets the same size.
TEXT_SIZE = 0.035
# A news crawl's line: wider than a 1080p frame at TEXT_SIZE, so one or two copies are in view.
CRAWL = ("Markets close higher as tech shares rally • Rain clearing by the afternoon, 21 °C "
         "• Tonight at nine: the city council vote, live")
RESULTS = os.path.join(ROOT, "Benchmarks", "results")
CHART = os.path.join(ROOT, "docs", "benchmark.png")
OURS = "watermark logo+text"
BOX = "watermark logo+text, half-transparent box"
BOTH = "textoverlay ! gdkpixbufoverlay"

# (size, format) configurations of the table, plus our 2160p NV12/BGRA targets.
CONFIGS = [("1280x720", "I420"), ("1920x1080", "I420"), ("1920x1080", "NV12"), ("1920x1080", "BGRA"),
           ("3840x2160", "I420"), ("3840x2160", "NV12"), ("3840x2160", "BGRA")]


def three_layer_config(directory):
    path = os.path.join(directory, "layers.json")
    with open(path, "w") as f:
        json.dump({"layers": [
            {"image": LOGO, "anchor": "top-left", "width": 0.12},
            {"text": TEXT, "anchor": "bottom-left", "text-size": TEXT_SIZE},
            {"text": "{clock:%H:%M:%S}", "anchor": "top-right", "font-desc": "Monospace Bold", "text-size": TEXT_SIZE},
        ]}, f)
    return path


def data_files(directory):
    """A data file whose value is the frame number at 30 fps (so `{data:n:%.0f}` draws what
    `{frame}` draws, every frame a new text), and configs of a small marker: placed still,
    and with x bound to a field that moves it every frame."""
    csv_path = os.path.join(directory, "frames.csv")
    with open(csv_path, "w") as f:
        f.write("time,n,x\n0,0,0\n1000,30000,1000\n")
    marker = {"image": LOGO, "anchor": "center", "y": 0.5, "width": 0.05}
    still = os.path.join(directory, "marker-still.json")
    with open(still, "w") as f:
        json.dump({"layers": [{**marker, "x": 0.5}]}, f)
    bound = os.path.join(directory, "marker-bound.json")
    with open(bound, "w") as f:
        # x sweeps 0.1 → 0.9 over 20 s: a new place every frame.
        json.dump({"data": csv_path, "layers": [
            {**marker, "bind": {"x": {"value": "data:x", "from": [0, 20], "to": [0.1, 0.9]}}}]}, f)
    return csv_path, still, bound


def animated_logo(directory):
    """The logo as a 3-frame animated GIF (the logo, its hue turned 120° and 240°; 100 ms each,
    looping; made with ffmpeg's palettegen/paletteuse, transparency kept), or None without ffmpeg."""
    path = os.path.join(directory, "logo-animated.gif")
    if not os.path.exists(path):
        if not shutil.which("ffmpeg"):
            return None
        graph = ("[0]format=yuva444p,split=3[a][b][c];[b]hue=h=120[b1];[c]hue=h=240[c1];"
                 "[a][b1][c1]concat=n=3:v=1:a=0,settb=1/10,setpts=N,format=rgba,split[x][y];"
                 "[x]palettegen=reserve_transparent=1:stats_mode=full[p];[y][p]paletteuse=alpha_threshold=128")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", LOGO, "-filter_complex", graph, "-r", "10",
                        "-loop", "0", path], check=True, capture_output=True)
    return path


def geometry(width, height):
    """Where our logo + text go at bottom-right (the element's defaults: margins 3 %, logo
    12 % of the width above the text, gap 0.2 lines), for placing the peers identically."""
    margin_x, margin_y = round(width * 0.03), round(height * 0.03)
    line = height * TEXT_SIZE
    logo = round(width * 0.12)  # the bundled logo is square
    # Our text box: the line plus the outline's padding (0.08 lines + 1 px) above and below.
    text_h = round(line) + 2 * (int(line * 0.08 + 0.999) + 1)
    gap = round(0.2 * line)
    return {"margin_x": margin_x, "margin_y": margin_y, "line": line, "logo": logo, "text_h": text_h,
            "logo_y_from_bottom": margin_y + text_h + gap + logo,
            # DejaVu Sans Bold's line is 1.164 em: the font size whose line is ours.
            "font_px": line / 1.164, "outline": max(1, round(line * 0.08)),
            # Our glyphs' baseline sits above the box's bottom by the outline's padding and the
            # font's descent (0.236 em): where drawtext's box (th) must end.
            "text_bottom": margin_y + int(line * 0.08 + 0.999) + 1 + round(0.236 * line / 1.164)}


def prescaled_logo(directory, size):
    """The bundled logo scaled once to the pixel size the watermark draws it at (aspect
    kept), for the peers that would otherwise scale it per frame."""
    path = os.path.join(directory, f"logo-{size}.png")
    if not os.path.exists(path):
        subprocess.run(["gst-launch-1.0", "-q", "filesrc", f"location={LOGO}", "!", "pngdec", "!", "videoconvert", "!",
                        "videoscale", "!", f"video/x-raw,format=RGBA,width={size},height={size}", "!", "pngenc", "!",
                        "filesink", f"location={path}"], check=True)
    return path


def gst_cases(width, config, height=None, opacity=1.0, tmp=None):
    """The cases; the peers draw the same picture as ours (same logo pixels and place, the
    same text at the same pixel height and place, the same opacity), each configured as a
    speed-minded user would: gdkpixbufoverlay given the logo pre-scaled (no per-frame
    scaling), textoverlay with auto-resize=false."""
    height = height or width * 9 // 16
    g = geometry(width, height)
    logo = prescaled_logo(tmp or tempfile.gettempdir(), g["logo"])
    animated = animated_logo(tmp or tempfile.gettempdir())
    data = data_files(tmp or tempfile.gettempdir())
    alpha = f"{round(opacity * 255):02X}"
    # Negative offsets place the image's right and bottom edges from the frame's.
    pixbuf = (f'gdkpixbufoverlay location="{logo}" offset-x={-g["margin_x"]} '
              f'offset-y={-(g["logo_y_from_bottom"] - g["logo"])} '
              f"alpha={opacity}")
    text = (f'textoverlay text="{TEXT}" auto-resize=false font-desc="DejaVu Sans Bold {g["font_px"] * 0.75:.1f}" '
            f"valignment=bottom halignment=right xpad={g['margin_x']} ypad={g['margin_y']} draw-shadow=false "
            f"color=0x{alpha}FFFFFF outline-color=0x{alpha}000000")
    ours = f'image="{LOGO}" text="{TEXT}" text-size={TEXT_SIZE} opacity={opacity} overlay-mode=blend'
    return {
        "baseline": "identity",
        OURS: f"watermark {ours}",
        BOX: f"watermark {ours} background-color=0x80000000",
        # Moving: rendered once, blended at a new place every frame (a ticker's copies each).
        "watermark logo+text, bouncing": f"watermark {ours} motion=bounce motion-speed=0.1",
        # Tickers start empty, their first copy coming in at the right edge: at half the
        # frame's width a second, copies fill the frame after the first 2 s of the 10–20 s.
        "watermark logo+text, ticker": f"watermark {ours} motion=ticker motion-speed=0.5",
        "watermark text crawl, still": f'watermark text="{CRAWL}" text-size={TEXT_SIZE} opacity={opacity} '
                                       f"overlay-mode=blend",
        "watermark text crawl, ticker": f'watermark text="{CRAWL}" text-size={TEXT_SIZE} opacity={opacity} '
                                        f"overlay-mode=blend motion=ticker motion-speed=0.5",
        **({"watermark animated GIF logo+text": f'watermark image="{animated}" text="{TEXT}" text-size={TEXT_SIZE} '
                                              f"opacity={opacity} overlay-mode=blend"} if animated else {}),
        "watermark clock (logo+{clock})": f'watermark image="{LOGO}" text="{{clock:%H:%M:%S}}" text-size={TEXT_SIZE} overlay-mode=blend',
        "watermark {frame}": f'watermark text="{{frame}}" text-size={TEXT_SIZE} overlay-mode=blend',
        # The same digits from a data file, interpolated to every frame's time.
        "watermark {data} every frame": f'watermark data-file="{data[0]}" text="{{data:n:%.0f}}" '
                                        f"text-size={TEXT_SIZE} overlay-mode=blend",
        "watermark marker, still": f'watermark config="{data[1]}" overlay-mode=blend',
        "watermark marker, x bound to data": f'watermark config="{data[2]}" overlay-mode=blend',
        "watermark 3-layer config": f'watermark config="{config}" overlay-mode=blend',
        "watermark passthrough": "watermark",
        "identity (noise reference)": "identity",
        "textoverlay": text,
        "gdkpixbufoverlay": pixbuf,
        BOTH: f"{text} ! {pixbuf}",
        "timeoverlay": "timeoverlay",
    }


def ffmpeg_graph(width, height, fmt, frames, overlay, opacity=1.0, tmp=None):
    """ffmpeg's best graph for the same picture: the logo pre-scaled, its opacity applied and
    converted once to the frame's format family (yuva420p for I420/NV12, RGBA for BGRA),
    overlay in that family (no per-frame conversion), drawtext at the same size and place."""
    pix = {"I420": "yuv420p", "NV12": "nv12", "BGRA": "bgra"}[fmt]
    src = f"color=c=black:s={width}x{height}:r=30,format={pix},trim=end_frame={frames}"
    if not overlay:
        return f"{src}[out]"
    g = geometry(width, height)
    logo = prescaled_logo(tmp or tempfile.gettempdir(), g["logo"])
    family, ov = ("rgba", "rgb") if fmt == "BGRA" else ("yuva420p", "yuv420")
    return (f"{src}[bg];movie={logo},format=rgba,colorchannelmixer=aa={opacity},format={family},loop=-1:1:0[lg];"
            f"[bg][lg]overlay=x=W-w-{g['margin_x']}:y=H-{g['logo_y_from_bottom']}:format={ov}:shortest=1,"
            f"drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf:text='{TEXT}':fontsize={g['font_px']:.1f}:"
            f"fontcolor=white@{opacity}:borderw={g['outline']}:bordercolor=black@{opacity}:"
            f"x=w-tw-{g['margin_x']}:y=h-{g['text_bottom']}-th[out]")


def run_ffmpeg(graph):
    out = subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-benchmark", "-filter_complex", graph,
                          "-map", "[out]", "-f", "null", "-"], capture_output=True, text=True)
    m = re.search(r"rtime=([0-9.]+)s", out.stderr)
    if out.returncode != 0 or not m:
        raise RuntimeError(f"ffmpeg failed: {out.stderr[-400:]}")
    return float(m.group(1))


def run_gst(description, cpu=False):
    """Wall seconds from PLAYING to EOS; with `cpu`, also the CPU seconds (user + system,
    every thread of this process: the pipeline runs in it) spent meanwhile."""
    pipeline = Gst.parse_launch(description)
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PAUSED)
    pipeline.get_state(Gst.CLOCK_TIME_NONE)
    start, cpu_start = time.perf_counter(), time.process_time()
    pipeline.set_state(Gst.State.PLAYING)
    msg = bus.timed_pop_filtered(300 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    elapsed, cpu_time = time.perf_counter() - start, time.process_time() - cpu_start
    pipeline.set_state(Gst.State.NULL)
    if msg is None or msg.type == Gst.MessageType.ERROR:
        raise RuntimeError(f"failed: {description}: {msg.parse_error()[0].message if msg else 'timeout'}")
    return (elapsed, cpu_time) if cpu else elapsed


def floors():
    """Our blend's memory-traffic floor per size and format, from blend-bench."""
    exe = os.path.join(ROOT, ".build", "release", "blend-bench")
    if not os.access(exe, os.X_OK):
        return {}, None
    out = subprocess.run([exe, ROOT, "floors"], capture_output=True, text=True).stdout
    result, bandwidth = {}, None
    for line in out.splitlines():
        parts = line.split()
        if parts[0] == "bandwidth":
            bandwidth = float(parts[1])
        elif len(parts) == 3:
            result[(parts[0], parts[1])] = float(parts[2])
    return result, bandwidth


def latency_distribution(head, case, frames):
    """Per-frame time inside the element (GStreamer's latency tracer, element scope)."""
    env = dict(os.environ, GST_TRACERS="latency(flags=element)", GST_DEBUG="GST_TRACER:7", GST_DEBUG_NO_COLOR="1")
    desc = f"{head.replace('num-buffers=N', f'num-buffers={frames}')} ! {case} name=probe ! fakesink"
    # Through a shell: it removes the launch line's quotes, and gst-launch re-escapes each word.
    out = subprocess.run(["sh", "-c", f"exec gst-launch-1.0 -q {desc}"], capture_output=True, text=True, env=env)
    times = [int(m.group(1)) / 1000 for m in re.finditer(r"element=\(string\)probe, src=\(string\)src, time=\(guint64\)(\d+)", out.stderr)]
    if not times:
        raise RuntimeError(f"no latency records for {case}: {out.stderr[-300:]}")
    times.sort()
    return {"mean": statistics.fmean(times), "median": times[len(times) // 2],
            "p99.9": times[min(len(times) - 1, int(len(times) * 0.999))], "max": times[-1], "frames": len(times)}


def peak_rss(argv):
    """Peak resident set size (MB) of a command, from GNU time (a child forked from this
    Python process would count Python's own pages as its peak)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"failed: {' '.join(argv)}: {out.stderr[-300:]}")
    return int(out.stderr.strip().splitlines()[-1]) / 1024


EXPORT_ROUNDS = 3


def export_end_to_end(tmp, seconds):
    """Re-encoding a 1080p30 H.264+AAC file with no overlay (twice: the second is the noise
    reference), ours, and the stock pair, interleaved over EXPORT_ROUNDS rounds: median CPU
    seconds (what the element adds; wall time on a shared 2-core machine varies by ±20 %)
    and median wall seconds per variant."""
    src = os.path.join(tmp, "source.mp4")
    frames = seconds * 30
    subprocess.run(["gst-launch-1.0", "-q", "-e", "videotestsrc", f"num-buffers={frames}", "pattern=smpte", "!",
                    "video/x-raw,width=1920,height=1080,framerate=30/1", "!", "x264enc", "speed-preset=ultrafast", "!",
                    "h264parse", "!", "mp4mux", "name=m", "!", "filesink", f"location={src}",
                    "audiotestsrc", f"num-buffers={seconds * 48000 // 1024}", "samplesperbuffer=1024", "!",
                    "audio/x-raw,rate=48000,channels=2", "!", "audioconvert", "!", "avenc_aac", "!", "aacparse", "!", "m."],
                   check=True)
    logo_w = int(1920 * 0.12)
    variants = {
        "no overlay": "identity",
        "no overlay (again)": "identity",
        "watermark": f'watermark image="{LOGO}" text="{TEXT}" text-size={TEXT_SIZE}',
        BOTH: (f'textoverlay text="{TEXT}" auto-resize=false valignment=bottom halignment=right ! '
               f'gdkpixbufoverlay location="{LOGO}" overlay-width={logo_w} overlay-height={logo_w} '
               "relative-x=0.85 relative-y=0.75 alpha=0.8"),
    }
    cpu = {k: [] for k in variants}
    wall = {k: [] for k in variants}

    def export(case):
        out = os.path.join(tmp, "export.mp4")
        return run_gst(f'filesrc location="{src}" ! qtdemux name=d d.video_0 ! queue ! h264parse ! avdec_h264 ! {case} ! '
                       f'videoconvert ! x264enc speed-preset=veryfast ! h264parse ! mp4mux name=m ! filesink location="{out}" '
                       "d.audio_0 ! queue ! aacparse ! m.", cpu=True)
    export(variants["watermark"])  # warm-up (file cache, plugins, fonts): not counted
    for _ in range(EXPORT_ROUNDS):
        for name, case in variants.items():
            w, c = export(case)
            wall[name].append(w)
            cpu[name].append(c)
    return {k: {"cpu_s": statistics.median(cpu[k]), "wall_s": statistics.median(wall[k]), "cpu_runs": cpu[k]}
            for k in variants}


def fair(args, tmp, config, have_ffmpeg):
    """Every peer drawing the same picture (see gst_cases and ffmpeg_graph) at 1080p, at
    opacity 1 and 0.8, interleaved; one frame of each saved to Benchmarks/results/."""
    w, h = 1920, 1080
    summary, rows = {}, []
    print("\nfair comparison, 1080p: the same logo pixels and place, the same text size and place, the same opacity")
    for opacity in (1.0, 0.8):
        for fmt in ("I420", "NV12", "BGRA"):
            head = f"videotestsrc num-buffers={args.frames} pattern=black ! video/x-raw,format={fmt},width={w},height={h},framerate=30/1"
            cases = gst_cases(w, config, h, opacity, tmp)
            results = {OURS: [], BOTH: []}
            if have_ffmpeg:
                results["ffmpeg overlay+drawtext"] = []
            for _ in range(args.rounds):
                base = run_gst(f"{head} ! identity ! fakesink sync=false")
                for name in (OURS, BOTH):
                    results[name].append((run_gst(f"{head} ! {cases[name]} ! fakesink sync=false") - base) / args.frames * 1e6)
                if have_ffmpeg:
                    fb = run_ffmpeg(ffmpeg_graph(w, h, fmt, args.frames, False, opacity, tmp))
                    fc = run_ffmpeg(ffmpeg_graph(w, h, fmt, args.frames, True, opacity, tmp))
                    results["ffmpeg overlay+drawtext"].append((fc - fb) / args.frames * 1e6)
            med = {n: statistics.median(v) for n, v in results.items()}
            ours = med[OURS]
            print(f"  opacity {opacity} {fmt}")
            for name, values in results.items():
                ratio = f"{med[name] / ours:6.1f}× ours" if name != OURS and ours > 0 else ""
                print(f"    {name:32s} {med[name]:8.1f}  [{min(values):7.1f} – {max(values):7.1f}]  {ratio}")
                for v in values:
                    rows.append({"opacity": opacity, "format": fmt, "case": name, "extra_us_per_frame": round(v, 2)})
            summary[f"{opacity} {fmt}"] = med
        # One frame of each, on the test pattern, to look at side by side.
        frame_head = f"videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format=I420,width={w},height={h}"
        cases = gst_cases(w, config, h, opacity, tmp)
        for name, tag in ((OURS, "watermark"), (BOTH, "textoverlay-gdkpixbufoverlay")):
            out = os.path.join(RESULTS, f"fair-{tag}-{opacity}.png")
            run_gst(f"{frame_head} ! {cases[name]} ! videoconvert ! pngenc ! filesink location={out}")
        if have_ffmpeg:
            graph = ffmpeg_graph(w, h, "I420", 1, True, opacity, tmp).replace("color=c=black:", "smptehdbars=")
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-filter_complex", graph, "-map", "[out]", "-frames:v", "1",
                            os.path.join(RESULTS, f"fair-ffmpeg-{opacity}.png")], check=True)
    print("\ntargets (fair comparison, 1080p)")
    for key, med in summary.items():
        opacity, fmt = key.split()
        ours = med[OURS]
        checks = [(f"ours ≤ {20 if fmt != 'BGRA' else 40} µs", ours <= (20 if fmt != "BGRA" else 40)),
                  (f"≥ {15 if fmt != 'BGRA' else 5}× textoverlay ! gdkpixbufoverlay", med[BOTH] / ours >= (15 if fmt != "BGRA" else 5))]
        if "ffmpeg overlay+drawtext" in med and fmt != "BGRA":
            checks.append(("≥ 10× ffmpeg", med["ffmpeg overlay+drawtext"] / ours >= 10))
        for label, ok in checks:
            print(f"  opacity {opacity} {fmt:5s} {label:40s} {'PASS' if ok else 'FAIL'}")
    with open(os.path.join(RESULTS, "fair.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=["opacity", "format", "case", "extra_us_per_frame"])
        wr.writeheader()
        wr.writerows(rows)
    with open(os.path.join(RESULTS, "fair.json"), "w") as f:
        json.dump(summary, f, indent=1)

# A quarter of a 1080p frame (half its width, half its height), centred: the masks' region.
MASK = (480, 270, 960, 540)
ROI_CASES = {
    "watermark 10 ROIs: boxes + labels": 'watermark roi-box-color=0xFF00FF00 roi-label="{roi:type} {roi:confidence:%.0f}%" '
                                         "text-size=0.025",
    "watermark 10 ROIs: blurred": "watermark roi-fill=blur",
}


def roi_drawbox_graph(frames, labels=True):
    """ffmpeg's drawbox + drawtext for the same ten moving boxes roi-bench attaches (its
    paths as expressions of the frame number n), or its no-overlay graph."""
    src = f"color=c=black:s=1920x1080:r=30,format=yuv420p,trim=end_frame={frames}"
    if labels is None:
        return f"{src}[out]"
    filters = []
    font = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    for i in range(10):
        x = f"(40+{(i % 5) * 360}+mod(n*{3 + i}\\,160))"
        y = f"(100+{(i // 5) * 480}+mod(n*{2 + i}\\,200))"
        # drawbox evaluates its place once (ffmpeg 5.1): the boxes stay where frame 0 has them
        # (what a box costs does not depend on where it is); the labels move.
        x0, y0 = 40 + (i % 5) * 360, 100 + (i // 5) * 480
        filters.append(f"drawbox=x={x0 - 4}:y={y0 - 4}:w=168:h=128:color=0x00FF00:t=4")
        if labels:
            kind, conf = ("car" if i % 3 == 0 else "face"), round((0.5 + ((i * 7) % 5) / 10) * 100)
            filters.append(f"drawtext=fontfile={font}:text='{kind} {conf}%%':fontsize=22:fontcolor=white:"
                           f"borderw=2:bordercolor=black:x='{x}-4':y='{y}-4-th-6'")
    return f"{src}," + ",".join(filters) + "[out]"


def hiding(args, have_ffmpeg):
    """Privacy masks and regions of interest at 1080p I420 beside ffmpeg's best graphs for the
    same work: a pixelated and a blurred quarter of the frame (crop + scale down/up or
    boxblur/gblur + overlay), and ten moving boxes with labels (drawbox + drawtext)."""
    w, h, frames = 1920, 1080, args.frames
    x, y, mw, mh = MASK
    region = f"{x / w},{y / h},{mw / w},{mh / h}"
    cell, sigma = round(0.025 * w), 0.02 * w
    head = f"videotestsrc num-buffers={frames} pattern=black ! video/x-raw,format=I420,width={w},height={h},framerate=30/1"
    ours = {"pixelate": f'watermark mask="{region}" mask-fill=pixelate',
            "blur": f'watermark mask="{region}" mask-fill=blur'}
    src = f"color=c=black:s={w}x{h}:r=30,format=yuv420p,trim=end_frame={frames}"
    crop = f"{src},split[a][b];[b]crop={mw}:{mh}:{x}:{y}"
    peers = {"pixelate": {"ffmpeg crop+scale(area)+scale(neighbor)+overlay":
                          f"{crop},scale={mw // cell}:{mh // cell}:flags=area,scale={mw}:{mh}:flags=neighbor[p];"
                          f"[a][p]overlay={x}:{y}[out]"},
             "blur": {"ffmpeg crop+boxblur(3 passes)+overlay":
                      f"{crop},boxblur=luma_radius={round(sigma)}:luma_power=3:chroma_radius={round(sigma / 2)}:"
                      f"chroma_power=3[p];[a][p]overlay={x}:{y}[out]",
                      "ffmpeg crop+gblur+overlay": f"{crop},gblur=sigma={sigma:.1f}[p];[a][p]overlay={x}:{y}[out]"}}
    results = {}
    for _ in range(args.rounds):
        base = run_gst(f"{head} ! identity ! fakesink sync=false")
        for kind, case in ours.items():
            extra = (run_gst(f"{head} ! {case} ! fakesink sync=false") - base) / frames * 1e6
            results.setdefault((kind, f"watermark mask-fill={kind}"), []).append(extra)
        if have_ffmpeg:
            fb = run_ffmpeg(f"{src}[out]")
            for kind, graphs in peers.items():
                for name, graph in graphs.items():
                    results.setdefault((kind, name), []).append((run_ffmpeg(graph) - fb) / frames * 1e6)
    print(f"\nprivacy masks, 1080p I420, a quarter of the frame ({mw}×{mh} at {x},{y}); "
          f"µs/frame over each tool's no-overlay run, median [min – max] of {args.rounds} rounds")
    verdicts = []
    for kind in ours:
        mine = statistics.median(results[(kind, f"watermark mask-fill={kind}")])
        best = None
        for (k, name), values in results.items():
            if k != kind:
                continue
            med = statistics.median(values)
            ratio = f"{med / mine:6.1f}× ours" if not name.startswith("watermark") and mine > 0 else ""
            print(f"  {name:52s} {med:9.1f}  [{min(values):8.1f} – {max(values):8.1f}]  {ratio}")
            if not name.startswith("watermark"):
                best = med if best is None else min(best, med)
        if best is not None:
            verdicts.append((f"{kind}: ≥ 5× faster than ffmpeg's fastest graph ({best / mine:.1f}×)", best / mine >= 5))

    # Ten regions of interest moving on every frame, attached by roi-bench's probe.
    exe = os.path.join(ROOT, ".build", "release", "roi-bench")
    if os.access(exe, os.X_OK):
        out = subprocess.run([exe, str(frames), str(args.rounds)] + list(ROI_CASES.values()),
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"roi-bench failed: {out.stderr[-400:]}")
        times = {}
        for line in out.stdout.splitlines():
            case, seconds = line.rsplit("\t", 1)
            times.setdefault(case, []).append(float(seconds))
        base = times.pop("identity")
        print(f"\nten regions of interest per frame, each moving every frame (roi-bench), 1080p I420")
        roi = {}
        for name, case in ROI_CASES.items():
            extra = [(t - b) / frames * 1e6 for t, b in zip(times[case], base)]
            roi[name] = statistics.median(extra)
            print(f"  {name:52s} {roi[name]:9.1f}  [{min(extra):8.1f} – {max(extra):8.1f}]")
        if have_ffmpeg:
            fb = [run_ffmpeg(roi_drawbox_graph(frames, None)) for _ in range(args.rounds)]
            fc = [run_ffmpeg(roi_drawbox_graph(frames)) for _ in range(args.rounds)]
            extra = [(c - b) / frames * 1e6 for c, b in zip(fc, fb)]
            med = statistics.median(extra)
            mine = roi["watermark 10 ROIs: boxes + labels"]
            print(f"  {'ffmpeg 10× drawbox + drawtext':52s} {med:9.1f}  [{min(extra):8.1f} – {max(extra):8.1f}]"
                  f"  {med / mine:6.1f}× ours")
        verdicts.append(("10 moving ROIs with boxes and labels ≤ 300 µs/frame",
                         roi["watermark 10 ROIs: boxes + labels"] <= 300))
    else:
        print("\n(no .build/release/roi-bench: make build first for the ROI rows)")
    print("\ntargets (masks and regions of interest)")
    for label, ok in verdicts:
        print(f"  {label:70s} {'PASS' if ok else 'FAIL'}")


SUBTITLE_SCRIPT = """[Script Info]
ScriptType: v4.00+
PlayResX: 1920
PlayResY: 1080
ScaledBorderAndShadow: yes

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Default,DejaVu Sans,64,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,-1,0,0,0,100,100,0,0,1,3,2,2,60,60,54,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:00.00,9:00:00.00,Default,,0,0,0,,A two-line subtitle, {\\i1}styled{\\i0} with an outline,\\Nand a {\\c&H40C0FF&}coloured{\\c} shadowed second line
"""


def subtitles(args, tmp, have_ffmpeg):
    """Burned-in subtitles at 1080p I420, a two-line styled subtitle on every frame: the element
    beside assrender (fed the same script from Matroska) and ffmpeg's subtitles filter, then
    the combined job (subtitles + logo + text) beside ffmpeg's subtitles,overlay,drawtext."""
    w, h, frames = 1920, 1080, args.frames
    script = os.path.join(tmp, "bench.ass")
    with open(script, "w") as f:
        f.write(SUBTITLE_SCRIPT)
    # assrender takes ASS from a demuxer (subparse gives plain text): the script in Matroska.
    track = os.path.join(tmp, "bench-ass.mkv")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", script, "-c:s", "copy", track], check=True)
    head = f"videotestsrc num-buffers={frames} pattern=black ! video/x-raw,format=I420,width={w},height={h},framerate=30/1"
    cases = {
        "watermark subtitle-file": f'{head} ! watermark subtitle-file="{script}" ! fakesink sync=false',
        "assrender": f'{head} ! assrender name=r ! fakesink sync=false '
                     f'filesrc location="{track}" ! matroskademux ! r.text_sink',
        "watermark subtitles + logo + text": f'{head} ! watermark subtitle-file="{script}" image="{LOGO}" '
                                             f'text="{TEXT}" text-size={TEXT_SIZE} overlay-mode=blend ! fakesink sync=false',
    }
    src = f"color=c=black:s={w}x{h}:r=30,format=yuv420p,trim=end_frame={frames}"
    graphs = {"ffmpeg subtitles": f"{src},subtitles={script}[out]",
              "ffmpeg subtitles,overlay,drawtext": ffmpeg_graph(w, h, "I420", frames, True, 1.0, tmp).replace(
                  "format=yuv420p,trim", f"format=yuv420p,subtitles={script},trim")}
    results = {}
    for _ in range(args.rounds):
        base = run_gst(f"{head} ! identity ! fakesink sync=false")
        for name, desc in cases.items():
            results.setdefault(name, []).append((run_gst(desc) - base) / frames * 1e6)
        if have_ffmpeg:
            fb = run_ffmpeg(f"{src}[out]")
            for name, graph in graphs.items():
                results.setdefault(name, []).append((run_ffmpeg(graph) - fb) / frames * 1e6)
    print(f"\nburned-in subtitles, 1080p I420, a two-line styled subtitle on every frame; "
          f"µs/frame over each tool's no-overlay run, median [min – max] of {args.rounds} rounds")
    med = {name: statistics.median(v) for name, v in results.items()}
    pairs = {"watermark subtitle-file": ["assrender", "ffmpeg subtitles"],
             "watermark subtitles + logo + text": ["ffmpeg subtitles,overlay,drawtext"]}
    verdicts = []
    for ours, peers in pairs.items():
        for name in [ours] + peers:
            if name not in results:
                continue
            v = results[name]
            ratio = f"{med[name] / med[ours]:6.1f}× ours" if name != ours and med[ours] > 0 else ""
            print(f"  {name:52s} {med[name]:9.1f}  [{min(v):8.1f} – {max(v):8.1f}]  {ratio}")
            if name != ours:
                verdicts.append((f"{ours}: ≥ 3× faster than {name} ({med[name] / med[ours]:.1f}×)",
                                 med[name] / med[ours] >= 3))
    print("\ntargets (subtitles)")
    for label, ok in verdicts:
        print(f"  {label:70s} {'PASS' if ok else 'FAIL'}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--frames", type=int, default=600)
    ap.add_argument("--quick", action="store_true", help="3 rounds of 300 frames, 1080p only")
    ap.add_argument("--sizes", default="", help="only these sizes, e.g. 1920x1080,1280x720")
    ap.add_argument("--export", action="store_true", help="also time a 30 s 1080p export end to end")
    ap.add_argument("--fair", action="store_true",
                    help="only the fair comparison: every peer drawing the same picture, opacity 1 and 0.8")
    ap.add_argument("--hiding", action="store_true",
                    help="only privacy masks and regions of interest beside ffmpeg's graphs")
    ap.add_argument("--subtitles", action="store_true",
                    help="only burned-in subtitles beside assrender and ffmpeg's subtitles filter")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.frames = 3, 300
    Gst.init(None)
    if Gst.ElementFactory.find("watermark") is None:
        sys.exit("watermark element not found: set GST_PLUGIN_PATH=$PWD/.build/release (after make build)")
    os.makedirs(RESULTS, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="wm-bench-")
    config = three_layer_config(tmp)
    have_ffmpeg = shutil.which("ffmpeg") is not None
    if args.fair:
        fair(args, tmp, config, have_ffmpeg)
        return
    if args.hiding:
        hiding(args, have_ffmpeg)
        return
    if args.subtitles:
        subtitles(args, tmp, have_ffmpeg)
        return
    floor, bandwidth = floors()
    sizes = args.sizes.split(",") if args.sizes else (["1920x1080"] if args.quick else [])
    configs = [c for c in CONFIGS if not sizes or c[0] in sizes]

    print(f"gst-watermark benchmark — {time.strftime('%Y-%m-%d')} — {platform.node()}, {os.cpu_count()} cores, "
          f"GStreamer {Gst.version_string().split()[-1]}, "
          f"{'ffmpeg ' + subprocess.run(['ffmpeg', '-version'], capture_output=True, text=True).stdout.split()[2] if have_ffmpeg else 'no ffmpeg'}")
    if bandwidth:
        print(f"memory bandwidth (blend-bench memcpy, read + write): {bandwidth:.1f} GB/s")
    print(f"{args.rounds} rounds × {args.frames} frames per case; µs of extra time per frame over the no-overlay baseline")

    rows, summary = [], {"date": time.strftime("%Y-%m-%d"), "machine": platform.node(), "configs": {}}
    for size, fmt in configs:
        w, h = (int(v) for v in size.split("x"))
        head = f"videotestsrc num-buffers={args.frames} pattern=black ! video/x-raw,format={fmt},width={w},height={h},framerate=30/1"
        cases = gst_cases(w, config, h, 1.0, tmp)
        results = {name: [] for name in cases if name != "baseline"}
        use_ffmpeg = have_ffmpeg and size == "1920x1080"
        if use_ffmpeg:
            results["ffmpeg drawtext+overlay"] = []
        for _ in range(args.rounds):
            base = run_gst(f"{head} ! identity ! fakesink sync=false")
            for name, case in cases.items():
                if name == "baseline":
                    continue
                extra = (run_gst(f"{head} ! {case} ! fakesink sync=false") - base) / args.frames * 1e6
                results[name].append(extra)
                rows.append({"size": size, "format": fmt, "case": name, "extra_us_per_frame": round(extra, 2)})
            if use_ffmpeg:
                fb = run_ffmpeg(ffmpeg_graph(w, h, fmt, args.frames, False, 1.0, tmp))
                fc = run_ffmpeg(ffmpeg_graph(w, h, fmt, args.frames, True, 1.0, tmp))
                extra = (fc - fb) / args.frames * 1e6
                results["ffmpeg drawtext+overlay"].append(extra)
                rows.append({"size": size, "format": fmt, "case": "ffmpeg drawtext+overlay", "extra_us_per_frame": round(extra, 2)})
        fl = floor.get((size, fmt))
        print(f"\n{size} {fmt}" + (f"   (floor of our blend: {fl:.1f} µs)" if fl else ""))
        ours = statistics.median(results[OURS])
        med = {}
        for name, values in results.items():
            m = statistics.median(values)
            med[name] = m
            ratio = f"{m / ours:7.1f}× ours" if name != OURS and ours > 0 and not name.startswith("watermark") else ""
            floor_ratio = f"  {m / fl:4.1f}× floor" if name == OURS and fl else ""
            print(f"  {name:34s} {m:8.1f}  [{min(values):7.1f} – {max(values):7.1f}]  {ratio}{floor_ratio}")
        summary["configs"][f"{size} {fmt}"] = {"median_us": med, "floor_us": fl,
                                               "range_us": {n: [min(v), max(v)] for n, v in results.items()}}

    # Per-frame distributions of live text (1080p I420).
    # The tracer's own cost (timestamps and log lines) is measured on `identity` and
    # subtracted, so the figures are the element's work.
    print("\nper-frame time inside the element, 1080p I420 (latency tracer minus its cost on identity; includes re-renders)")
    head = "videotestsrc num-buffers=N pattern=black ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1"
    frames = 300 if args.quick else 3000
    tracer = latency_distribution(head, "identity", frames)["median"]
    print(f"  (tracer cost on identity: {tracer:.1f} µs per frame, subtracted)")
    dist = {}
    for name in (OURS, "watermark clock (logo+{clock})", "watermark {frame}", "watermark {data} every frame",
                 "watermark marker, still", "watermark marker, x bound to data", "watermark 3-layer config",
                 "timeoverlay"):
        case = gst_cases(1920, config, 1080, 1.0, tmp)[name]
        d = {k: (v - tracer if k != "frames" else v) for k, v in latency_distribution(head, case, frames).items()}
        dist[name] = d
        print(f"  {name:34s} mean {d['mean']:7.1f}  median {d['median']:7.1f}  p99.9 {d['p99.9']:7.1f}  max {d['max']:7.1f} µs  ({d['frames']} frames)")
    summary["per_frame"] = dist

    # The same logo + text case per configuration, timed inside the element (tracer minus
    # its cost on identity, both measured on that configuration): a second measurement,
    # independent of the source's and sink's cost, which at 2160p swamps the difference
    # between pipelines.
    print("\nlogo+text per configuration, time inside the element (latency tracer minus its cost on identity)")
    inside, inside_box = {}, {}
    for size, fmt in configs:
        w, h = (int(v) for v in size.split("x"))
        head_c = f"videotestsrc num-buffers=N pattern=black ! video/x-raw,format={fmt},width={w},height={h},framerate=30/1"
        n = 300 if args.quick else (1000 if w > 2000 else 2000)
        cost = latency_distribution(head_c, "identity", n)["median"]
        cases = gst_cases(w, config, h, 1.0, tmp)
        d = latency_distribution(head_c, cases[OURS], n)
        inside[f"{size} {fmt}"] = d["median"] - cost
        print(f"  {size} {fmt:5s} median {d['median'] - cost:7.1f} µs  (tracer cost {cost:.1f} µs, {d['frames']} frames)")
        if h == 1080:
            # The caption box's target, measured the same way (same tracer cost).
            b = latency_distribution(head_c, cases[BOX], n)
            inside_box[f"{size} {fmt}"] = b["median"] - cost
            print(f"  {size} {fmt:5s} median {b['median'] - cost:7.1f} µs  with the half-transparent box")
    summary["inside_median_us"] = inside
    summary["inside_box_median_us"] = inside_box

    # Peak memory of whole pipelines.
    print("\npeak RSS, 1080p I420, 300 frames")
    rss = {}
    launch = "exec gst-launch-1.0 -q videotestsrc num-buffers=300 pattern=black ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1 ! "
    for name in ("baseline", OURS, BOTH):
        rss[name] = peak_rss(["sh", "-c", launch + gst_cases(1920, config, 1080, 1.0, tmp)[name] + " ! fakesink"])
    if have_ffmpeg:
        rss["ffmpeg (no overlay)"] = peak_rss(["ffmpeg", "-hide_banner", "-nostdin", "-filter_complex",
                                               ffmpeg_graph(1920, 1080, "I420", 300, False, 1.0, tmp), "-map", "[out]", "-f", "null", "-"])
        rss["ffmpeg drawtext+overlay"] = peak_rss(["ffmpeg", "-hide_banner", "-nostdin", "-filter_complex",
                                                   ffmpeg_graph(1920, 1080, "I420", 300, True, 1.0, tmp), "-map", "[out]", "-f", "null", "-"])
    for name, mb in rss.items():
        print(f"  {name:34s} {mb:7.1f} MB")
    summary["rss_mb"] = rss

    export = None
    if args.export:
        print(f"\nexport end to end: 30 s 1080p30 H.264+AAC, x264 veryfast, median of {EXPORT_ROUNDS} interleaved rounds")
        export = export_end_to_end(tmp, 30)
        base = export["no overlay"]["cpu_s"]
        for name, t in export.items():
            extra = (t["cpu_s"] / base - 1) * 100
            print(f"  {name:34s} CPU {t['cpu_s']:6.1f} s  {'' if name == 'no overlay' else f'{extra:+5.1f} %'}"
                  f"   (wall {t['wall_s']:5.1f} s; CPU per round {', '.join(f'{c:.1f}' for c in t['cpu_runs'])})")
        summary["export_s"] = export

    # The targets.
    print("\ntargets")
    checks = []

    def target(label, ok, detail):
        """ok: True, False, or None when the measurements disagree (not resolved here)."""
        checks.append((label, ok))
        print(f"  {'PASS' if ok else 'UNRESOLVED' if ok is None else 'FAIL'}  {label}: {detail}")

    def agree(a, b):
        return a if a == b else None

    # A cost target passes when both measurements (pipeline difference and time inside the
    # element) meet it, fails when both miss it, and is unresolved when they disagree (the
    # machine's noise is larger than the cost) or the pipeline difference is not above zero.
    c = summary["configs"]
    for key, limit in (("1920x1080 I420", 20), ("1920x1080 NV12", 20), ("1920x1080 BGRA", 40),
                       ("3840x2160 I420", 60), ("3840x2160 NV12", 60), ("3840x2160 BGRA", 120)):
        if key in c:
            m, el = c[key]["median_us"][OURS], inside[key]
            both = f"{m:.1f} µs between pipelines, {el:.1f} µs inside the element"
            target(f"logo+text {key} ≤ {limit} µs", agree(m <= limit, el <= limit) if m > 0 else None, both)
            fl = c[key]["floor_us"]
            if fl:
                target(f"logo+text {key} within 3× floor", agree(m <= 3 * fl, el <= 3 * fl) if m > 0 else None,
                       f"{both}; floor {fl:.1f} µs")
    for key in ("1920x1080 I420", "1920x1080 NV12"):
        if key in c:
            m, both = c[key]["median_us"][OURS], c[key]["median_us"][BOTH]
            target(f"{key}: ≥ 15× less than {BOTH}", both >= 15 * m, f"{both / m if m > 0 else float('inf'):.1f}×")
            ff = c[key]["median_us"].get("ffmpeg drawtext+overlay")
            if ff is not None:
                target(f"{key}: ≥ 10× less than ffmpeg", ff >= 10 * m, f"{ff / m if m > 0 else float('inf'):.1f}×")
    if "1920x1080 I420" in c:
        m = c["1920x1080 I420"]["median_us"]
        # Mean costs: the pipeline difference is total extra time / frames (a mean per frame,
        # re-renders included), measured interleaved with the static case; the tracer's mean
        # is the second measurement.
        clk, lay, frm = "watermark clock (logo+{clock})", "watermark 3-layer config", "watermark {frame}"
        static, static_in = m[OURS], dist[OURS]["mean"]
        target("clock mean ≤ 2× static", agree(m[clk] <= 2 * static, dist[clk]["mean"] <= 2 * static_in),
               f"{m[clk]:.1f} vs {static:.1f} µs between pipelines, {dist[clk]['mean']:.1f} vs {static_in:.1f} µs inside")
        target("clock p99.9 ≤ 1 ms", dist[clk]["p99.9"] <= 1000, f"{dist[clk]['p99.9']:.1f} µs")
        target("{frame} mean ≤ 150 µs", agree(m[frm] <= 150, dist[frm]["mean"] <= 150),
               f"{m[frm]:.1f} µs between pipelines, {dist[frm]['mean']:.1f} µs inside")
        # A data line that changes every frame against {frame} (the same digits), with a
        # tenth of {frame}'s cost as the noise allowance of two runs of the same work.
        dat = "watermark {data} every frame"
        target("{data} every frame ≤ {frame}",
               agree(m[dat] <= 1.1 * m[frm], dist[dat]["mean"] <= 1.1 * dist[frm]["mean"]),
               f"{m[dat]:.1f} vs {m[frm]:.1f} µs between pipelines, "
               f"{dist[dat]['mean']:.1f} vs {dist[frm]['mean']:.1f} µs inside")
        # A small marker's cost is below the pipelines' noise: judged inside the element
        # (Benchmarks/data-bench.py measures both data targets over more rounds).
        still_d, bound_d = dist["watermark marker, still"]["mean"], dist["watermark marker, x bound to data"]["mean"]
        target("marker bound to data ≤ 1.2× the same marker still", bound_d <= 1.2 * still_d,
               f"{bound_d:.1f} vs {still_d:.1f} µs inside the element")
        # A ticker blends every copy in view: the logo+text block's copies are about 580 px
        # apart at 1080p (three or four at a time, 3–4× the static case's pixels), so that row
        # is reported; a crawl of one text line, what a ticker is for, is held to the target
        # against the same line standing still (the frame's width of it in view either way).
        animated = "watermark animated GIF logo+text"
        if animated in m:
            target("animated logo+text ≤ 2× static", m[animated] <= 2 * static,
                   f"{m[animated]:.1f} vs {static:.1f} µs between pipelines")
        bounce, ticker = "watermark logo+text, bouncing", "watermark logo+text, ticker"
        still, crawl = "watermark text crawl, still", "watermark text crawl, ticker"
        if bounce in m:
            target("bouncing logo+text ≤ 1.5× static", m[bounce] <= 1.5 * static,
                   f"{m[bounce]:.1f} vs {static:.1f} µs between pipelines"
                   + (f"; logo+text as a ticker (3–4 copies in view) {m[ticker]:.1f} µs" if ticker in m else ""))
        if crawl in m and still in m:
            target("text crawl as a ticker ≤ 1.5× the same text still", m[crawl] <= 1.5 * m[still],
                   f"{m[crawl]:.1f} vs {m[still]:.1f} µs between pipelines")
        target("3-layer config ≤ 3× one layer", agree(m[lay] <= 3 * static, dist[lay]["mean"] <= 3 * static_in),
               f"{m[lay]:.1f} vs {static:.1f} µs between pipelines, {dist[lay]['mean']:.1f} vs {static_in:.1f} µs inside")
        # identity vs identity: its median, and a quarter of its spread between rounds.
        lo, hi = c["1920x1080 I420"]["range_us"]["identity (noise reference)"]
        noise = max(5.0, 2 * abs(m["identity (noise reference)"]), (hi - lo) / 4)
        target("passthrough indistinguishable from identity", abs(m["watermark passthrough"]) <= noise,
               f"{m['watermark passthrough']:+.1f} µs/frame (identity vs identity: {m['identity (noise reference)']:+.1f}, "
               f"rounds {lo:+.1f} – {hi:+.1f}; noise band ±{noise:.1f})")
    for key in ("1920x1080 I420", "1920x1080 NV12", "1920x1080 BGRA"):
        if key in c and BOX in c[key]["median_us"] and key in inside_box:
            m, el, el_box = c[key]["median_us"], inside[key], inside_box[key]
            target(f"{key}: box ≤ 1.3× the same text without",
                   agree(m[BOX] <= 1.3 * m[OURS], el_box <= 1.3 * el) if m[OURS] > 0 else None,
                   f"{m[BOX]:.1f} vs {m[OURS]:.1f} µs between pipelines, {el_box:.1f} vs {el:.1f} µs inside the element")
    target("peak RSS ≤ no-overlay + 5 MB", rss[OURS] <= rss["baseline"] + 5, f"+{rss[OURS] - rss['baseline']:.1f} MB")
    if export:
        base = export["no overlay"]["cpu_s"]
        extra = (export["watermark"]["cpu_s"] / base - 1) * 100
        noise = abs(export["no overlay (again)"]["cpu_s"] / base - 1) * 100
        # The same export twice differs by `noise`: met only if that is small enough to
        # tell, failed only if the element's share is beyond it.
        ok = True if extra <= 2 and noise <= 2 else False if extra - noise > 2 else None
        target("export adds ≤ 2 %", ok, f"{extra:+.1f} % CPU (the same export twice: {noise:.1f} % apart)")
    summary["targets"] = {label: ("pass" if ok else "unresolved" if ok is None else "fail") for label, ok in checks}

    with open(os.path.join(RESULTS, "bench.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["size", "format", "case", "extra_us_per_frame"])
        writer.writeheader()
        writer.writerows(rows)
    with open(os.path.join(RESULTS, "bench.json"), "w") as f:
        json.dump(summary, f, indent=1)
    chart(summary)
    print(f"\nraw samples: {RESULTS}/bench.csv, summary: {RESULTS}/bench.json, chart: {CHART}")
    shutil.rmtree(tmp, ignore_errors=True)


def chart(summary):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("\n(no matplotlib: chart skipped; apt-get install python3-matplotlib)")
        return
    peers = [OURS, "textoverlay", "gdkpixbufoverlay", BOTH, "timeoverlay", "ffmpeg drawtext+overlay"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    sizes = [s for s in ("1280x720", "1920x1080", "3840x2160") if f"{s} I420" in summary["configs"]]
    for name in peers:
        ys = [summary["configs"][f"{s} I420"]["median_us"].get(name) for s in sizes]
        if any(y is not None for y in ys):
            axes[0].plot([s.split("x")[1] + "p" for s in sizes], [y if y is not None else float("nan") for y in ys],
                         marker="o", linewidth=3 if name == OURS else 1.5, label=name)
    axes[0].set_yscale("log")
    axes[0].set_ylabel("extra µs per frame (log)")
    axes[0].set_title("I420 by resolution")
    axes[0].legend(fontsize=8)
    fmts = [f for f in ("I420", "NV12", "BGRA") if f"1920x1080 {f}" in summary["configs"]]
    width = 0.8 / len(peers)
    for i, name in enumerate(peers):
        ys = [summary["configs"][f"1920x1080 {f}"]["median_us"].get(name, float("nan")) for f in fmts]
        axes[1].bar([x + i * width for x in range(len(fmts))], ys, width, label=name)
    axes[1].set_xticks([x + 0.4 - width / 2 for x in range(len(fmts))], fmts)
    axes[1].set_yscale("log")
    axes[1].set_title("1080p by format")
    fig.suptitle(f"watermark vs peers, median extra µs per frame — {summary['date']}, {summary['machine']}")
    fig.tight_layout()
    fig.savefig(CHART, dpi=90)


if __name__ == "__main__":
    main()
