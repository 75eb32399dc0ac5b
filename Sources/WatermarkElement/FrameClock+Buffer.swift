// A frame's times (PTS, stream and running time, time code) for placeholders and timing,
// and a guess at the next frame's.

import CGStreamer
import CShim
import Glibc
import WatermarkBlend
import WatermarkModel
import WatermarkRender

extension WatermarkImpl {
    /// The frame's times for placeholders and timing, from its PTS and the segment.
    func frameClock(_ frame: UnsafeMutablePointer<GstVideoFrame>, number: Int) -> FrameClock {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let wall = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        guard let buffer = frame.pointee.buffer else {
            return frameClock(frame.pointee.info, number: number, pts: .max, wall: wall)
        }
        var clock = frameClock(frame.pointee.info, number: number, pts: gst_watermark_buffer_pts(buffer), wall: wall)
        if let meta = gst_buffer_get_meta(buffer, gst_video_time_code_meta_api_get_type()) {
            let tc = UnsafeMutableRawPointer(meta).assumingMemoryBound(to: GstVideoTimeCodeMeta.self)
            if let s = gst_video_time_code_to_string(&tc.pointee.tc) {
                clock.timecode = String(cString: s)
                g_free(s)
            }
        }
        return clock
    }

    /// The times of a frame stamped `pts` (`GstClockTime.max`: none) in the current segment.
    func frameClock(_ info: GstVideoInfo, number: Int, pts: GstClockTime, wall: Double) -> FrameClock {
        var clock = FrameClock(frame: number)
        if info.fps_d > 0 { clock.fps = Double(info.fps_n) / Double(info.fps_d) }
        clock.wallClock = wall
        guard pts != GstClockTime.max else { return clock }
        clock.pts = Double(pts) / 1e9
        let segment = gst_watermark_segment(element)
        let st = gst_segment_to_stream_time(segment, GST_FORMAT_TIME, pts)
        if st != GstClockTime.max { clock.streamTime = Double(st) / 1e9 }
        let rt = gst_segment_to_running_time(segment, GST_FORMAT_TIME, pts)
        if rt != GstClockTime.max { clock.runningTime = Double(rt) / 1e9 }
        return clock
    }

    /// The next frame's times if the stream keeps its pace: stamped this frame's PTS plus its
    /// duration (or one frame at the caps' rate), worked out in nanoseconds as the next frame's
    /// own will be. A time code from metadata cannot be predicted and is kept.
    func nextFrameClock(_ frame: UnsafeMutablePointer<GstVideoFrame>, after clock: FrameClock) -> FrameClock {
        let info = frame.pointee.info
        let buffer = frame.pointee.buffer
        let pts = buffer.map { gst_watermark_buffer_pts($0) } ?? .max
        var duration = buffer.map { $0.pointee.duration } ?? .max
        if duration == GstClockTime.max && info.fps_n > 0 && info.fps_d > 0 {
            duration = gst_util_uint64_scale_int(GstClockTime(1_000_000_000), info.fps_d, info.fps_n)
        }
        let known = pts != GstClockTime.max && duration != GstClockTime.max && pts <= GstClockTime.max - 1 - duration
        let seconds = duration != GstClockTime.max ? Double(duration) / 1e9 : 0
        var next = frameClock(
            info, number: clock.frame &+ 1, pts: known ? pts + duration : .max, wall: clock.wallClock + seconds)
        next.timecode = clock.timecode
        return next
    }

    /// Warns once per font description that is not installed.
}
