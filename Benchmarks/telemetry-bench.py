#!/usr/bin/python3
"""gst-watermark next to gopro-overlay (PyPI) on the same telemetry job, in one run.

The job, the same for both: a 30 s clip (ffmpeg's testsrc2, H.264, with a creation time),
a GPX track made here (north at a speed that rises 3 km/h a second, climbing 1 m/s, one
point a second, starting at the clip's creation time), four texts (date, time, speed in km/h
with one decimal, altitude), encoded with libx264 / x264 at the same preset and CRF
(gopro-overlay's ffmpeg profile is set to match). At 1080p and 4K.

Reported per tool and size: wall time, CPU time (all processes), peak RSS (the largest
process), and overlay updates per second of video: the frames whose speed caption differs
from the frame before, counted in the output. The frames at 5, 15 and 25 s of both outputs
are written to Benchmarks/results/telemetry-*.png beside the values the track gives there.

    make build
    /usr/bin/python3 Benchmarks/telemetry-bench.py [--sizes 1920x1080,3840x2160] [--seconds 30]

gopro-overlay is installed in a virtual environment (.build/gopro-overlay-venv) the first time.
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "Benchmarks", "results")
VENV = os.path.join(ROOT, ".build", "gopro-overlay-venv")
VERSION = "0.134.0"
START = "2026-05-01T10:00:00"
PRESET, CRF = "veryfast", 21


def venv():
    exe = os.path.join(VENV, "bin", "gopro-dashboard.py")
    if not os.path.exists(exe):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "-q", f"gopro-overlay=={VERSION}"], check=True)
    return exe


def speed_kmh(t):
    return 20 + 3 * t


def gpx(path, seconds):
    """North along 7°E from 45°N: the distance covered is the integral of the speed."""
    metres_per_degree = 6371008.8 * math.pi / 180
    points = []
    for i in range(seconds + 1):
        metres = (20 * i + 1.5 * i * i) / 3.6
        points.append(f'<trkpt lat="{45 + metres / metres_per_degree:.8f}" lon="7.0"><ele>{100 + i:.1f}</ele>'
                      f'<time>2026-05-01T10:{i // 60:02d}:{i % 60:02d}Z</time></trkpt>')
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="telemetry-bench" '
                'xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>\n' + "\n".join(points) +
                "\n</trkseg></trk></gpx>\n")


def clip(path, w, h, seconds):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={w}x{h}:rate=30:duration={seconds}",
                    "-c:v", "libx264", "-preset", PRESET, "-crf", str(CRF), "-pix_fmt", "yuv420p",
                    "-metadata", f"creation_time={START}Z", path], check=True)


def layouts(tmp, w, h):
    """The same four texts for both: (gopro-overlay's layout XML, our config)."""
    s = h / 1080
    size = int(48 * s)
    rows = [(int(60 * s), int(60 * s)), (int(60 * s), int(130 * s)), (int(60 * s), int(200 * s)), (int(60 * s), int(270 * s))]
    xml = os.path.join(tmp, f"layout-{w}.xml")
    with open(xml, "w") as f:
        f.write(f"""<layout>
  <component type="datetime" x="{rows[0][0]}" y="{rows[0][1]}" format="%Y-%m-%d" size="{size}"/>
  <component type="datetime" x="{rows[1][0]}" y="{rows[1][1]}" format="%H:%M:%S" size="{size}"/>
  <component type="metric" x="{rows[2][0]}" y="{rows[2][1]}" metric="speed" units="kph" dp="1" size="{size}"/>
  <component type="metric" x="{rows[3][0]}" y="{rows[3][1]}" metric="alt" units="alt" dp="0" size="{size}"/>
</layout>
""")
    texts = ["{data:time:%Y-%m-%d}", "{data:time:%H:%M:%S}", "{data:speed_kmh:%.1f}", "{data:altitude:%.0f}"]
    config = os.path.join(tmp, f"layout-{w}.json")
    with open(config, "w") as f:
        json.dump({"layers": [{"text": t, "anchor": "top-left", "x": x / w, "y": y / h, "text-size": size / h * 1.2,
                               "font-features": "tnum"} for t, (x, y) in zip(texts, rows)]}, f)
    # The speed caption's box in both outputs.
    box = (rows[2][0], rows[2][1] - int(10 * s), int(360 * s), int(80 * s))
    return xml, config, box


def measured(argv, env=None):
    """Wall and CPU seconds of `argv` and its children, and the largest process's peak RSS (MB)."""
    probe = ("import resource, subprocess, sys, time, json\n"
             "t = time.monotonic(); r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
             "wall = time.monotonic() - t; u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
             "print(json.dumps({'rc': r.returncode, 'wall': wall, 'cpu': u.ru_utime + u.ru_stime, 'rss': u.ru_maxrss / 1024,"
             " 'err': r.stderr.decode(errors='replace')[-600:]}))")
    out = subprocess.run([sys.executable, "-c", probe] + argv, capture_output=True, text=True, env=env)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if result["rc"] != 0:
        raise RuntimeError(f"{argv[0]} failed: {result['err']}")
    return result


def updates_per_second(path, box, seconds):
    """Frames whose caption box differs from the frame before (a digit redrawn, not noise)."""
    x, y, w, h = box
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-vf", f"crop={w}:{h}:{x}:{y},format=gray", "-f",
                          "rawvideo", "-"], capture_output=True, check=True).stdout
    n = w * h
    frames = [raw[i:i + n] for i in range(0, len(raw) - n + 1, n)]
    changed = 0
    for a, b in zip(frames, frames[1:]):
        if sum(1 for p, q in zip(a[::3], b[::3]) if abs(p - q) > 64) > 0.002 * n / 3:
            changed += 1
    return changed / seconds, len(frames)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1920x1080,3840x2160")
    ap.add_argument("--seconds", type=int, default=30)
    args = ap.parse_args()
    ours = os.path.join(ROOT, ".build", "release", "gst-watermark")
    if not os.path.exists(ours):
        sys.exit("build the release first: make build")
    dashboard = venv()
    os.makedirs(RESULTS, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="wm-telemetry-bench-")
    track = os.path.join(tmp, "track.gpx")
    gpx(track, args.seconds + 10)
    config_dir = os.path.join(tmp, "gopro-config")
    os.makedirs(config_dir)
    with open(os.path.join(config_dir, "ffmpeg-profiles.json"), "w") as f:
        json.dump({"bench": {"input": [], "output": ["-vcodec", "libx264", "-preset", PRESET, "-crf", str(CRF),
                                                     "-pix_fmt", "yuv420p"]}}, f)
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(ROOT, ".build", "release"), TZ="UTC")
    print(f"telemetry overlay: gopro-overlay {VERSION} vs gst-watermark, {args.seconds} s clip at 30 fps, "
          f"GPX at 1 Hz, date + time + speed + altitude, x264 {PRESET} CRF {CRF}, {os.cpu_count()} cores")
    rows = []
    for size in args.sizes.split(","):
        w, h = (int(v) for v in size.split("x"))
        source = os.path.join(tmp, f"clip-{w}.mp4")
        clip(source, w, h, args.seconds)
        xml, config, box = layouts(tmp, w, h)
        theirs_out, ours_out = os.path.join(tmp, f"gopro-overlay-{w}.mp4"), os.path.join(tmp, f"gst-watermark-{w}.mp4")
        theirs = measured([os.path.join(VENV, "bin", "python"), dashboard, "--use-gpx-only", "--gpx", track,
                           "--video-time-start", "video-created", "--layout", "xml", "--layout-xml", xml,
                           "--overlay-size", size, "--config-dir", config_dir, "--profile", "bench",
                           "--font", "DejaVuSans.ttf", source, theirs_out], env=env)
        mine = measured([ours, "export", source, ours_out, "--data", track, "--config", config, "--preset", PRESET,
                         "--quality", str(CRF)], env=env)
        # The floor both share: the same decode and encode with no overlay at all.
        floor_out = os.path.join(tmp, f"ffmpeg-{w}.mp4")
        floor = measured(["ffmpeg", "-v", "error", "-y", "-i", source, "-c:v", "libx264", "-preset", PRESET, "-crf",
                          str(CRF), "-pix_fmt", "yuv420p", floor_out], env=env)
        rows.append((size, "ffmpeg, no overlay", floor["wall"], floor["cpu"], floor["rss"], 0.0, 0))
        for name, r, out in (("gopro-overlay", theirs, theirs_out), ("gst-watermark", mine, ours_out)):
            ups, frames = updates_per_second(out, box, args.seconds)
            rows.append((size, name, r["wall"], r["cpu"], r["rss"], ups, frames))
            for t in (5, 15, 25):
                subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", str(t), "-i", out, "-frames:v", "1", "-vf",
                                f"crop={box[2] * 2}:{int(300 * h / 1080)}:0:0",
                                os.path.join(RESULTS, f"telemetry-{name}-{h}p-{t}s.png")], check=True)
    print(f"\n{'size':10s} {'tool':14s} {'wall s':>8s} {'CPU s':>8s} {'peak RSS MB':>12s} {'updates/s':>10s} {'frames':>7s}")
    for size, name, wall, cpu, rss, ups, frames in rows:
        print(f"{size:10s} {name:18s} {wall:8.1f} {cpu:8.1f} {rss:12.1f} {ups:10.1f} {frames:7d}")
    print("\nratios (gst-watermark / gopro-overlay)")
    verdicts = []
    for size in args.sizes.split(","):
        t = next(r for r in rows if r[0] == size and r[1] == "gopro-overlay")
        o = next(r for r in rows if r[0] == size and r[1] == "gst-watermark")
        f = next(r for r in rows if r[0] == size and r[1] == "ffmpeg, no overlay")
        ok = o[2] <= 0.7 * t[2] and o[5] >= 29
        verdicts.append(ok)
        print(f"  {size}: wall {o[2] / t[2]:.2f}×, CPU {o[3] / t[3]:.2f}×, peak RSS {o[4] / t[4]:.2f}×; "
              f"updates {o[5]:.1f}/s vs {t[5]:.1f}/s  {'PASS' if ok else 'FAIL'} (≤ 0.7× wall, every frame)")
        print(f"  {size}: over the bare transcode: gst-watermark +{o[2] - f[2]:.1f} s wall, "
              f"gopro-overlay +{t[2] - f[2]:.1f} s")
    print("\nthe track's values (what the captions should read):")
    for t in (5, 15, 25):
        print(f"  {t:2d} s: 2026-05-01  10:00:{t:02d}  {speed_kmh(t):.1f} km/h  {100 + t} m"
              f"   → Benchmarks/results/telemetry-*-{t}s.png")
    shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(0 if all(verdicts) else 1)


if __name__ == "__main__":
    main()
