"""invisible-watermark 0.2.0 on the clips and attacks of forensic-bench.py, for its table.

Run by forensic-bench.py --iwm PYTHON with that Python (which has invisible-watermark,
opencv-python-headless, PyWavelets, onnxruntime and numpy): `PYTHON iwm-compare.py TMP CLIP…`.

invisible-watermark marks single images, so the first frames of each clip are marked one by
one (dwtDct: 30 frames with the 64-bit id; rivaGan, 32 bits, the most it carries: 2 frames of
the first clip, its ONNX model taking 10-20 s a 1080p frame on two cores), written losslessly,
attacked with the same ffmpeg commands, and each attacked frame decoded (dwtDct: the first 5,
rivaGan: the first). Printed: seconds per frame to mark, PSNR-Y of the marked frames against
the source, and per attack the share of bits right and of frames with every bit right.

rivaGan's module imports torch only to reshape arrays around its ONNX models; when torch is
missing (its PyPI wheel is CUDA's, gigabytes), the few calls it makes are supplied by numpy.
"""
import importlib.util
import os
import subprocess
import sys
import time
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("forensic_bench", os.path.join(HERE, "forensic-bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

try:
    import torch  # noqa: F401
except ImportError:
    class _Array:
        def __init__(self, a):
            self.a = np.asarray(a)

        def __truediv__(self, o): return _Array(self.a / o)
        def __sub__(self, o): return _Array(self.a - o)
        def __add__(self, o): return _Array(self.a + o)
        def __mul__(self, o): return _Array(self.a * o)
        def __getitem__(self, k): return _Array(self.a[k])
        def permute(self, *d): return _Array(np.transpose(self.a, d))
        def unsqueeze(self, i): return _Array(np.expand_dims(self.a, i))
        def detach(self): return self
        def cpu(self): return self
        def numpy(self): return self.a

    shim = types.ModuleType("torch")
    shim.from_numpy = _Array
    shim.clamp = lambda t, min, max: _Array(np.clip(t.a, min, max))
    sys.modules["torch"] = shim

from imwatermark import WatermarkDecoder, WatermarkEncoder  # noqa: E402

W, H = 1920, 1080
PAYLOAD = bytes.fromhex(bench.ID)


def frames_of(path, count):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-frames:v", str(count), "-f", "rawvideo",
                          "-pix_fmt", "bgr24", "-"], capture_output=True).stdout
    size = None
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height", "-of", "csv=p=0", path], capture_output=True, text=True).stdout
    w, h = (int(v) for v in probe.strip().split(",")[:2])
    size = w * h * 3
    return [np.frombuffer(raw[i:i + size], np.uint8).reshape(h, w, 3) for i in range(0, len(raw) - size + 1, size)]


def write(frames, path):
    h, w = frames[0].shape[:2]
    p = subprocess.Popen(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "bgr24", "-s", f"{w}x{h}",
                          "-r", "30", "-i", "-", "-c:v", "ffv1", "-pix_fmt", "yuv420p", path], stdin=subprocess.PIPE)
    for f in frames:
        p.stdin.write(f.tobytes())
    p.stdin.close()
    p.wait()


def luma(f):
    f = f.astype(np.float64)
    return 0.114 * f[..., 0] + 0.587 * f[..., 1] + 0.299 * f[..., 2]


def psnr(a, b):
    mse = np.mean((luma(a) - luma(b)) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(255 ** 2 / mse)


def main():
    tmp, clips = sys.argv[1], sys.argv[2:]
    WatermarkEncoder.loadModel()
    WatermarkDecoder.loadModel()
    print("\ninvisible-watermark 0.2.0 (frame by frame) beside ours: bits right % / frames exact %")
    for n, clip in enumerate(clips):
        for method, bits, count, decoded in (("dwtDct", 64, 30, 5), ("rivaGan", 32, 2, 1)):
            if method == "rivaGan" and n > 0:
                continue
            source = frames_of(clip, count)
            enc = WatermarkEncoder()
            enc.set_watermark("bytes", PAYLOAD[:bits // 8])
            start = time.perf_counter()
            marked = [enc.encode(f, method) for f in source]
            per_frame = (time.perf_counter() - start) / len(source)
            quality = np.mean([psnr(m, s) for m, s in zip(marked, source)])
            path = os.path.join(tmp, f"iwm-{method}.mkv")
            write(marked, path)
            print(f"  {os.path.basename(clip)} {method} ({bits} bits): {per_frame:.2f} s/frame to mark, "
                  f"PSNR-Y {quality:.2f} dB")
            dec = WatermarkDecoder("bytes", bits)
            want = np.unpackbits(np.frombuffer(PAYLOAD[:bits // 8], np.uint8))
            for label, attack in bench.ATTACKS.items():
                label = "none (the lossless marked frames)" if attack is None else label
                target = path
                if attack is not None:
                    if "-ss" in attack:
                        print(f"    {label:34s} n/a (the marked excerpt is {count} frames)")
                        continue
                    target = os.path.join(tmp, "iwm-attacked.mp4")
                    bench.attack(path, target, attack)
                got = [np.unpackbits(np.frombuffer(dec.decode(f, method), np.uint8))
                       for f in frames_of(target, decoded)]
                right = np.mean([np.mean(g == want) for g in got]) * 100 if got else 0
                exact = np.mean([np.all(g == want) for g in got]) * 100 if got else 0
                print(f"    {label:34s} {right:5.1f} % / {exact:5.1f} %")


if __name__ == "__main__":
    main()
