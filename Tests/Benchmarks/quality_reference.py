#!/usr/bin/env python3
"""The reference encoders of the quality benchmark (issue 13 item 5), measured the way QualityBench measures ours.

Encodes a 1280x720 30 fps Y4M with GStreamer's openh264enc (CBR, frame skipping on, as WebRTC configures OpenH264)
or ffmpeg/libx264 (CBR-like VBV, zerolatency) into Matroska (so skipped frames leave timestamp gaps), then:
frames delivered, longest freeze (largest gap between delivered frames), 10 s average bitrate, busiest 1 s window,
and delivered PSNR-Y: each decoded picture is shown until the next (ffmpeg's fps filter repeats it), compared with
the source frame by frame (ffmpeg psnr filter), the per-frame PSNR-Y averaged (capped at 100 dB, as QualityBench).

Usage: quality_reference.py SOURCE.y4m LABEL openh264enc|openh264enc-denoise|x264|x264-WxH TARGET_BPS [TARGET_BPS...]
(x264-WxH scales the source down first, with the box filter our encoder uses, and back up for the comparison;
openh264enc-denoise is openh264enc with its enable-denoise property on, as our encoder runs by default.)
"""
import os
import subprocess
import sys
import tempfile

FPS = 30
FRAMES = 300


def encode(kind, source, target, output):
    if kind.startswith("openh264enc"):
        denoise = "true" if kind == "openh264enc-denoise" else "false"
        subprocess.run([
            "gst-launch-1.0", "-q", "filesrc", f"location={source}", "!", "y4mdec", "!",
            "openh264enc", "rate-control=bitrate", f"bitrate={target}", f"max-bitrate={target * 3 // 2}",
            "enable-frame-skip=true", "gop-size=100000", "multi-thread=1", "usage-type=camera",
            f"enable-denoise={denoise}", "!",
            "h264parse", "!", "matroskamux", "!", "filesink", f"location={output}"], check=True)
    else:
        size = kind.split("-", 1)[1].replace("x", ":") if "-" in kind else "1280:720"
        subprocess.run([
            "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source, "-frames:v", str(FRAMES), "-vf", f"scale={size}:flags=area",
            "-c:v", "libx264",
            "-preset", "veryfast", "-tune", "zerolatency", "-profile:v", "baseline", "-threads", "1",
            "-b:v", str(target), "-maxrate", str(target), "-bufsize", str(target), "-g", "100000",
            "-f", "matroska", output], check=True)


def measure(source, encoded, target):
    packets = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,size", "-of", "csv=p=0",
         encoded], check=True, capture_output=True, text=True).stdout.split()
    frames = []
    for line in packets:
        pts, size = line.split(",")[:2]
        frames.append((round(float(pts) * FPS), int(size)))
    frames.sort()
    delivered = len(frames)
    indices = [index for index, _ in frames] + [FRAMES]
    longest = max(b - a for a, b in zip([indices[0]] + indices[:-1], indices)) if frames else FRAMES
    longest = max(longest, indices[0] + 1)
    bits = sum(size for _, size in frames) * 8
    per_frame = [0] * FRAMES
    for index, size in frames:
        if 0 <= index < FRAMES:
            per_frame[index] += size * 8
    busiest = max(sum(per_frame[i:i + FPS]) for i in range(FRAMES - FPS + 1))
    with tempfile.NamedTemporaryFile(suffix=".log") as stats:
        subprocess.run([
            "ffmpeg", "-nostdin", "-v", "error", "-i", encoded, "-i", source, "-lavfi",
            f"[0:v]fps={FPS},scale=1280:720:flags=bilinear,trim=end_frame={FRAMES}[d];"
            f"[1:v]trim=end_frame={FRAMES}[s];[d][s]psnr=stats_file={stats.name}",
            "-f", "null", "-"], check=True)
        values = []
        for line in open(stats.name):
            fields = dict(item.split(":", 1) for item in line.split() if ":" in item)
            value = float(fields.get("psnr_y", "inf"))
            values.append(min(value, 100.0))
    # Frames after the last decoded picture (if the stream ends with skips) still count, as a repeat.
    psnr = sum(values) / len(values) if values else 0.0
    seconds = FRAMES / FPS
    return (f"{delivered}/{FRAMES} | {longest * 1000 / FPS:.0f} ms | {bits / seconds:.0f} | "
            f"{bits / seconds / target:.2f}x | {busiest / target:.2f}x | {psnr:.2f} dB")


def main():
    source, label, kind = sys.argv[1:4]
    targets = [int(t) for t in sys.argv[4:]]
    with tempfile.TemporaryDirectory() as directory:
        for target in targets:
            output = os.path.join(directory, f"{kind}-{target}.mkv")
            encode(kind, source, target, output)
            name = kind if kind.startswith("x264-") else f"{kind} 1280x720"
            print(f"{label} | {name} | {target} | {measure(source, output, target)}", flush=True)


if __name__ == "__main__":
    main()
