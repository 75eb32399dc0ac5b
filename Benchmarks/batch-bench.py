#!/usr/bin/python3
"""`gst-watermark batch` next to a shell loop of `gst-watermark export`, in one run.

24 two-second 720p30 clips (8-bit 4:2:0 H.264 + AAC, made once in a temporary folder) are exported with
a logo and a per-file caption by:
  batch --jobs 1, batch --jobs 2, batch (the default --jobs), and
  a shell loop starting one `gst-watermark export` process per file.
The modes run interleaved (A B C D, B C D A, …) for --rounds rounds, so a noisy machine
affects all alike. Per mode: wall time, CPU time (user+sys of the process tree) and peak RSS
(the largest process), medians over the rounds, and files/s. Then memory over many files:
one `batch` process exports --many files and its peak RSS (VmHWM, from the report) is
printed after the first --jobs files and at points up to the last; that process runs
--many-rounds times and the median growth is the one compared with the target.

    make build
    /usr/bin/python3 Benchmarks/batch-bench.py [--rounds 5] [--many 100] [--many-rounds 3]

Written: Benchmarks/results/batch-bench.txt. Never benchmark a debug build.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, ".build", "release", "gst-watermark")
LOGO = os.path.join(ROOT, "assets", "logo.png")
RESULTS = os.path.join(ROOT, "Benchmarks", "results")
FILES = 24


def make_inputs(directory, count):
    paths = []
    for k in range(count):
        path = os.path.join(directory, "clip%02d.mp4" % (k + 1))
        subprocess.run(
            ["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=60", "pattern=smpte", "horizontal-speed=%d" % (k + 1),
             "!", "video/x-raw,format=I420,width=1280,height=720,framerate=30/1", "!", "x264enc", "speed-preset=veryfast",
             "!", "h264parse", "!", "mp4mux", "name=m", "!", "filesink", "location=" + path,
             "audiotestsrc", "num-buffers=94", "!", "audio/x-raw,rate=48000,channels=2", "!", "avenc_aac",
             "!", "aacparse", "!", "m."], check=True)
        paths.append(path)
    return paths


def run(argv, samples=None):
    """Runs argv; returns (wall s, cpu s, peak RSS MB of the largest process). With a list
    as `samples`, appends (s since start, RSS MB) of the process every 20 ms."""
    start = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG if samples is not None else 0)
        if pid == p.pid:
            break
        try:
            with open("/proc/%d/status" % p.pid) as f:
                rss = [int(x.split()[1]) for x in f if x.startswith("VmRSS:")]
            if rss:
                samples.append((time.monotonic() - start, rss[0] / 1024))
        except OSError:
            pass
        time.sleep(0.02)
    wall = time.monotonic() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode(errors="replace")
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(argv), err))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--many", type=int, default=100)
    ap.add_argument("--many-rounds", type=int, default=3)
    args = ap.parse_args()
    if not os.access(TOOL, os.X_OK):
        sys.exit("build first: make build")
    work = tempfile.mkdtemp(prefix="batch-bench-")
    try:
        inputs = make_inputs(work, FILES)
        manifest = os.path.join(work, "manifest.csv")
        with open(manifest, "w") as f:
            f.write("input,text\n")
            for k, path in enumerate(inputs):
                f.write("%s,Licensed to student%02d@example.com\n" % (path, k + 1))
        overlay = ["--image", LOGO, "--width", "0.15", "--anchor", "top-right"]
        out = os.path.join(work, "out")

        def batch(jobs):
            argv = [TOOL, "batch", "--manifest", manifest, "--output-dir", out, "--overwrite"] + overlay
            return argv + (["--jobs", str(jobs)] if jobs else [])

        loop = ("for k in $(seq -w 1 %d); do \"$0\" export %s/clip$k.mp4 %s/clip$k.mp4 %s "
                "--text \"Licensed to student$k@example.com\" 2>/dev/null || exit 1; done"
                % (FILES, work, out, " ".join(overlay)))
        modes = [("batch --jobs 1", batch(1)), ("batch --jobs 2", batch(2)), ("batch (default --jobs)", batch(None)),
                 ("shell loop of export", ["sh", "-c", loop, TOOL])]
        samples = {name: [] for name, _ in modes}
        for r in range(args.rounds):
            order = modes[r % len(modes):] + modes[:r % len(modes)]
            for name, argv in order:
                shutil.rmtree(out, ignore_errors=True)
                os.makedirs(out)
                samples[name].append(run(argv))
                print("round %d  %-24s %6.2f s" % (r + 1, name, samples[name][-1][0]), file=sys.stderr)

        default_jobs = subprocess.run([TOOL, "batch", "--help"], capture_output=True, text=True).stdout
        default_jobs = default_jobs.split("(default: ")[1].split(")")[0] if "(default: " in default_jobs else "?"
        lines = ["%d two-second 720p30 files (8-bit 4:2:0 H.264+AAC), logo + per-file caption; %d rounds interleaved; "
                 "%d cores; default --jobs here: %s" % (FILES, args.rounds, os.cpu_count(), default_jobs), "",
                 "%-24s %10s %10s %10s %12s %14s" % ("mode", "wall s", "(min-max)", "CPU s", "files/s", "peak RSS MB")]
        med = {}
        for name, _ in modes:
            walls = [s[0] for s in samples[name]]
            med[name] = statistics.median(walls)
            lines.append("%-24s %10.2f %10s %10.2f %12.2f %14.0f" % (
                name, med[name], "%.1f-%.1f" % (min(walls), max(walls)),
                statistics.median(s[1] for s in samples[name]), FILES / med[name],
                statistics.median(s[2] for s in samples[name])))
        d, l1, l2, sh = (med["batch (default --jobs)"], med["batch --jobs 1"], med["batch --jobs 2"],
                         med["shell loop of export"])
        lines += ["", "default vs shell loop: %.2fx the throughput (target >= 1.15x): %s"
                  % (sh / d, "PASS" if sh / d >= 1.15 else "FAIL"),
                  "default vs the better of --jobs 1/2: %.2fx (target >= 1.0, within noise): %s"
                  % (min(l1, l2) / d, "PASS" if min(l1, l2) / d >= 0.97 else "FAIL")]

        # Memory over many files: one process, --many rows cycling over the inputs.
        many = os.path.join(work, "many.csv")
        with open(many, "w") as f:
            f.write("input,output,text\n")
            for k in range(args.many):
                f.write("%s,many/%03d.mp4,Licensed to student%03d@example.com\n" % (inputs[k % FILES], k + 1, k + 1))
        os.makedirs(os.path.join(work, "many"), exist_ok=True)
        jobs = int(default_jobs) if default_jobs.isdigit() else 2
        loop_rss = statistics.median(s[2] for s in samples["shell loop of export"])
        # The high-water mark is the largest of many noisy moments: one run's growth varies
        # by about a megabyte between runs, so the process runs --many-rounds times and the
        # median growth is the one held to the target.
        runs = []
        for r in range(args.many_rounds):
            report = os.path.join(work, "many-%d.jsonl" % r)
            trace = []
            wall, _, _ = run([TOOL, "batch", "--manifest", many, "--report", report, "--overwrite", "--jobs",
                              str(jobs)] + overlay, samples=trace)
            hwm = [json.loads(x)["peak_rss_kb"] / 1024 for x in open(report)]  # in the order files finished
            runs.append((hwm[-1] - hwm[jobs - 1], hwm, trace, wall))
            print("many-files run %d: growth %.1f MB" % (r + 1, runs[-1][0]), file=sys.stderr)
        growth, hwm, trace, wall = sorted(runs, key=lambda x: x[0])[len(runs) // 2]
        points = sorted({jobs, 10, 25, 50, args.many} & set(range(1, len(hwm) + 1)))
        lines += ["", "%d exports in one batch process (--jobs %d), %d runs; peak RSS after n files in the median "
                  "run (%.1f s):" % (args.many, jobs, len(runs), wall)]
        lines.append("  " + "  ".join("n=%d: %.1f MB" % (n, hwm[n - 1]) for n in points))
        lines.append("  growth after the first %d files, each run: %s MB" % (
            jobs, ", ".join("%.1f" % g for g, _, _, _ in runs)))
        lines.append("  median growth: %.1f MB (target <= 5 MB): %s; one export process: %.0f MB"
                     % (growth, "PASS" if growth <= 5 else "FAIL", loop_rss))
        # Whether anything accumulates shows better in the peak within each tenth of the run.
        start = trace[0][0] if trace else 0
        tenth = (trace[-1][0] - start) / 10 if trace else 0
        peaks = [max([r for t, r in trace if start + k * tenth <= t <= start + (k + 1) * tenth] or [0])
                 for k in range(10)]
        lines.append("  peak RSS in each tenth of the median run (sampled every 20 ms): "
                     + " ".join("%.0f" % p for p in peaks) + " MB")
        lines.append("  last tenth against the second: %+.1f MB" % (peaks[9] - peaks[1]))
        text = "\n".join(lines)
        print(text)
        os.makedirs(RESULTS, exist_ok=True)
        with open(os.path.join(RESULTS, "batch-bench.txt"), "w") as f:
            f.write(text + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
