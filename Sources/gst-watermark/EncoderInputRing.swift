// Invariant: a ring is touched only by the streaming thread that pushes into the encoder's
// sink pad (pad probes on one pad are called one buffer at a time), and freed when the
// probe and every buffer wrapping one of its slots are gone (each holds a reference).
// A slot is overwritten `slotCount` frames after it was handed over: only after the encoder
// has returned from encoding that frame, which is when x264enc has read the last of it.

import CGStreamer
import Glibc

/// Where a file export's peak memory went beyond ffmpeg's: GStreamer 1.22's x264enc keeps
/// every input frame mapped until x264 has output that frame (its `FrameData` list), though
/// x264 copied the picture when it was given it. With the preset's lookahead, B-frames and
/// frame threads that is 16 frames at veryfast (50 MB at 1080p, 200 MB at 4K) held for
/// nothing. The encoder is given instead a copy of each frame in one of a few slots used in
/// turn, and the frame itself goes back to the decoder at once: what x264enc keeps then
/// points at a slot already reused, which it never reads again (it unmaps it, and reads
/// only the buffer's metadata).
///
/// Only for x264enc, whose `handle_frame` encodes (and so copies) synchronously: the
/// export's encoder is fed by one streaming thread, and the next frame reaches the probe
/// only once the encoder has returned from the previous one.
final class EncoderInputRing: @unchecked Sendable {
    /// Frames in flight between the probe and the end of the encoder's `handle_frame`: one;
    /// a second slot is a margin.
    static let slotCount = 2

    private var slots: [(data: UnsafeMutableRawPointer, size: Int)] = []
    /// Slots replaced after a size change: a held buffer may still point into one.
    private var retired: [UnsafeMutableRawPointer] = []
    private var next = 0

    deinit {
        for s in slots { free(s.data) }
        for r in retired { free(r) }
    }

    /// Feeds `encoder`'s sink pad from the ring.
    func attach(to encoder: UnsafeMutablePointer<GstElement>) {
        guard let pad = gst_element_get_static_pad(encoder, "sink") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        _ = gst_pad_add_probe(
            pad, GST_PAD_PROBE_TYPE_BUFFER,
            { _, info, data in
                guard let info, let data, let buffer = gst_pad_probe_info_get_buffer(info) else {
                    return GST_PAD_PROBE_OK
                }
                let ring = Unmanaged<EncoderInputRing>.fromOpaque(data).takeUnretainedValue()
                if let copy = ring.copy(buffer) {
                    info.pointee.data = UnsafeMutableRawPointer(copy)
                    gst_buffer_unref(buffer)
                }
                return GST_PAD_PROBE_OK
            }, Unmanaged.passRetained(self).toOpaque(),
            { data in if let data { Unmanaged<EncoderInputRing>.fromOpaque(data).release() } })
    }

    /// A buffer with `buffer`'s pixels in the next slot and its timestamps, flags and metas
    /// (the video meta's plane offsets and strides hold for the copy); nil when it cannot be
    /// made, and the encoder gets the frame itself.
    private func copy(_ buffer: UnsafeMutablePointer<GstBuffer>) -> UnsafeMutablePointer<GstBuffer>? {
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(buffer, &map) }
        let size = Int(map.size)
        guard size > 0, let source = map.data else { return nil }
        let index = next
        if index == slots.count {
            guard let data = malloc(size) else { return nil }
            slots.append((data, size))
        } else if slots[index].size != size {
            guard let data = malloc(size) else { return nil }
            retired.append(slots[index].data)
            slots[index] = (data, size)
        }
        next = (index + 1) % Self.slotCount
        let slot = slots[index].data
        slot.copyMemory(from: source, byteCount: size)
        guard
            let copy = gst_buffer_new_wrapped_full(
                GST_MEMORY_FLAG_READONLY, slot, gsize(size), 0, gsize(size), Unmanaged.passRetained(self).toOpaque(),
                { data in if let data { Unmanaged<EncoderInputRing>.fromOpaque(data).release() } })
        else { return nil }
        let what = GstBufferCopyFlags(
            rawValue: GST_BUFFER_COPY_FLAGS.rawValue | GST_BUFFER_COPY_TIMESTAMPS.rawValue
                | GST_BUFFER_COPY_META.rawValue)
        _ = gst_buffer_copy_into(copy, buffer, what, 0, gsize.max)
        return copy
    }
}
