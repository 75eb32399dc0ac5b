import CGStreamer
import CGstCheck
import CShim
import GstTestSupport
import Testing

/// The `roi-…` properties: each frame's GstVideoRegionOfInterestMetas (attached here, as a
/// detector would) filled, outlined and labelled where that frame says.
@Suite struct RoiElementTests {
    /// A region of interest to attach: type, rectangle, and a confidence param (nil: none).
    struct Roi {
        var type: String
        var x: UInt32, y: UInt32, w: UInt32, h: UInt32
        var confidence: Double?
        init(_ type: String, _ x: UInt32, _ y: UInt32, _ w: UInt32, _ h: UInt32, confidence: Double? = nil) {
            self.type = type
            (self.x, self.y, self.w, self.h) = (x, y, w, h)
            self.confidence = confidence
        }
    }

    static func attach(_ rois: [Roi], to buffer: UnsafeMutablePointer<GstBuffer>) {
        for r in rois {
            let meta = gst_buffer_add_video_region_of_interest_meta(buffer, r.type, r.x, r.y, r.w, r.h)
            if let c = r.confidence, let meta {
                // Another structure first: the confidence is the first one that has it.
                gst_video_region_of_interest_meta_add_param(meta, gst_structure_new_from_string("tracker, id=(int)3"))
                gst_video_region_of_interest_meta_add_param(
                    meta, gst_structure_new_from_string("detection, confidence=(double)\(c)"))
            }
        }
    }

    /// BGRA frames of 80×60, black, with `rois` attached.
    static func push(_ h: Harness, _ rois: [Roi], frame: Int = 0) -> Frame? {
        h.pushZeroed(bytes: 80 * 60 * 4, pts: GstClockTime(frame) * 33_333_333) { attach(rois, to: $0) }
    }

    static func bgraHarness(_ properties: KeyValuePairs<String, String>) -> Harness {
        let h = Harness(element: "watermark", properties)
        gst_harness_set_src_caps_str(h.h, "video/x-raw,format=BGRA,width=80,height=60,framerate=30/1")
        return h
    }

    /// Whether (x, y) lies in the outline `t` pixels thick outside rectangle (rx, ry, rw, rh).
    static func inBox(_ x: Int, _ y: Int, _ r: Roi, _ t: Int) -> Bool {
        let (rx, ry, rw, rh) = (Int(r.x), Int(r.y), Int(r.w), Int(r.h))
        let outer = x >= rx - t && x < rx + rw + t && y >= ry - t && y < ry + rh + t
        let inner = x >= rx && x < rx + rw && y >= ry && y < ry + rh
        return outer && !inner
    }

    /// Boxes on every frame where that frame's regions are (they move every frame), the
    /// outline outside the rectangle, nothing else touched.
    @Test func boxesFollowEachFramesRegions() throws {
        // 0.05 × 60 = 3 pixels thick.
        let h = Self.bgraHarness(["roi-box-color": "0xFF00FF00", "roi-box-width": "0.05"])
        for n in 0..<3 {
            let rois = [Roi("face", UInt32(10 + 7 * n), 12, 16, 14), Roi("car", 50, UInt32(20 + 5 * n), 20, 10)]
            let frame = try #require(Self.push(h, rois, frame: n))
            for y in 0..<60 {
                for x in 0..<80 {
                    let boxed = rois.contains { Self.inBox(x, y, $0, 3) }
                    let p = frame.bgra(x, y)
                    #expect(p.g == (boxed ? 255 : 0) && p.r == 0 && p.b == 0, "frame \(n) at \(x),\(y)")
                }
            }
            // The metas stay for the elements after.
            var state: gpointer?
            var count = 0
            while gst_buffer_iterate_meta_filtered(
                frame.buffer, &state, gst_video_region_of_interest_meta_api_get_type()) != nil
            {
                count += 1
            }
            #expect(count == 2)
        }
    }

    @Test func typeFilterAndConfidenceThreshold() throws {
        let h = Self.bgraHarness([
            "roi-fill": "solid", "mask-color": "0xFFFFFFFF", "roi-types": "face, license-plate",
            "roi-min-confidence": "0.5",
        ])
        let rois = [
            Roi("face", 2, 2, 10, 10, confidence: 0.8), Roi("face", 20, 2, 10, 10, confidence: 0.3),
            Roi("car", 40, 2, 10, 10, confidence: 0.9), Roi("license-plate", 60, 2, 10, 10),
        ]
        let frame = try #require(Self.push(h, rois))
        let white = [true, false, false, true]
        for (r, drawn) in zip(rois, white) {
            #expect(frame.bgra(Int(r.x) + 5, 7).g == (drawn ? 255 : 0), "\(r.type) \(r.confidence ?? -1)")
        }
        #expect(frame.bgra(5, 30).g == 0)
    }

    /// Grown by 25 % of its size on each side: a 16×8 rectangle becomes 24×12.
    @Test func growWidensTheFilledRectangle() throws {
        let h = Self.bgraHarness(["roi-fill": "solid", "mask-color": "0xFFFFFFFF", "roi-grow": "0.25"])
        let frame = try #require(Self.push(h, [Roi("face", 20, 20, 16, 8)]))
        for y in 0..<60 {
            for x in 0..<80 {
                let inside = (16..<40).contains(x) && (18..<30).contains(y)
                #expect(frame.bgra(x, y).g == (inside ? 255 : 0), "at \(x),\(y)")
            }
        }
    }

    /// Labels above each box, rendered once per text: two regions of the same type and three
    /// frames make one render; a third type one more.
    @Test func labelsAreDrawnAboveTheBoxAndRenderedOncePerText() throws {
        let h = Self.bgraHarness([
            "roi-label": "{roi:type}", "text-size": "0.15", "color": "0xFFFFFFFF", "outline-width": "0",
            "roi-box-color": "0xFF0000FF", "roi-box-width": "0.02",
        ])
        for n in 0..<3 {
            let rois = [Roi("face", UInt32(10 + n), 30, 20, 20), Roi("face", UInt32(50 - n), 35, 20, 20)]
            let frame = try #require(Self.push(h, rois, frame: n))
            for r in rois {
                // Text in the band above the box (its outline 1 pixel thick), none inside it.
                var above = 0, inside = 0
                for x in Int(r.x)..<Int(r.x + r.w) {
                    for y in Int(r.y) - 12..<Int(r.y) - 1 where frame.bgra(x, y).g > 128 { above += 1 }
                    for y in Int(r.y)..<Int(r.y + r.h) where frame.bgra(x, y).g > 128 { inside += 1 }
                }
                #expect(above > 10 && inside == 0, "frame \(n) roi at \(r.x): \(above) lit above, \(inside) inside")
            }
        }
        var count: UInt64 = 0
        g_object_get_uint64(h.element, "render-count", &count)
        #expect(count == 1)
        _ = try #require(Self.push(h, [Roi("car", 10, 30, 20, 20)], frame: 3))
        g_object_get_uint64(h.element, "render-count", &count)
        #expect(count == 2)
    }

    /// A label that would leave the frame (a region at the top) is moved inside it.
    @Test func labelAtTheTopIsMovedInsideTheFrame() throws {
        let h = Self.bgraHarness(["roi-label": "X", "text-size": "0.2", "color": "0xFFFFFFFF", "outline-width": "0"])
        let frame = try #require(Self.push(h, [Roi("face", 30, 0, 20, 20)]))
        var lit = 0
        for y in 0..<20 { for x in 30..<50 where frame.bgra(x, y).g > 128 { lit += 1 } }
        #expect(lit > 10)
    }

    /// A pixelated region on I420: every cell of 0.1 × 80 = 8 pixels inside is uniform and
    /// the mean of the source's pixels there; outside, the frame is as it was.
    @Test func pixelatedRegionOnI420() throws {
        let h = Harness(element: "watermark", ["roi-fill": "pixelate", "mask-cell": "0.1"])
        gst_harness_set_src_caps_str(h.h, "video/x-raw,format=I420,width=80,height=60,framerate=30/1")
        // A luma ramp (x * 2 + y), chroma 128.
        func source(_ x: Int, _ y: Int) -> Int { x * 2 + y }
        let size = 80 * 60 + 2 * 40 * 30
        let frame = try #require(
            h.pushZeroed(bytes: size, pts: 0) { buffer in
                var bytes = [UInt8](repeating: 128, count: size)
                for y in 0..<60 { for x in 0..<80 { bytes[y * 80 + x] = UInt8(source(x, y)) } }
                _ = gst_buffer_fill(buffer, 0, bytes, gsize(size))
                Self.attach([Roi("face", 16, 8, 24, 16)], to: buffer)
            })
        for cy in 1..<3 {
            for cx in 2..<5 {
                var sum = 0
                for y in cy * 8..<cy * 8 + 8 { for x in cx * 8..<cx * 8 + 8 { sum += source(x, y) } }
                let mean = (sum + 32) / 64
                for y in cy * 8..<cy * 8 + 8 {
                    for x in cx * 8..<cx * 8 + 8 {
                        #expect(Int(frame.byte(plane: 0, row: y, offset: x)) == mean, "cell \(cx),\(cy) at \(x),\(y)")
                    }
                }
            }
        }
        for y in 0..<60 {
            for x in 0..<80 where !((16..<40).contains(x) && (8..<24).contains(y)) {
                #expect(Int(frame.byte(plane: 0, row: y, offset: x)) == source(x, y))
            }
        }
    }

    /// Up to 256 regions on one frame are drawn, the rest are not; zero-sized and outside
    /// ones are skipped without counting.
    @Test func atMost256RegionsAreDrawn() throws {
        let h = Self.bgraHarness(["roi-fill": "solid", "mask-color": "0xFFFFFFFF"])
        var rois = [Roi("dot", 0, 0, 0, 5), Roi("dot", 500, 500, 4, 4)]
        for i in 0..<300 { rois.append(Roi("dot", UInt32(i % 80), UInt32(i / 80), 1, 1)) }
        let frame = try #require(Self.push(h, rois))
        var lit = 0
        for y in 0..<60 { for x in 0..<80 where frame.bgra(x, y).g == 255 { lit += 1 } }
        #expect(lit == 256)
        #expect(frame.bgra(79, 2).g == 255 && frame.bgra(15, 3).g == 255 && frame.bgra(16, 3).g == 0)
    }

    /// With the `roi-…` properties at their defaults, regions are not drawn and buffers pass
    /// through untouched.
    @Test func defaultsDrawNothing() throws {
        let h = Self.bgraHarness(["roi-min-confidence": "0.2"])
        let frame = try #require(Self.push(h, [Roi("face", 10, 10, 20, 20)]))
        #expect(frame.litPixels == 0)
    }
}

/// OpenCV's `cvtracker` (Debian's gstreamer1.0-opencv) as a real producer of regions of
/// interest: the ball it tracks is blurred on every frame it reports, where it reports it.
@Suite struct TrackerElementTests {
    @Test func theTrackedBallIsBlurredWhereTheTrackerSaysItIs() throws {
        let source =
            "videotestsrc is-live=true pattern=ball "
            + "! capsfilter caps=video/x-raw,format=RGB,width=320,height=240,framerate=30/1"
        let tracked = Harness(
            "cvtracker draw-rect=false algorithm=CSRT object-initial-x=130 object-initial-y=90 "
                + "object-initial-width=60 object-initial-height=60 ! videoconvert "
                + "! capsfilter caps=video/x-raw,format=I420 ! watermark roi-fill=blur mask-radius=0.03 roi-grow=0.2")
        let plain = Harness("videoconvert ! capsfilter caps=video/x-raw,format=I420")
        gst_harness_add_src_parse(tracked.h, source, 1)
        gst_harness_add_src_parse(plain.h, source, 1)
        var reported = 0
        for n in 0..<30 {
            #expect(gst_harness_push_from_src(tracked.h) == GST_FLOW_OK)
            #expect(gst_harness_push_from_src(plain.h) == GST_FLOW_OK)
            let out = try #require(
                gst_harness_pull(tracked.h).map {
                    Frame(buffer: $0, caps: gst_pad_get_current_caps(tracked.h.pointee.sinkpad))
                })
            let ref = try #require(
                gst_harness_pull(plain.h).map {
                    Frame(buffer: $0, caps: gst_pad_get_current_caps(plain.h.pointee.sinkpad))
                })
            var state: gpointer?
            guard
                let m = gst_buffer_iterate_meta_filtered(
                    out.buffer, &state, gst_video_region_of_interest_meta_api_get_type())
            else { continue }
            let roi = UnsafeMutableRawPointer(m).assumingMemoryBound(to: GstVideoRegionOfInterestMeta.self).pointee
            reported += 1
            // The ball's white (235) inside the tracker's rectangle: many in the source, few
            // left after the blur; outside a margin around it the frame is untouched.
            var white = (source: 0, out: 0)
            let x0 = Int(roi.x), y0 = Int(roi.y), x1 = min(320, x0 + Int(roi.w)), y1 = min(240, y0 + Int(roi.h))
            for y in y0..<y1 {
                for x in x0..<x1 {
                    if ref.byte(plane: 0, row: y, offset: x) >= 230 { white.source += 1 }
                    if out.byte(plane: 0, row: y, offset: x) >= 230 { white.out += 1 }
                }
            }
            #expect(white.source > 100 && white.out * 10 < white.source, "frame \(n): \(white) in \(x0),\(y0)…")
            let gx = Int(roi.w) / 5 + 2, gy = Int(roi.h) / 5 + 2
            var changedOutside = 0
            for y in 0..<240 {
                for x in 0..<320 where x < x0 - gx || x >= x1 + gx || y < y0 - gy || y >= y1 + gy {
                    if out.byte(plane: 0, row: y, offset: x) != ref.byte(plane: 0, row: y, offset: x) {
                        changedOutside += 1
                    }
                }
            }
            #expect(changedOutside == 0, "frame \(n)")
        }
        #expect(reported >= 28, "the tracker reported the ball on \(reported) of 30 frames")
    }
}
