#!/usr/bin/python3
"""How soon a variable set through the control API shows in the picture.

Runs `gst-watermark capture --test-source` (live, 30 fps) with `--text "{var:n}"` under
`--control`, and every 1.5 s asks `GET /api/status` for the frames that have entered the
element (F), then sends `PATCH /api/variables {"n": k}`. After the run the recording is
decoded and, for each change, the first frame whose caption differs from the frame before F
is found (frame j). Printed per change: j - F + 1, the number of frames from the request to
the first one showing the change (1 = the next frame to enter the element). F is read before
the request is sent, so the count includes the HTTP round trip: it is an upper bound of the
frames after the response.

    GST_PLUGIN_PATH=$PWD/.build/release /usr/bin/python3 Benchmarks/variables-latency.py [--changes 8]

Needs ffmpeg. Target: every change within 2 frames.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
W, H, FPS = 640, 360, 30
# The caption's box (top-left, a fifth of the height): where the frames are compared.
CROP = (0, 0, 320, 120)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, body=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.loads(r.read() or b"null")


def frames(path):
    """The caption's crop of every frame, as gray bytes."""
    x, y, w, h = CROP
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-vf", f"crop={w}:{h}:{x}:{y},format=gray",
                          "-f", "rawvideo", "-"], capture_output=True, check=True).stdout
    return [raw[i:i + w * h] for i in range(0, len(raw) - w * h + 1, w * h)]


def differs(a, b):
    """More than 2 % of the crop's pixels changed by more than 64 levels (a digit redrawn,
    not the encoder's noise)."""
    return sum(1 for p, q in zip(a, b) if abs(p - q) > 64) > 0.02 * len(a)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--changes", type=int, default=8)
    args = ap.parse_args()
    exe = os.path.join(ROOT, ".build", "release", "gst-watermark")
    if not os.path.exists(exe):
        exe = os.path.join(ROOT, ".build", "debug", "gst-watermark")
    tmp = tempfile.mkdtemp(prefix="wm-varlat-")
    out = os.path.join(tmp, "rec.mkv")
    port = free_port()
    duration = 3 + 1.5 * args.changes
    proc = subprocess.Popen([exe, "capture", "--test-source", "--size", f"{W}x{H}", "--fps", str(FPS),
                             "--duration", str(duration), "--text", "{var:n}", "--var", "n=0",
                             "--anchor", "top-left", "--text-size", "0.2", "--quality", "18",
                             "--control", str(port), out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.time() + 10
    while True:
        try:
            request(port, "GET", "/api/status")
            break
        except OSError:
            if time.time() > deadline or proc.poll() is not None:
                sys.exit("the control server did not come up: " + (proc.stdout.read().decode() if proc.stdout else ""))
            time.sleep(0.1)
    time.sleep(1.5)
    sent = []
    for k in range(1, args.changes + 1):
        before = request(port, "GET", "/api/status")["frames_in"]
        t0 = time.monotonic()
        answer = request(port, "PATCH", "/api/variables", {"n": k * 11})
        rtt = (time.monotonic() - t0) * 1000
        assert answer == {"n": k * 11}, answer
        sent.append((k * 11, before, rtt))
        time.sleep(1.5)
    proc.wait(timeout=60)
    if proc.returncode != 0:
        sys.exit("capture failed: " + proc.stdout.read().decode())
    crops = frames(out)
    print(f"variable changes through PATCH /api/variables, {W}x{H} at {FPS} fps, {len(crops)} frames recorded")
    print("  value  frames in before the request  first frame showing it  frames from the request  request ms")
    counts = []
    for value, before, rtt in sent:
        ref = crops[before - 1]
        shown = next((j for j in range(before, len(crops)) if differs(crops[j], ref)), None)
        count = None if shown is None else shown - before + 1
        counts.append(count)
        print(f"  {value:5d}  {before:28d}  {shown if shown is not None else '-':>22}  "
              f"{count if count is not None else 'never':>23}  {rtt:10.1f}")
    ok = all(c is not None and c <= 2 for c in counts)
    valid = [c for c in counts if c is not None]
    print(f"  median {statistics.median(valid) if valid else '-'} frames, max {max(valid) if valid else '-'}")
    print(f"  {'PASS' if ok else 'FAIL'}  a variable change through the API is visible within 2 frames")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
