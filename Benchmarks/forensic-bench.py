#!/usr/bin/python3
"""The forensic mark against the attacks a leak goes through, beside invisible-watermark.

For each source clip (1080p30, made here with ffmpeg: moving test pictures with noise, a dark
low-contrast slow one, and the bundled GoPro clip scaled up), the clip is exported with
`--forensic-id`, attacked with ffmpeg (re-encoding, scaling, cropping, a new frame rate,
brightness and contrast, all at once), and read back with `gst-watermark detect`: the
exact id or not, the score, frames read and the time taken. Unmarked copies and a wrong key
must find nothing. Picture quality: PSNR-Y and SSIM-Y of lossless exports (--quality 0)
with and without the mark, by ffmpeg's psnr and ssim filters. Embedding cost: µs per 1080p
frame of the element with only the mark, beside the element with a text layer.

With --iwm PYTHON (a Python with invisible-watermark 0.2.0 installed, e.g. a venv), its
dwtDct and rivaGan methods mark the first frames of the same clips frame by frame, the same
attacks are applied, and their bit accuracy and PSNR are printed beside ours.

    make build
    /usr/bin/python3 Benchmarks/forensic-bench.py [--seconds 10] [--quick] [--iwm /opt/iwm/bin/python]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, ".build", "release", "gst-watermark")
KEY = "bench key: keep it secret"
ID = "0123456789abcdef"

ATTACKS = {
    "none (our export)": None,
    "H.264 CRF 28": ["-c:v", "libx264", "-crf", "28"],
    "H.265 CRF 28": ["-c:v", "libx265", "-x265-params", "crf=28:log-level=error"],
    "scale 1280×720": ["-vf", "scale=1280:720"],
    "scale 854×480": ["-vf", "scale=854:480"],
    "crop 5 % each side": ["-vf", "crop=iw*0.9:ih*0.9:iw*0.05:ih*0.05"],
    "30 → 25 fps": ["-vf", "fps=25"],
    "brightness +0.1, contrast 1.1": ["-vf", "eq=brightness=0.1:contrast=1.1"],
    "brightness -0.1, contrast 0.9": ["-vf", "eq=brightness=-0.1:contrast=0.9"],
    "crop 3 % + 720p + 25 fps, CRF 28": ["-vf", "crop=iw*0.94:ih*0.94:iw*0.03:ih*0.03,scale=1280:720,fps=25",
                                         "-crf", "28"],
    "same, 10 s excerpt from 1.5 s": ["-ss", "1.5", "-t", "10", "-vf",
                                      "crop=iw*0.94:ih*0.94:iw*0.03:ih*0.03,scale=1280:720,fps=25", "-crf", "28"],
}


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def sources(tmp, seconds, quick, only=None):
    """Lossless 1080p30 clips (FFV1 in Matroska); `only`: those whose name holds it."""
    n = seconds + 2  # the excerpt attack starts at 1.5 s and lasts 10 s
    made = {}
    specs = {
        "moving + noise": f"testsrc2=s=1920x1080:r=30:d={n},noise=alls=12:allf=t",
        "dark, flat, slow": f"testsrc2=s=1920x1080:r=30:d={n},eq=brightness=-0.3:contrast=0.25,"
                            "noise=alls=2:allf=t,setpts=4*PTS,trim=duration=" + str(n),
    }
    karma = os.path.join(ROOT, "Tests", "Fixtures", "gopro", "karma.mp4")
    for name, graph in specs.items():
        if only and only not in name:
            continue
        path = os.path.join(tmp, re.sub(r"\W+", "-", name).strip("-") + ".mkv")
        out = run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", graph, "-t", str(n), "-r", "30",
                   "-pix_fmt", "yuv420p", "-c:v", "ffv1", path])
        if out.returncode != 0:
            sys.exit(out.stderr)
        made[name] = path
        if quick:
            return made
    if os.path.exists(karma) and (not only or only in "GoPro"):
        path = os.path.join(tmp, "gopro.mkv")
        out = run(["ffmpeg", "-v", "error", "-y", "-i", karma, "-an", "-t", str(min(n, 12)), "-vf",
                   "scale=1920:1080,fps=30", "-pix_fmt", "yuv420p", "-c:v", "ffv1", path])
        if out.returncode == 0:
            made["GoPro clip (854×480 scaled up)"] = path
    return made


def export(src, dst, forensic=True, extra=()):
    argv = [CLI, "export", src, dst] + list(extra)
    if forensic:
        argv += ["--forensic-id", ID, "--forensic-key", KEY]
    out = run(argv)
    if out.returncode != 0:
        sys.exit(f"export failed: {out.stderr[-500:]}")


def attack(src, dst, args):
    pre = []
    a = list(args)
    if a[:1] == ["-ss"]:
        pre, a = a[:4], a[4:]
    out = run(["ffmpeg", "-v", "error", "-y"] + pre[:2] + ["-i", src] + pre[2:] +
              ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "23", "-pix_fmt", "yuv420p"] + a + ["-an", dst])
    if out.returncode != 0:
        sys.exit(f"attack failed: {out.stderr[-500:]}")


def detect(path, key=KEY):
    start = time.perf_counter()
    out = run([CLI, "detect", path, "--forensic-key", key, "--json"])
    elapsed = time.perf_counter() - start
    m = re.search(r'"forensic-id":(null|"([0-9a-f]+)").*"score":([-0-9.e]+).*"frames":(\d+)', out.stdout)
    if out.returncode not in (0, 1) or not m:
        sys.exit(f"detect failed ({out.returncode}): {out.stdout}{out.stderr}")
    return m.group(2), float(m.group(3)), int(m.group(4)), elapsed


def quality(src, tmp):
    """PSNR-Y (mean, worst frame) and SSIM-Y of lossless exports with and without the mark."""
    a, b = os.path.join(tmp, "q-plain.mkv"), os.path.join(tmp, "q-marked.mkv")
    export(src, a, forensic=False, extra=["--quality", "0"])
    export(src, b, forensic=True, extra=["--quality", "0"])
    out = run(["ffmpeg", "-hide_banner", "-i", b, "-i", a, "-lavfi",
               "[0:v]extractplanes=y[m];[1:v]extractplanes=y[p];[m][p]psnr=stats_file=-", "-f", "null", "-"])
    frames = [float(v) for v in re.findall(r"psnr_avg:([0-9.inf]+)", out.stdout) if v != "inf"]
    mean = re.search(r"average:([0-9.inf]+)", out.stderr)
    ssim = run(["ffmpeg", "-hide_banner", "-i", b, "-i", a, "-lavfi",
                "[0:v]extractplanes=y[m];[1:v]extractplanes=y[p];[m][p]ssim", "-f", "null", "-"])
    s = re.search(r"All:([0-9.]+)", ssim.stderr)
    return (float(mean.group(1)) if mean else float("nan"), min(frames) if frames else float("nan"),
            float(s.group(1)) if s else float("nan"))


def embed_cost(frames=300, rounds=5):
    """µs per 1080p I420 frame over a pass-through run, median of `rounds`."""
    head = (f"videotestsrc num-buffers={frames} pattern=smpte ! video/x-raw,format=I420,width=1920,height=1080,"
            "framerate=30/1")
    cases = {
        "identity": "identity",
        "watermark forensic-id (mark only)": f'watermark forensic-id={ID} forensic-key="{KEY}"',
        "watermark text layer (for scale)": 'watermark text="(c) ACME 2026" text-size=0.035',
        "watermark text layer + mark": f'watermark text="(c) ACME 2026" text-size=0.035 forensic-id={ID} '
                                       f'forensic-key="{KEY}"',
    }
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(ROOT, ".build", "release"))
    times = {k: [] for k in cases}
    for _ in range(rounds):
        for name, case in cases.items():
            start = time.perf_counter()
            out = run(["gst-launch-1.0", "-q"] + f"{head} ! {case} ! fakesink sync=false".split(" "), env=env)
            if out.returncode != 0:
                sys.exit(f"gst-launch failed: {out.stderr}")
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times.pop("identity"))
    return {k: (statistics.median(v) - base) / frames * 1e6 for k, v in times.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=10, help="length of each clip (default 10)")
    ap.add_argument("--quick", action="store_true", help="one clip, fewer attacks")
    ap.add_argument("--iwm", help="a Python with invisible-watermark 0.2.0, for its rows")
    ap.add_argument("--clip", help="only the clips whose name holds this text")
    ap.add_argument("--no-quality", action="store_true", help="skip the picture quality and cost rows")
    ap.add_argument("--keep", help="keep the files in this folder")
    args = ap.parse_args()
    if not os.access(CLI, os.X_OK):
        sys.exit("no .build/release/gst-watermark: make build first")
    tmp = args.keep or tempfile.mkdtemp(prefix="forensic-bench-")
    os.makedirs(tmp, exist_ok=True)
    try:
        clips = sources(tmp, args.seconds, args.quick, args.clip)
        attacks = dict(list(ATTACKS.items())[:4]) if args.quick else ATTACKS
        print(f"forensic mark: id {ID}, {args.seconds} s clips, 1080p30; detect = gst-watermark detect")
        print(f"{'clip':32s} {'attack':34s} {'found':>6s} {'score':>6s} {'frames':>6s} {'time s':>7s}")
        failures = 0
        for name, src in clips.items():
            marked = os.path.join(tmp, "marked.mp4")
            export(src, marked)
            for label, a in attacks.items():
                path = marked
                if a is not None:
                    path = os.path.join(tmp, "attacked.mp4")
                    attack(marked, path, a)
                found, score, frames, elapsed = detect(path)
                ok = found == ID
                failures += not ok
                print(f"{name:32s} {label:34s} {'yes' if ok else 'NO':>6s} {score:6.1f} {frames:6d} {elapsed:7.1f}")
            plain = os.path.join(tmp, "plain.mp4")
            attack(src, plain, ["-crf", "18"])
            found, score, frames, elapsed = detect(plain)
            print(f"{name:32s} {'unmarked copy':34s} {'none' if found is None else 'FALSE':>6s} {score:6.1f} "
                  f"{frames:6d} {elapsed:7.1f}")
            failures += found is not None
            found, score, frames, elapsed = detect(marked, key="another key")
            print(f"{name:32s} {'marked, another key':34s} {'none' if found is None else 'FALSE':>6s} {score:6.1f} "
                  f"{frames:6d} {elapsed:7.1f}")
            failures += found is not None
        if args.no_quality:
            clips = {}
        print("\npicture quality: lossless exports (--quality 0) with and without the mark, luma")
        for name, src in clips.items():
            mean, worst, ssim = quality(src, tmp)
            print(f"  {name:32s} PSNR-Y {mean:6.2f} dB mean, {worst:6.2f} dB worst frame; SSIM-Y {ssim:.4f}")
        if not args.no_quality:
            print("\nembedding cost, 1080p I420, µs per frame over pass-through (median of 5 runs of 300 frames)")
            for name, us in embed_cost().items():
                print(f"  {name:40s} {us:8.0f}")
        if args.iwm:
            iwm = os.path.join(ROOT, "Benchmarks", "iwm-compare.py")
            subprocess.run([args.iwm, iwm, tmp] + [clips[n] for n in clips], check=False)
        print(f"\n{failures} failure(s)")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
