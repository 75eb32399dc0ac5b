#!/usr/bin/python3
"""`gst-watermark export` next to ffmpeg doing the same job, in one run.

The job: burn a logo and a line of text into an H.264+AAC file, re-encoding the video with
libx264 (CRF 21, preset veryfast) and copying the audio as it is. Two sources are made once
with ffmpeg into a cache folder (.build/export-bench/): 1080p30 for 30 s and 2160p30 for
10 s, testsrc2 blended with a moving Sierpinski carpet and a patch of changing noise (fine
detail and motion a CRF encoder has to spend bits on), encoded at CRF 12 (yuv420p) with a
sine tone as AAC. ffmpeg draws the same logo (12 % of the frame width) and text at about
the same place as ours (bottom-right, margins 3 % of the width and height, the text under
the logo), with the same encoder, CRF and preset.

The two run interleaved (ours, ffmpeg, ours, ffmpeg, …) for --rounds rounds. Per run: wall
time, CPU time (user+sys) and peak RSS of the child (from wait4), and the output's size;
medians over the rounds and the ratios ours/ffmpeg. Quality: PSNR and SSIM of each output
against the source, outside the rectangle holding the marks (found by diffing decoded
frames of both outputs against the source, then widened): measured on the band above that
rectangle (full width) and on the part left of it, combined by area (PSNR through the
area-weighted MSE).

Targets, each with PASS/FAIL: PSNR-Y within 0.3 dB of ffmpeg's at no more than 1.05× its
size; wall time no more than ffmpeg's; peak RSS no more than 1.05× ffmpeg's.

    make build
    /usr/bin/python3 Benchmarks/export-bench.py [--rounds 3] [--only 1080p|4k] [--quick] [--binary PATH]

Written: Benchmarks/results/export-bench.txt (export-bench-quick.txt with --quick; a
-1080p/-4k suffix with --only). Never benchmark a debug build (--quick with a debug
binary is a smoke test of this script only).
"""
import argparse
import math
import os
import platform
import re
import shutil
import statistics
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, ".build", "release", "gst-watermark")
# Both burn the same PNG logo (the same input); with --svg-logo ours burns the SVG it was made
# from instead (rendered at the exact size; librsvg then adds its own memory). ffmpeg reads no
# SVG.
LOGO_SVG = os.path.join(ROOT, "assets", "logo.svg")
LOGO = os.path.join(ROOT, "assets", "logo.png")
RESULTS = os.path.join(ROOT, "Benchmarks", "results")
CACHE = os.path.join(ROOT, ".build", "export-bench")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
TEXT = "© ACME 2026"
QUALITY, PRESET = 21, "veryfast"
FPS = 30
# The element's defaults, which ffmpeg's graph copies: margins, logo width, text line height.
MARGIN, LOGO_WIDTH, TEXT_SIZE = 0.03, 0.12, 0.05
# name: (width, height, seconds, seconds with --quick)
CLIPS = {"1080p": (1920, 1080, 30, 5), "4k": (3840, 2160, 10, 2)}
# A pixel whose luma differs from the source's by more than this belongs to a mark (the
# encoders' own error stays well below it outside the noise patch, which is at the top left).
MARK_THRESHOLD = 48


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def version(argv, index):
    try:
        return subprocess.run(argv, capture_output=True, text=True).stdout.split()[index]
    except (OSError, IndexError):
        return "?"


def make_source(width, height, seconds):
    """The source clip (cached): detail everywhere, motion, and a patch of fresh noise
    every frame; CRF 12 H.264 yuv420p with AAC stereo 48 kHz."""
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, "source-%dx%d-%ds.mp4" % (width, height, seconds))
    if os.path.exists(path):
        return path
    print("making %s …" % os.path.relpath(path, ROOT), file=sys.stderr)
    size = "%dx%d" % (width, height)
    graph = ("testsrc2=s={s}:r={r}:d={d},format=yuv420p[t];"
             "sierpinski=s={s}:r={r}:type=carpet,format=yuv420p[c];"
             "[t][c]blend=all_mode=average,split[m][p];"
             "[p]crop=iw/3:ih/3:iw/12:ih/8,noise=alls=40:allf=t+u[n];[m][n]overlay=W/12:H/8:shortest=1[v]"
             ).format(s=size, r=FPS, d=seconds)
    partial = path + ".part.mp4"
    subprocess.run(["ffmpeg", "-hide_banner", "-v", "error", "-nostdin", "-y", "-filter_complex", graph,
                    "-f", "lavfi", "-i", "sine=f=440:r=48000:d=%d" % seconds,
                    "-map", "[v]", "-map", "0:a", "-c:v", "libx264", "-crf", "12", "-preset", "veryfast",
                    "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-shortest", partial], check=True)
    os.replace(partial, path)
    return path


def logo_size(width):
    """Pixel size of the logo at this frame width (aspect kept, from the PNG header)."""
    with open(LOGO, "rb") as f:
        lw, lh = struct.unpack(">II", f.read(24)[16:24])
    w = round(width * LOGO_WIDTH)
    return w, round(w * lh / lw)


def ffmpeg_graph(width, height):
    """ffmpeg's logo and text at about our place (see Benchmarks/bench.py geometry(): the
    text line's box under the logo, a gap of 0.2 lines, both right-aligned at the margin)."""
    mx, my = round(width * MARGIN), round(height * MARGIN)
    line = height * TEXT_SIZE
    pad = int(line * 0.08 + 0.999) + 1
    text_h = round(line) + 2 * pad
    lw, lh = logo_size(width)
    logo_y = height - (my + text_h + round(0.2 * line) + lh)
    font_px = line / 1.164  # DejaVu Sans Bold's line is 1.164 em
    text_bottom = my + pad + round(0.236 * font_px)  # the baseline above the box's bottom
    return ("[1:v]scale=%d:%d,format=rgba[l];[0:v][l]overlay=x=W-w-%d:y=%d:format=yuv420,"
            "drawtext=fontfile=%s:text='%s':fontsize=%.1f:fontcolor=white:borderw=%d:bordercolor=black:"
            "x=w-tw-%d:y=h-%d-th[v]" % (lw, lh, mx, logo_y, FONT, TEXT, font_px, max(1, round(line * 0.08)),
                                        mx, text_bottom))


def run(argv):
    """Runs argv to its end: (wall s, CPU s user+sys, peak RSS MB) of that child."""
    start = time.monotonic()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()  # until the child closes it (a full pipe would block it)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("failed (exit %d): %s\n%s" % (p.returncode, " ".join(argv), err.decode(errors="replace")[-2000:]))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def mark_rectangle(outputs, source, width, height, frames):
    """(x, y) of the top-left corner of the rectangle, reaching the frame's right and bottom
    edges, outside which neither output has a mark: every pixel of the bottom-right quarter
    whose luma differs from the source's by more than MARK_THRESHOLD in a few frames, their
    bounding box widened by 1.5 % of the frame each way, rounded down to even numbers."""
    picks = sorted({min(frames - 1, k) for k in (frames // 5, frames // 2, frames * 4 // 5)})
    select = "+".join("eq(n,%d)" % k for k in picks)
    x0, y0 = width, height
    for out in outputs:
        graph = ("[0:v]settb=1/%d,setpts=N,format=gray[a];[1:v]settb=1/%d,setpts=N,format=gray[b];"
                 "[a][b]blend=all_mode=difference,lut=c0='if(gt(val,%d),255,0)',select='%s'"
                 % (FPS, FPS, MARK_THRESHOLD, select))
        raw = subprocess.run(["ffmpeg", "-hide_banner", "-v", "error", "-nostdin", "-i", out, "-i", source,
                              "-filter_complex", graph, "-vsync", "0", "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                             capture_output=True, check=True).stdout
        size = width * height
        for k in range(len(raw) // size):
            frame = raw[k * size:(k + 1) * size]
            for y in range(height // 2, height):
                row = frame[y * width + width // 2:(y + 1) * width]
                if row.count(255) >= 2:  # not a lone pixel of encoding error
                    y0 = min(y0, y)
                    x0 = min(x0, width // 2 + row.find(255))
    if x0 >= width or y0 >= height:  # no marks found: the conservative right 30 % × bottom 35 %
        return width * 7 // 10 // 2 * 2, height * 13 // 20 // 2 * 2, False
    x0 = max(0, x0 - round(0.015 * width)) // 2 * 2
    y0 = max(0, y0 - round(0.015 * height)) // 2 * 2
    return x0, y0, True


def quality(output, source, regions):
    """PSNR (Y and the planes' average) and SSIM (Y and all) of output against source on
    the regions (w, h, x, y), combined by area: PSNR through the mean squared error."""
    n = len(regions)
    parts = ["[0:v]settb=1/%d,setpts=N,split=%d%s" % (FPS, n, "".join("[o%d]" % i for i in range(n))),
             "[1:v]settb=1/%d,setpts=N,split=%d%s" % (FPS, n, "".join("[r%d]" % i for i in range(n)))]
    maps = []
    for i, (w, h, x, y) in enumerate(regions):
        parts += ["[o%d]crop=%d:%d:%d:%d,split[oa%d][ob%d]" % (i, w, h, x, y, i, i),
                  "[r%d]crop=%d:%d:%d:%d,split[ra%d][rb%d]" % (i, w, h, x, y, i, i),
                  "[oa%d][ra%d]psnr@p%d[p%d]" % (i, i, i, i), "[ob%d][rb%d]ssim@s%d[s%d]" % (i, i, i, i)]
        maps += ["-map", "[p%d]" % i, "-f", "null", "-", "-map", "[s%d]" % i, "-f", "null", "-"]
    err = subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-i", output, "-i", source,
                          "-filter_complex", ";".join(parts)] + maps, capture_output=True, text=True).stderr
    mse_y = mse_all = ssim_y = ssim_all = area = 0.0
    for i, (w, h, _, _) in enumerate(regions):
        p = re.search(r"\[psnr@p%d @ [^]]*\] PSNR y:(\S+) .*average:(\S+)" % i, err)
        s = re.search(r"\[ssim@s%d @ [^]]*\] SSIM Y:(\S+) .*All:(\S+)" % i, err)
        if not p or not s:
            sys.exit("quality measurement failed for %s:\n%s" % (output, err[-1500:]))
        a = w * h
        mse_y += a * 255 ** 2 / 10 ** (float(p.group(1)) / 10)
        mse_all += a * 255 ** 2 / 10 ** (float(p.group(2)) / 10)
        ssim_y += a * float(s.group(1))
        ssim_all += a * float(s.group(2))
        area += a

    def psnr(mse):
        return 10 * math.log10(255 ** 2 / (mse / area)) if mse > 0 else float("inf")
    return {"psnr_y": psnr(mse_y), "psnr": psnr(mse_all), "ssim_y": ssim_y / area, "ssim": ssim_all / area}


def x264_options(path):
    """The x264 settings string an encode leaves in its output."""
    with open(path, "rb") as f:
        m = re.search(rb"options: ([ -~]*)", f.read(4 << 20))
    return m.group(1).decode() if m else ""


def bench_clip(name, tool, args):
    width, height, full, quick = CLIPS[name]
    seconds = quick if args.quick else full
    frames = seconds * FPS
    source = make_source(width, height, seconds)
    work = os.path.join(CACHE, "out")
    os.makedirs(work, exist_ok=True)
    ours_out, ff_out = os.path.join(work, "%s-ours.mp4" % name), os.path.join(work, "%s-ffmpeg.mp4" % name)
    ours = [tool, "export", source, ours_out, "--image", LOGO_SVG if args.svg_logo else LOGO, "--text", TEXT,
            "--quality", str(QUALITY), "--preset", PRESET]
    ff = ["ffmpeg", "-hide_banner", "-nostdin", "-y", "-i", source, "-i", LOGO,
          "-filter_complex", ffmpeg_graph(width, height), "-map", "[v]", "-map", "0:a",
          "-c:v", "libx264", "-preset", PRESET, "-crf", str(QUALITY), "-c:a", "copy", "-movflags", "+faststart", ff_out]
    runs = {"ours": [], "ffmpeg": []}
    sizes = {}
    for r in range(args.rounds):
        for side, argv, out in (("ours", ours, ours_out), ("ffmpeg", ff, ff_out)):
            if os.path.exists(out):
                os.remove(out)
            runs[side].append(run(argv))
            sizes[side] = os.path.getsize(out)
            print("%s round %d  %-7s %7.2f s" % (name, r + 1, side, runs[side][-1][0]), file=sys.stderr)

    x0, y0, found = mark_rectangle([ours_out, ff_out], source, width, height, frames)
    regions = [(width, y0, 0, 0), (x0, height - y0, 0, y0)]
    q = {side: quality(out, source, regions) for side, out in (("ours", ours_out), ("ffmpeg", ff_out))}
    med = {side: [statistics.median(s[i] for s in runs[side]) for i in range(3)] for side in runs}
    for side in runs:
        med[side].append(sizes[side] / 1e6)

    lines = ["%s: %dx%d %d fps, %d s (%d frames), %d round%s interleaved (ours, ffmpeg, …)"
             % (name, width, height, FPS, seconds, frames, args.rounds, "" if args.rounds == 1 else "s"),
             "  marks excluded from quality: x ≥ %d, y ≥ %d (%s; %.1f %% of the frame)"
             % (x0, y0, "found by diffing against the source" if found else "none found: default right 30 % × bottom 35 %",
                100 * (width - x0) * (height - y0) / (width * height)),
             "",
             "  %-9s %8s %12s %8s %9s %9s %8s %9s %8s %8s" % ("", "wall s", "(min-max)", "CPU s", "RSS MB", "size MB",
                                                             "PSNR-Y", "PSNR avg", "SSIM-Y", "SSIM")]
    for side in ("ours", "ffmpeg"):
        walls = [s[0] for s in runs[side]]
        lines.append("  %-9s %8.2f %12s %8.2f %9.0f %9.2f %8.2f %9.2f %8.4f %8.4f" % (
            side, med[side][0], "%.1f-%.1f" % (min(walls), max(walls)), med[side][1], med[side][2], med[side][3],
            q[side]["psnr_y"], q[side]["psnr"], q[side]["ssim_y"], q[side]["ssim"]))
    ratio = [med["ours"][i] / med["ffmpeg"][i] for i in range(4)]
    dq = {k: q["ours"][k] - q["ffmpeg"][k] for k in q["ours"]}
    lines.append("  %-9s %7.2fx %12s %7.2fx %8.2fx %8.2fx %+8.2f %+9.2f %+8.4f %+8.4f" % (
        "ours/ff", ratio[0], "", ratio[1], ratio[2], ratio[3], dq["psnr_y"], dq["psnr"], dq["ssim_y"], dq["ssim"]))
    opts = {side: x264_options(out) for side, out in (("ours", ours_out), ("ffmpeg", ff_out))}

    def strip(o):
        return " ".join(w for w in o.split() if not w.startswith(("threads=", "lookahead_threads=")))
    same = strip(opts["ours"]) == strip(opts["ffmpeg"])
    lines.append("  x264 settings: %s" % ("the same as ffmpeg's (threads aside)" if same else "DIFFERENT"))
    if not same:
        a, b = opts["ours"].split(), opts["ffmpeg"].split()
        lines.append("    ours only:   " + " ".join(w for w in a if w not in b))
        lines.append("    ffmpeg only: " + " ".join(w for w in b if w not in a))
    lines.append("")
    checks = [("quality: PSNR-Y ≥ ffmpeg's − 0.3 dB at ≤ 1.05× its size",
               dq["psnr_y"] >= -0.3 and ratio[3] <= 1.05, "%+.2f dB at %.3f× the size" % (dq["psnr_y"], ratio[3])),
              ("wall time ≤ ffmpeg's", ratio[0] <= 1.0, "%.2f s vs %.2f s" % (med["ours"][0], med["ffmpeg"][0])),
              ("peak RSS ≤ 1.05× ffmpeg's", ratio[2] <= 1.05,
               "%.0f MB vs %.0f MB, %.3f×" % (med["ours"][2], med["ffmpeg"][2], ratio[2]))]
    for label, ok, detail in checks:
        lines.append("  %-58s %s  (%s)" % (label, "PASS" if ok else "FAIL", detail))
    return lines + [""]


def main():
    ap = argparse.ArgumentParser(description="gst-watermark export next to ffmpeg doing the same job")
    ap.add_argument("--binary", default=TOOL, help="the gst-watermark executable (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--svg-logo", action="store_true", help="ours burns the SVG the PNG was made from")
    ap.add_argument("--quick", action="store_true", help="1080p 5 s and 2160p 2 s, 1 round (a smoke test)")
    ap.add_argument("--only", choices=sorted(CLIPS), help="only this clip")
    args = ap.parse_args()
    if args.quick:
        args.rounds = 1
    tool = os.path.abspath(args.binary)
    if not os.access(tool, os.X_OK):
        sys.exit("no gst-watermark executable at %s: build it first (make build) or pass --binary PATH" % tool)
    for exe in ("ffmpeg", "ffprobe"):
        if not shutil.which(exe):
            sys.exit("%s not found (apt-get install ffmpeg)" % exe)
    if not os.path.exists(FONT):
        sys.exit("%s not found (apt-get install fonts-dejavu-core)" % FONT)
    debug = "/debug/" in tool or os.path.basename(os.path.dirname(tool)) == "debug"
    header = ["gst-watermark export vs ffmpeg — %s — %s, %d cores — GStreamer %s, ffmpeg %s" % (
                  time.strftime("%Y-%m-%d %H:%M"), cpu_model(), os.cpu_count(),
                  version(["gst-launch-1.0", "--version"], 2), version(["ffmpeg", "-version"], 2)),
              "binary: %s%s" % (os.path.relpath(tool, ROOT) if tool.startswith(ROOT) else tool,
                                "  (DEBUG BUILD: timings are not representative)" if debug else ""),
              "job: logo (%d %% of the width; ours from %s, ffmpeg from the PNG) + %r, bottom-right, libx264 CRF %d "
              "preset %s, AAC copied; medians; RSS is the child's peak"
              % (LOGO_WIDTH * 100, "the SVG" if args.svg_logo else "the same PNG", TEXT, QUALITY, PRESET), ""]
    print("\n".join(header), flush=True)
    lines = list(header)
    for name in ([args.only] if args.only else list(CLIPS)):
        block = bench_clip(name, tool, args)
        print("\n".join(block), flush=True)
        lines += block
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, "export-bench%s%s.txt" % ("-quick" if args.quick else "",
                                                            "-" + args.only if args.only else ""))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("written: %s" % os.path.relpath(path, ROOT))


if __name__ == "__main__":
    main()
