// What the relay's threads share: the source's streaming threads push the input's buffers
// through `RelayShared`, the relay's loop attaches and detaches the output, and a restream's
// pacer keeps the output's frames coming at its frame rate while the input is away.
// Invariant: the state lock is only held to read or change the state; buffers are pushed
// into appsrcs after it is released, with a reference to the appsrc taken under it.

import CGStreamer
import CGstApp
import Glibc
import Synchronization
import Watermark

/// The output's appsrcs, the connection's time offset and progress: the source's
/// streaming threads push through it, the loop attaches and detaches the output.
final class RelayShared: Sendable {
    struct Held {
        var buffer: UnsafeMutablePointer<GstBuffer>
        var runningTime: GstClockTime
        var video: Bool
    }

    struct State {
        /// The running output's appsrcs (nil: no output, or stopped to be started again).
        var video: UnsafeMutablePointer<GstElement>?
        var audio: UnsafeMutablePointer<GstElement>?
        /// Monotonic time the output started (its running time is counted from there).
        var outputStart: UInt64 = 0
        var lastVideoPTS: UInt64?
        var lastAudioPTS: UInt64?
        /// Whether this connection's buffers go to the output; until then they are held
        /// (at most `holdLimit`).
        var connected = false
        var held: [Held] = []
        /// Output time minus input running time, for this connection.
        var offset: Int64?
        /// This connection's video caps, frames and the monotonic time of the last frame.
        var caps: UnsafeMutablePointer<GstCaps>?
        var frames = 0
        var lastFrame: UInt64 = 0
        /// This machine's clock minus the camera's time on the connection's first such frame.
        var cameraOffset: Double?
        var toldCameraOffset = false
        /// A restream's pace: the output's frame interval (nil: not paced), the last input
        /// frame the output got (a reference, to send again), the slate, when the output
        /// last got a frame and whether that was the pacer's.
        var interval: UInt64?
        var lastVideo: UnsafeMutablePointer<GstBuffer>?
        var slate: UnsafeMutablePointer<GstBuffer>?
        var lastSent: UInt64 = 0
        var repeating = false
    }

    static let holdLimit = 120
    let state = Locked(State())
    /// A restream's frame interval when the input's caps give no frame rate (nil: a
    /// recording, which is not paced).
    let defaultInterval: UInt64?
    /// How long the input is away before the pacer sends the slate instead of its last frame.
    let slateAfter: UInt64
    private let pacing = Atomic<Bool>(true)

    init(defaultInterval: UInt64? = nil, slateAfter: UInt64 = 1_000_000_000) {
        self.defaultInterval = defaultInterval
        self.slateAfter = slateAfter
    }

    var hasPendingVideo: Bool { state.withLock { s in !s.connected && s.held.contains { $0.video } } }

    var progress: (frames: Int, last: UInt64) { state.withLock { ($0.frames, $0.lastFrame) } }

    /// This connection's video caps (a reference the caller owns), once a frame came.
    var connectionCaps: UnsafeMutablePointer<GstCaps>? { state.withLock { s in s.caps.map { gst_caps_ref($0) } } }

    func takeCameraOffset() -> Double? {
        state.withLock { s in
            guard !s.toldCameraOffset, let o = s.cameraOffset else { return nil }
            s.toldCameraOffset = true
            return o
        }
    }

    /// A buffer from the input (a streaming thread). Its running time in the input becomes
    /// a time in the output's; until the output takes the connection, it is held.
    func push(_ sample: OpaquePointer, video: Bool) {
        guard let buffer = gst_sample_get_buffer(sample) else { return }
        let pts = buffer.pointee.pts
        var rt = GstClockTime.max
        if pts != GstClockTime.max, let segment = gst_sample_get_segment(sample) {
            rt = gst_segment_to_running_time(segment, GST_FORMAT_TIME, pts)
        }
        let now = monotonicNanos()
        var camera: Double?
        if video, let t = CameraTime.of(buffer) {
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            camera = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 - t
        }
        // A shallow copy: the same memory, its own times and metadata (the camera's time).
        guard let copy = gst_buffer_copy(buffer) else { return }
        let target: UnsafeMutablePointer<GstElement>? = state.withLock { s in
            if video {
                s.frames += 1
                s.lastFrame = now
                if s.cameraOffset == nil, let camera { s.cameraOffset = camera }
                if s.caps == nil, let caps = gst_sample_get_caps(sample) { s.caps = gst_caps_ref(caps) }
            }
            guard s.connected else {
                if s.held.count < Self.holdLimit {
                    s.held.append(Held(buffer: copy, runningTime: rt, video: video))
                } else {
                    gst_buffer_unref(copy)
                }
                return nil
            }
            guard let src = video ? s.video : s.audio else {
                gst_buffer_unref(copy)
                return nil
            }
            stamp(copy, runningTime: rt, video: video, &s)
            if video { s.sent(buffer, at: now) }
            return retained(src)
        }
        guard let target else { return }
        gst_app_src_push_buffer(appsrc(target), copy)
        gst_object_unref(UnsafeMutableRawPointer(target))
    }

    /// Gives the buffer its output time, from this connection's offset.
    private func stamp(
        _ buffer: UnsafeMutablePointer<GstBuffer>, runningTime: GstClockTime, video: Bool, _ s: inout State
    ) {
        let elapsed = Int64(bitPattern: monotonicNanos() &- s.outputStart)
        let known = runningTime != GstClockTime.max && runningTime < GstClockTime(Int64.max)
        if s.offset == nil { s.offset = known ? elapsed - Int64(runningTime) : 0 }
        let pts = known ? Int64(runningTime) &+ (s.offset ?? 0) : elapsed
        var out = UInt64(max(0, pts))
        let last = video ? s.lastVideoPTS : s.lastAudioPTS
        if let last, out <= last { out = last + (video ? 1_000_000 : 1) }
        if video { s.lastVideoPTS = out } else { s.lastAudioPTS = out }
        buffer.pointee.pts = GstClockTime(out)
        buffer.pointee.dts = GstClockTime.max
    }

    /// The output takes this connection: the held buffers first. A new output gets the
    /// connection's caps (a restream's output keeps its first: the input is scaled to them);
    /// nil: the output is stopped for now, and the connection's buffers are dropped.
    func attach(_ output: OutputPipeline?) {
        var flush: [(UnsafeMutablePointer<GstElement>, UnsafeMutablePointer<GstBuffer>)] = []
        state.withLock { s in
            if s.video == nil, let output {
                if let caps = s.caps { gst_app_src_set_caps(appsrc(output.video), caps) }
                s.video = output.video
                s.audio = output.audio
                s.outputStart = output.startTime
                s.lastVideoPTS = nil
                s.lastAudioPTS = nil
                if let d = defaultInterval { s.interval = s.caps.flatMap(Self.frameInterval) ?? d }
            }
            s.connected = true
            s.offset = nil
            for h in s.held {
                guard let src = h.video ? s.video : s.audio else {
                    gst_buffer_unref(h.buffer)
                    continue
                }
                stamp(h.buffer, runningTime: h.runningTime, video: h.video, &s)
                if h.video { s.sent(h.buffer, at: monotonicNanos()) }
                flush.append((src, h.buffer))
            }
            s.held = []
        }
        for (src, buffer) in flush { gst_app_src_push_buffer(appsrc(src), buffer) }
    }

    /// The input is gone: buffers are held again, the next connection gets its own offset.
    func connectionEnded() {
        state.withLock { s in
            for h in s.held { gst_buffer_unref(h.buffer) }
            s.held = []
            s.connected = false
            s.offset = nil
            s.frames = 0
            if let c = s.caps { gst_caps_unref(c) }
            s.caps = nil
            s.cameraOffset = nil
            s.toldCameraOffset = false
        }
    }

    /// The output stops taking buffers (finished, or stopped to be started again).
    func detachOutput() {
        state.withLock { s in
            s.video = nil
            s.audio = nil
        }
    }

    /// The output started again (a restream's receiver came back): times count from `start`.
    func reattach(_ output: OutputPipeline) {
        state.withLock { s in
            s.video = output.video
            s.audio = output.audio
            s.outputStart = output.startTime
            s.offset = nil
            s.lastVideoPTS = nil
            s.lastAudioPTS = nil
        }
    }

    /// The slate a restream sends while its input is away (the reference is the state's).
    func setSlate(_ slate: UnsafeMutablePointer<GstBuffer>?) {
        state.withLock { s in
            if let old = s.slate { gst_buffer_unref(old) }
            s.slate = slate
        }
    }

    var hasSlate: Bool { state.withLock { $0.slate != nil } }

    /// The interval of the caps' frame rate (nil: none, or variable).
    static func frameInterval(_ caps: UnsafeMutablePointer<GstCaps>) -> UInt64? {
        guard gst_caps_get_size(caps) > 0, let st = gst_caps_get_structure(caps, 0) else { return nil }
        var n: gint = 0
        var d: gint = 0
        guard gst_structure_get_fraction(st, "framerate", &n, &d) != 0, n > 0, d > 0 else { return nil }
        return UInt64(d) * 1_000_000_000 / UInt64(n)
    }

    /// A restream's pacer (its own thread, so that nothing the relay's loop waits for, such
    /// as a reconnect, holds the output up): until `stopPacing`, whenever the output is due a
    /// frame and the input has not sent one, it sends the last input frame again, or the
    /// slate once the input has been away for `slateAfter`. The first repeat comes one and a
    /// half intervals after the input's last frame (a frame that is merely late is not
    /// doubled); repeats follow on the output's own grid.
    func runPacer() {
        while pacing.load(ordering: .relaxed) {
            let wake = paceOnce(now: monotonicNanos())
            var until = timespec(tv_sec: Int(wake / 1_000_000_000), tv_nsec: Int(wake % 1_000_000_000))
            // At most 50 ms at a time, so that stopping is prompt.
            let cap = monotonicNanos() + 50_000_000
            if wake > cap { until = timespec(tv_sec: Int(cap / 1_000_000_000), tv_nsec: Int(cap % 1_000_000_000)) }
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil)
        }
    }

    func stopPacing() { pacing.store(false, ordering: .relaxed) }

    /// Sends a frame if one is due; the monotonic time to look again.
    func paceOnce(now: UInt64) -> UInt64 {
        var buffer: UnsafeMutablePointer<GstBuffer>?
        let (target, wake): (UnsafeMutablePointer<GstElement>?, UInt64) = state.withLock { s in
            guard let interval = s.interval, let src = s.video, s.lastVideoPTS != nil else {
                return (nil, now + 20_000_000)
            }
            let due = s.lastSent + (s.repeating ? interval : interval + interval / 2)
            // A wake-up a little early still counts (the sleep's own jitter).
            guard now + interval / 8 >= due else { return (nil, due) }
            let away = now > s.lastFrame && now - s.lastFrame >= slateAfter
            guard let frame = (away ? s.slate : nil) ?? s.lastVideo, let copy = gst_buffer_copy(frame) else {
                return (nil, now + interval)
            }
            var out = now > s.outputStart ? now - s.outputStart : 0
            if let last = s.lastVideoPTS, out <= last { out = last + 1_000_000 }
            s.lastVideoPTS = out
            copy.pointee.pts = GstClockTime(out)
            copy.pointee.dts = GstClockTime.max
            copy.pointee.duration = GstClockTime.max
            // On the grid while the pacer keeps up; from now when it fell a frame behind.
            s.lastSent = due > now || now - due < interval ? due : now
            s.repeating = true
            buffer = copy
            return (retained(src), s.lastSent + interval)
        }
        if let target, let buffer {
            gst_app_src_push_buffer(appsrc(target), buffer)
            gst_object_unref(UnsafeMutableRawPointer(target))
        }
        return wake
    }

    deinit {
        state.withLock { s in
            if let b = s.lastVideo { gst_buffer_unref(b) }
            if let b = s.slate { gst_buffer_unref(b) }
            for h in s.held { gst_buffer_unref(h.buffer) }
            if let c = s.caps { gst_caps_unref(c) }
        }
    }
}

extension RelayShared.State {
    /// The output got an input frame: the one the pacer sends again if the input stops.
    mutating func sent(_ frame: UnsafeMutablePointer<GstBuffer>, at time: UInt64) {
        guard interval != nil else { return }
        gst_buffer_ref(frame)
        if let old = lastVideo { gst_buffer_unref(old) }
        lastVideo = frame
        lastSent = time
        repeating = false
    }
}

func appsrc(_ element: UnsafeMutablePointer<GstElement>) -> UnsafeMutablePointer<GstAppSrc> {
    UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstAppSrc.self)
}

/// A new reference to the element.
func retained(_ element: UnsafeMutablePointer<GstElement>) -> UnsafeMutablePointer<GstElement> {
    gst_object_ref(UnsafeMutableRawPointer(element))
    return element
}
