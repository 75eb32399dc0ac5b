// Invariant: the decoding thread holds `Shared` and the replay closure, never the window
// itself; when the last reference to the window goes, its deinit sets `stop`, and the
// thread ends its pass at the next frame and exits. Frames enter `frames` only on that
// thread and leave it only under the lock.

import CPangoCairo
import Glibc
import WatermarkModel

/// The frames of an animation too large to keep decoded (over `ImageAnimation.budget`),
/// decoded ahead of the one showing on a thread of their own (`watermark-frames`): the
/// frame asked for last and the `capacity - 1` after it in play order (round the loop) are
/// kept, the others dropped. Animations are delta-coded, so the thread replays the file
/// from its first frame whenever the next frame it needs lies behind it (a new play, a
/// seek back), converting only the frames it keeps.
///
/// The caller's thread never decodes: it takes a frame that is ready, or (`wait`) waits for
/// it, or else shows the last frame it took.
package final class FrameWindow: Sendable {
    /// Plays the file from its first frame, handing `body` each frame (its index and
    /// premultiplied ARGB pixels, `width` per row) until `body` returns false or the play
    /// ends; false if the file could not be read or decoded.
    package typealias Replay = @Sendable (_ body: (Int, UnsafePointer<UInt32>) -> Bool) -> Bool

    final class Shared: Sendable {
        struct State {
            /// The frame asked for last.
            var wanted = 0
            var frames: [Int: DecodedImage] = [:]
            /// The frame handed out last (what shows when the asked one is not ready).
            var shown: DecodedImage?
            var stop = false
            var failed = false
            /// Frames asked for that were not ready (the last frame shown instead).
            var late = 0
            /// Frames converted by the thread.
            var decoded = 0
        }
        let state = Locked(State())
        let count: Int
        let capacity: Int

        init(count: Int, capacity: Int) {
            self.count = count
            self.capacity = capacity
        }

        /// Whether frame `k` is one of the `capacity` frames from `wanted` on.
        func inWindow(_ k: Int, from wanted: Int) -> Bool {
            ((k - wanted) % count + count) % count < capacity
        }

        /// The first frame from `wanted` on, in play order, that the window lacks.
        func firstMissing(_ s: State) -> Int? {
            for d in 0..<capacity where s.frames[(s.wanted + d) % count] == nil {
                return (s.wanted + d) % count
            }
            return nil
        }
    }

    private let shared: Shared
    /// The first frame, decoded at load and kept: shown until the thread has others.
    let first: DecodedImage

    /// How many frames of `frameBytes` each a window holds within `budget` (at least 2).
    /// Seven more frames count against the budget: the first, the one being converted, the
    /// decoder's working pictures (up to two), and up to three a player holds while it draws
    /// one and renders the next (measured: 1920×1080 frames, 8 MB each, get a window of two,
    /// and an export with the animation peaks 61 MB above one with a still logo).
    static func capacity(frameBytes: Int, budget: Int, count: Int) -> Int {
        min(count, max(2, budget / max(1, frameBytes) - 7))
    }

    init(path: String, first: DecodedImage, count: Int, width: Int, height: Int, budget: Int, replay: @escaping Replay)
    {
        self.first = first
        let shared = Shared(
            count: count, capacity: Self.capacity(frameBytes: width * height * 4, budget: budget, count: count))
        shared.state.withLock { $0.frames[0] = first }
        self.shared = shared
        let context = Unmanaged.passRetained(
            Work(shared: shared, replay: replay, path: path, width: width, height: height))
        let thread = g_thread_try_new(
            "watermark-frames",
            { arg in
                guard let arg else { return nil }
                Unmanaged<Work>.fromOpaque(arg).takeRetainedValue().run()
                return nil
            }, context.toOpaque(), nil)
        if let thread {
            g_thread_unref(thread)
        } else {
            context.release()
            shared.state.withLock { $0.failed = true }
        }
    }

    deinit {
        shared.state.withLock { $0.stop = true }
        shared.state.broadcast()
    }

    /// Frames the window keeps at most.
    package var capacity: Int { shared.capacity }

    /// Frame `k`: kept from now on with the frames after it. When it is not decoded yet,
    /// `wait` waits for it (an export: every frame as the file has it); otherwise (live) the
    /// frame shown last stays.
    package func frame(_ k: Int, wait: Bool) -> DecodedImage {
        let s = shared
        guard k >= 0, k < s.count else { return first }
        s.state.withLock { st in
            guard st.wanted != k else { return }
            st.wanted = k
            st.frames = st.frames.filter { s.inWindow($0.key, from: k) }
        }
        s.state.broadcast()
        return s.state.withLock(when: { !wait || $0.frames[k] != nil || $0.failed || $0.stop }) { st, _ in
            if let frame = st.frames[k] {
                st.shown = frame
                return frame
            }
            st.late += 1
            return st.shown ?? first
        }
    }

    /// Frame `k` if it is decoded already (asks for nothing, never waits).
    package func peek(_ k: Int) -> DecodedImage? {
        shared.state.withLock { $0.frames[k] }
    }

    /// Frames not ready when asked for, frames converted so far, and whether decoding failed.
    package var stats: (late: Int, decoded: Int, failed: Bool) {
        shared.state.withLock { ($0.late, $0.decoded, $0.failed) }
    }

    /// The decoding thread's part.
    private final class Work: @unchecked Sendable {
        let shared: Shared
        let replay: Replay
        let path: String
        let width: Int, height: Int

        init(shared: Shared, replay: @escaping Replay, path: String, width: Int, height: Int) {
            self.shared = shared
            self.replay = replay
            self.path = path
            self.width = width
            self.height = height
        }

        func run() {
            let s = shared
            while true {
                // Wait until the window lacks a frame, then play from the first frame.
                guard s.state.withLock(when: { $0.stop || s.firstMissing($0) != nil }, { st, _ in !st.stop }) else {
                    return
                }
                var last = -1
                var stoppedEarly = false
                let played = replay { k, pixels in
                    last = k
                    let keep = s.state.withLock { st in
                        !st.stop && k < s.count && st.frames[k] == nil && s.inWindow(k, from: st.wanted)
                    }
                    if keep,
                        let still = DecodedImage.still(
                            path: path, pixels: pixels, width: width, height: height)
                    {
                        s.state.withLock { st in
                            st.decoded += 1
                            if s.inWindow(k, from: st.wanted) { st.frames[k] = still }
                        }
                        s.state.broadcast()
                    }
                    // On while the next missing frame comes later in this play; back to
                    // the first frame when it lies behind; waiting while none is missing.
                    let go = s.state.withLock(when: { $0.stop || s.firstMissing($0) != nil }) { st, _ -> Bool in
                        guard !st.stop, let missing = s.firstMissing(st) else { return false }
                        return missing > k
                    }
                    if !go { stoppedEarly = true }
                    return go
                }
                // A file that no longer decodes, or has fewer frames than at load, fails
                // for good: the frames kept (and the first) stay.
                let failed = !played || (!stoppedEarly && last < s.count - 1)
                if failed { s.state.withLock { $0.failed = true } }
                s.state.broadcast()
                if failed { return }
            }
        }
    }
}
