#!/usr/bin/python3
"""A 2160p30 export with a burned-in time code costs what the same export costs without it.

Two exports of one 2160p30 source (10 s of testsrc2 with a moving Sierpinski carpet and
changing noise, H.264 CRF 12, made once with ffmpeg into .build/export-bench/), run
interleaved for --rounds rounds:

    without  gst-watermark export SRC OUT --image assets/logo.png --shadow
    with     gst-watermark export SRC OUT --image assets/logo.png --shadow --text "{timecode}"

Per run: wall time and CPU time (user+sys, from wait4). Medians over the rounds, the ratio
with/without, and PASS when the export with the time code takes at most 1.05 × the wall time
of the one without.

    make
    /usr/bin/python3 Benchmarks/timecode-export-bench.py [--rounds 3] [--seconds 10] [--binary PATH]

Written: Benchmarks/results/timecode-export-bench.txt.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, ".build/release/gst-watermark")


def make_source(path, seconds):
    if os.path.exists(path):
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    w, h = 3840, 2160
    graph = (
        f"testsrc2=s={w}x{h}:r=30:d={seconds}[a];"
        f"sierpinski=s={w}x{h}:r=30:type=carpet[b];"
        f"[a][b]blend=all_mode=average:shortest=1,noise=alls=12:allf=t+u,format=yuv420p[v]"
    )
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-filter_complex", graph, "-map", "[v]", "-t", str(seconds),
         "-c:v", "libx264", "-preset", "veryfast", "-crf", "12", path + ".part.mp4"],
        check=True)
    os.rename(path + ".part.mp4", path)


def run(argv):
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    err = proc.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(argv)}\n{err}")
    return wall, usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=TOOL)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=10)
    args = ap.parse_args()
    source = os.path.join(ROOT, f".build/export-bench/source-2160p-{args.seconds}s.mp4")
    make_source(source, args.seconds)
    logo = os.path.join(ROOT, "assets/logo.png")
    base = [args.binary, "export", source]
    marks = ["--image", logo, "--shadow"]
    jobs = {"without": marks, "with": marks + ["--text", "{timecode}"]}
    results = {name: [] for name in jobs}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for name, extra in jobs.items():
                out = os.path.join(tmp, f"{name}-{r}.mp4")
                wall, cpu = run(base + [out] + extra)
                results[name].append((wall, cpu))
                print(f"round {r + 1} {name:8} wall {wall:7.2f} s  cpu {cpu:7.2f} s", flush=True)
    lines = [f"2160p30 export, {args.seconds} s, {args.rounds} interleaved rounds (medians)",
             f"{'':10} {'wall s':>8} {'cpu s':>8}"]
    med = {}
    for name, runs in results.items():
        med[name] = (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
        lines.append(f"{name:10} {med[name][0]:8.2f} {med[name][1]:8.2f}")
    wall_ratio = med["with"][0] / med["without"][0]
    cpu_ratio = med["with"][1] / med["without"][1]
    lines.append(f"with/without: wall {wall_ratio:.3f}, cpu {cpu_ratio:.3f}  "
                 f"{'PASS' if wall_ratio <= 1.05 else 'FAIL'} (wall within 5 %)")
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(ROOT, "Benchmarks/results/timecode-export-bench.txt"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
