// Feeds x264enc and x265enc without their holding the frames.
//
// Both keep every input buffer (mapped) until its encoded frame comes out, up to the
// encoder's delay (17 frames for x264 at veryfast with 3 frame threads), and they answer
// the allocation query with a pool of that many buffers, which a decoder or a copying
// element upstream then allocates ahead. Yet x264 and x265 copy each picture into frames of
// their own during the call that takes it (x264_encoder_encode, x265_encoder_encode), as
// ffmpeg relies on when it hands its frame back at once. At 1080p the held frames cost
// 53 MB that ffmpeg does not spend (Benchmarks/README.md, "Exporting a file, next to ffmpeg").
//
// The feed gives the encoder a buffer that wraps the frame's memory without owning it, and
// keeps the frame itself only until the next one arrives: by then the encoder's chain
// function, which took the copy, has returned (buffers reach one pad from one streaming
// thread, one after the other). The allocation query's answer asks for no buffers ahead.
//
// The feed also lowers the priority of the encoder's threads below the decoder's
// (`yieldToDecoder`), so the decoder's one thread keeps both cores fed.

import CGStreamer
import Glibc
import Synchronization

final class EncoderFeed: Sendable {
    /// The frame whose memory the encoder read last, mapped, and its map.
    private struct Held: @unchecked Sendable {
        var buffer: UnsafeMutablePointer<GstBuffer>?
        var map = GstMapInfo()
    }
    private let held = Mutex(Held())
    /// Whether the encoder's threads have been given their priority.
    private let lowered = Atomic<Bool>(false)

    /// The encoders whose input the feed can take over.
    static let encoders: Set<String> = ["x264enc", "x265enc"]

    /// Puts a feed in front of every x264enc and x265enc in `bin`; the pipeline keeps it.
    static func attach(to bin: UnsafeMutablePointer<GstBin>) {
        for element in elements(in: bin, madeBy: encoders) {
            defer { gst_object_unref(UnsafeMutableRawPointer(element)) }
            guard let pad = gst_element_get_static_pad(element, "sink") else { continue }
            let feed = EncoderFeed()
            let types = GstPadProbeType(
                GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM.rawValue
                    | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue)
            _ = gst_pad_add_probe(
                pad, types,
                { _, info, data in
                    guard let info, let data else { return GST_PAD_PROBE_OK }
                    return Unmanaged<EncoderFeed>.fromOpaque(data).takeUnretainedValue().probe(info)
                }, Unmanaged.passRetained(feed).toOpaque(),
                { data in if let data { Unmanaged<EncoderFeed>.fromOpaque(data).release() } })
            gst_object_unref(UnsafeMutableRawPointer(pad))
        }
    }

    deinit { release() }

    private func probe(_ info: UnsafeMutablePointer<GstPadProbeInfo>) -> GstPadProbeReturn {
        let type = info.pointee.type.rawValue
        if type & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0 {
            guard let frame = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self),
                let lease = lease(frame)
            else { return GST_PAD_PROBE_OK }
            info.pointee.data = UnsafeMutableRawPointer(lease)
        } else if type & GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM.rawValue != 0,
            type & GST_PAD_PROBE_TYPE_PULL.rawValue != 0,
            let query = info.pointee.data?.assumingMemoryBound(to: GstQuery.self),
            query.pointee.type == GST_QUERY_ALLOCATION
        {
            // The encoder answered: no buffers need be allocated ahead for it.
            for i in 0..<gst_query_get_n_allocation_pools(query) {
                var pool: UnsafeMutablePointer<GstBufferPool>?
                var size: guint = 0, least: guint = 0, most: guint = 0
                gst_query_parse_nth_allocation_pool(query, i, &pool, &size, &least, &most)
                gst_query_set_nth_allocation_pool(query, i, pool, size, 0, most)
                if let pool { gst_object_unref(UnsafeMutableRawPointer(pool)) }
            }
        } else if type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue != 0,
            let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self)
        {
            if event.pointee.type == GST_EVENT_EOS || event.pointee.type == GST_EVENT_FLUSH_STOP {
                release()
            } else if event.pointee.type == GST_EVENT_CAPS,
                !lowered.exchange(true, ordering: .relaxed)
            {
                Self.yieldToDecoder()
            }
        }
        return GST_PAD_PROBE_OK
    }

    /// Lowers the priority (nice +5) of the thread about to open the encoder (its caps come
    /// first), so that the encoder's own threads, which it starts there and which inherit it,
    /// yield to the decoder's. With one decoder thread against x264's four (3 frame threads
    /// and the lookahead), an even share left the decoder behind: the queue between them ran
    /// dry, x264's threads waited for frames, and the cores were busy 1.8–1.9 of 2 where
    /// ffmpeg's are busy 2.0 (its decoder has 3 threads, which cost memory). 1080p, 3
    /// interleaved rounds: 18.6 s against 19.7 s, ffmpeg 19.0 s, at the same CPU time and
    /// memory (Benchmarks/README.md, "Exporting a file").
    ///
    /// Linux keeps a nice value per thread (`who` 0: the calling thread). The value is set
    /// from the process's own (its main thread's), not added to the thread's: GLib reuses
    /// idle threads for later tasks, and a batch's next pipeline may get this thread back.
    private static func yieldToDecoder() {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        errno = 0
        let process = getpriority(which, id_t(getpid()))
        guard errno == 0 else { return }
        _ = setpriority(which, 0, min(19, process + 5))
    }

    /// A buffer over `frame`'s memory, with its timestamps, flags and metas, that does not
    /// keep `frame`; `frame` is kept (mapped) until the next call. Nil: `frame` goes as it is.
    private func lease(_ frame: UnsafeMutablePointer<GstBuffer>) -> UnsafeMutablePointer<GstBuffer>? {
        var map = GstMapInfo()
        guard gst_buffer_map(frame, &map, GST_MAP_READ) != 0 else { return nil }
        guard let data = map.data,
            let wrapper = gst_buffer_new_wrapped_full(
                GST_MEMORY_FLAG_READONLY, UnsafeMutableRawPointer(data), map.size, 0, map.size, nil, nil)
        else {
            gst_buffer_unmap(frame, &map)
            return nil
        }
        let flags = GstBufferCopyFlags(
            GST_BUFFER_COPY_FLAGS.rawValue | GST_BUFFER_COPY_TIMESTAMPS.rawValue | GST_BUFFER_COPY_META.rawValue)
        _ = gst_buffer_copy_into(wrapper, frame, flags, 0, gsize.max)
        // The layout (a decoder's planes are often apart by more rows than the picture has):
        // metas of a pool's buffer are not copied, so the video meta is made anew.
        if let meta = gst_buffer_get_video_meta(frame), gst_buffer_get_video_meta(wrapper) == nil {
            var offsets = meta.pointee.offset
            var strides = meta.pointee.stride
            let added = withUnsafeMutableBytes(of: &offsets) { o in
                withUnsafeMutableBytes(of: &strides) { st in
                    gst_buffer_add_video_meta_full(
                        wrapper, meta.pointee.flags, meta.pointee.format, meta.pointee.width, meta.pointee.height,
                        meta.pointee.n_planes, o.baseAddress?.assumingMemoryBound(to: gsize.self),
                        st.baseAddress?.assumingMemoryBound(to: gint.self))
                }
            }
            if added == nil {
                gst_buffer_unref(wrapper)
                gst_buffer_unmap(frame, &map)
                return nil
            }
        }
        held.withLock { h in
            if let old = h.buffer {
                gst_buffer_unmap(old, &h.map)
                gst_buffer_unref(old)
            }
            h.buffer = frame
            h.map = map
        }
        return wrapper
    }

    private func release() {
        held.withLock { h in
            if let old = h.buffer {
                gst_buffer_unmap(old, &h.map)
                gst_buffer_unref(old)
            }
            h.buffer = nil
        }
    }
}
