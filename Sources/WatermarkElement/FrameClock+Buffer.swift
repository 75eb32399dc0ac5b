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
        clock.cameraClock = CameraTime.of(buffer)
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
        // The next frame's camera time, if the camera keeps pace with the stream.
        next.cameraClock = clock.cameraClock.map { $0 + seconds }
        return next
    }
}

/// A frame's capture time in the camera's clock, for `{camera-clock}` and the CLI's report of
/// how far a camera's clock is from this machine's.
package enum CameraTime {
    /// Seconds between the NTP epoch (1900) and the Unix epoch (1970).
    package static let ntpToUnix: Double = 2_208_988_800

    /// The camera's capture time of the buffer, seconds since the Unix epoch: its
    /// `timestamp/x-ntp` reference timestamp (rtspsrc's `add-reference-timestamp-meta`, from
    /// the camera's RTCP sender reports, nanoseconds since 1900); nil without one.
    package static func of(_ buffer: UnsafeMutablePointer<GstBuffer>) -> Double? {
        var state: gpointer?
        let api = gst_reference_timestamp_meta_api_get_type()
        while let meta = gst_buffer_iterate_meta_filtered(buffer, &state, api) {
            let ref = UnsafeMutableRawPointer(meta).assumingMemoryBound(to: GstReferenceTimestampMeta.self)
            guard let caps = ref.pointee.reference, gst_caps_get_size(caps) > 0,
                let structure = gst_caps_get_structure(caps, 0),
                gst_structure_has_name(structure, "timestamp/x-ntp") != 0,
                ref.pointee.timestamp != GstClockTime.max
            else { continue }
            return Double(ref.pointee.timestamp) / 1e9 - ntpToUnix
        }
        return nil
    }
}
