import CAnalytics
import CGStreamer
import CGstCheck
import CShim
import Glibc
import GstTestSupport
import Testing
import WatermarkSharedLibrary

/// An application's side of GStreamer's analytics library (1.24 and later): the calls a
/// detector makes to describe its objects, through the C ABI (dlsym), as a C program would.
struct AnalyticsProducer: @unchecked Sendable {
    typealias Meta = UnsafeMutableRawPointer
    let addMeta: @convention(c) (UnsafeMutablePointer<GstBuffer>?) -> Meta?
    let addOD:
        @convention(c) (Meta?, GQuark, gint, gint, gint, gint, gfloat, UnsafeMutablePointer<WMAnalyticsMtd>?) ->
            gboolean
    /// 1.26 and later.
    let addOrientedOD:
        (
            @convention(c) (
                Meta?, GQuark, gint, gint, gint, gint, gfloat, gfloat, UnsafeMutablePointer<WMAnalyticsMtd>?
            ) -> gboolean
        )?
    let addCls:
        @convention(c) (
            Meta?, gsize, UnsafeMutablePointer<gfloat>?, UnsafeMutablePointer<GQuark>?,
            UnsafeMutablePointer<WMAnalyticsMtd>?
        ) -> gboolean
    let addTracking: @convention(c) (Meta?, guint64, GstClockTime, UnsafeMutablePointer<WMAnalyticsMtd>?) -> gboolean
    let setRelation: @convention(c) (Meta?, Int32, guint, guint) -> gboolean

    /// GST_ANALYTICS_REL_TYPE_RELATE_TO.
    static let relateTo: Int32 = 1 << 3

    /// Whether the running GStreamer has the analytics library (1.24 and later). Where it
    /// does, the tests run and the library must open.
    static let running124 = GstTest.runningAtLeast(1, 24)

    static func load() throws -> AnalyticsProducer {
        let lib = try SharedLibrary("libgstanalytics-1.0.so.0")
        return AnalyticsProducer(
            addMeta: try lib.function("gst_buffer_add_analytics_relation_meta"),
            addOD: try lib.function("gst_analytics_relation_meta_add_od_mtd"),
            addOrientedOD: try? lib.function("gst_analytics_relation_meta_add_oriented_od_mtd"),
            addCls: try lib.function("gst_analytics_relation_meta_add_cls_mtd"),
            addTracking: try lib.function("gst_analytics_relation_meta_add_tracking_mtd"),
            setRelation: try lib.function("gst_analytics_relation_meta_set_relation"))
    }

    /// One detected object: a box of `type`, optionally classified (classes with levels; the
    /// top one is the object's class) and tracked (the tracker's id), optionally turned by
    /// `angle` radians (an oriented box).
    struct Object {
        var type: String
        var x: Int32, y: Int32, w: Int32, h: Int32
        var confidence: Float
        var classes: [(String, Float)] = []
        var track: UInt64?
        var angle: Float = 0
    }

    /// Attaches one relation meta describing `objects` to `buffer`, relating each detection to
    /// its classification (detection → class) and its track (track → detection), as
    /// GStreamer's tensor decoders and trackers do.
    func attach(_ objects: [Object], to buffer: UnsafeMutablePointer<GstBuffer>) {
        guard let meta = addMeta(buffer) else {
            Issue.record("gst_buffer_add_analytics_relation_meta failed")
            return
        }
        for o in objects {
            var od = WMAnalyticsMtd()
            let quark = g_quark_from_string(o.type)
            let added =
                o.angle == 0
                ? addOD(meta, quark, o.x, o.y, o.w, o.h, o.confidence, &od)
                : addOrientedOD?(meta, quark, o.x, o.y, o.w, o.h, o.angle, o.confidence, &od) ?? 0
            #expect(added != 0)
            if !o.classes.isEmpty {
                var levels = o.classes.map(\.1)
                var quarks = o.classes.map { g_quark_from_string($0.0) }
                var cls = WMAnalyticsMtd()
                #expect(addCls(meta, gsize(levels.count), &levels, &quarks, &cls) != 0)
                #expect(setRelation(meta, Self.relateTo, od.id, cls.id) != 0)
            }
            if let track = o.track {
                var trk = WMAnalyticsMtd()
                #expect(addTracking(meta, guint64(track), 0, &trk) != 0)
                #expect(setRelation(meta, Self.relateTo, trk.id, od.id) != 0)
            }
        }
    }
}

/// Follow layers fed only by GStreamer's analytics metadata: the same pixels as the same
/// objects described by GstVideoRegionOfInterestMetas, type filter by class, threshold by the
/// detection's confidence, `{roi:id}` from the tracker, oriented boxes by their bounding
/// rectangle, and one object described both ways drawn once.
@Suite(.enabled(if: AnalyticsProducer.running124, "GStreamer 1.24 or later (its analytics library)"))
struct AnalyticsElementTests {
    typealias Object = AnalyticsProducer.Object

    /// I420 80×60 frames with a luma checkerboard of 4-pixel squares (40 and 190), which a blur
    /// and a pixelation change.
    static func push(_ h: Harness, frame: Int, attach: (UnsafeMutablePointer<GstBuffer>) -> Void) -> Frame? {
        let size = 80 * 60 + 2 * 40 * 30
        return h.pushZeroed(bytes: size, pts: GstClockTime(frame) * 33_333_333) { buffer in
            var bytes = [UInt8](repeating: 128, count: size)
            for y in 0..<60 { for x in 0..<80 { bytes[y * 80 + x] = (x / 4 + y / 4) % 2 == 0 ? 40 : 190 } }
            _ = gst_buffer_fill(buffer, 0, bytes, gsize(size))
            attach(buffer)
        }
    }

    static func harness(_ properties: KeyValuePairs<String, String>) -> Harness {
        let h = Harness(element: "watermark", properties)
        gst_harness_set_src_caps_str(h.h, "video/x-raw,format=I420,width=80,height=60,framerate=30/1")
        return h
    }

    /// The same object as a region-of-interest meta: type, id and confidence param.
    static func attachRoi(
        _ type: String, id: Int32, _ x: UInt32, _ y: UInt32, _ w: UInt32, _ h: UInt32, confidence: Double,
        to buffer: UnsafeMutablePointer<GstBuffer>
    ) {
        guard let meta = gst_buffer_add_video_region_of_interest_meta(buffer, type, x, y, w, h) else { return }
        meta.pointee.id = id
        gst_video_region_of_interest_meta_add_param(
            meta, gst_structure_new_from_string("detection, confidence=(double)\(confidence)"))
    }

    static func planes(_ f: Frame) -> [UInt8] {
        var out: [UInt8] = []
        for (plane, w, h) in [(0, 80, 60), (1, 40, 30), (2, 40, 30)] {
            for y in 0..<h { for x in 0..<w { out.append(f.byte(plane: plane, row: y, offset: x)) } }
        }
        return out
    }

    static let look: KeyValuePairs<String, String> = [
        "roi-fill": "blur", "mask-radius": "0.03", "roi-box-color": "0xFFFF0000", "roi-box-width": "0.02",
        "roi-label": "{roi:type} #{roi:id} {roi:confidence:%.0f}%", "text-size": "0.12", "color": "0xFFFFFFFF",
    ]

    /// Blurred, boxed and labelled exactly as the same objects given as ROI metas (class from
    /// the related classification, id from the related track, confidence from the detection),
    /// on every frame where that frame puts them.
    @Test func detectionsAreHiddenBoxedAndLabelledLikeRegionsOfInterest() throws {
        let producer = try AnalyticsProducer.load()
        let viaAnalytics = Self.harness(Self.look), viaRoi = Self.harness(Self.look)
        for n in 0..<3 {
            let dx = Int32(6 * n)
            let objects = [
                Object(
                    type: "object", x: 8 + dx, y: 20, w: 22, h: 18, confidence: 0.87,
                    classes: [("car", 0.3), ("person", 0.9)], track: 42),
                Object(type: "face", x: 50, y: 30 - dx / 2, w: 16, h: 16, confidence: 0.61),
            ]
            let a = try #require(Self.push(viaAnalytics, frame: n) { producer.attach(objects, to: $0) })
            let r = try #require(
                Self.push(viaRoi, frame: n) { buffer in
                    Self.attachRoi("person", id: 42, UInt32(8 + dx), 20, 22, 18, confidence: 0.87, to: buffer)
                    // A detection without a track is labelled with its entry's id in its meta: 3,
                    // after the first object's detection (0), classification (1) and track (2).
                    Self.attachRoi("face", id: 3, 50, UInt32(30 - dx / 2), 16, 16, confidence: 0.61, to: buffer)
                })
            let plain = try #require(Self.push(Self.harness([:]), frame: n) { _ in })
            let (pa, pr, pp) = (Self.planes(a), Self.planes(r), Self.planes(plain))
            #expect(pa == pr, "frame \(n): \(zip(pa, pr).filter { $0 != $1 }.count) samples differ from the ROI path")
            // Something was drawn inside each box, nothing far from them.
            let column = Int(8 + dx) + 11
            var insideChanged = 0
            for y in 20..<38 where pa[y * 80 + column] != pp[y * 80 + column] { insideChanged += 1 }
            #expect(insideChanged > 5, "frame \(n)")
            #expect(pa[58 * 80 + 40] == pp[58 * 80 + 40] && pa[2 * 80 + 78] == pp[2 * 80 + 78])
        }
    }

    /// `roi-types` matches the class (the classification's top class, else the detection's
    /// own type), `roi-min-confidence` the detection's confidence.
    @Test func typesMatchTheClassAndTheThresholdTheDetectionsConfidence() throws {
        let producer = try AnalyticsProducer.load()
        let h = Self.harness([
            "roi-fill": "solid", "mask-color": "0xFFFFFFFF", "roi-types": "person, face", "roi-min-confidence": "0.5",
        ])
        let objects = [
            Object(
                type: "object", x: 2, y: 2, w: 10, h: 10, confidence: 0.8, classes: [("person", 0.7), ("car", 0.2)]),
            Object(
                type: "person", x: 20, y: 2, w: 10, h: 10, confidence: 0.8, classes: [("car", 0.9), ("person", 0.1)]),
            Object(type: "face", x: 40, y: 2, w: 10, h: 10, confidence: 0.8),
            Object(type: "face", x: 60, y: 2, w: 10, h: 10, confidence: 0.3),
        ]
        let frame = try #require(Self.push(h, frame: 0) { producer.attach(objects, to: $0) })
        for (o, drawn) in zip(objects, [true, false, true, false]) {
            let y = frame.byte(plane: 0, row: 7, offset: Int(o.x) + 5)
            #expect((y == 235) == drawn, "\(o.type) at \(o.x): Y \(y)")
        }
    }

    /// An object a producer describes both ways (an ROI meta and a detection with the same
    /// box) is drawn once: a half-transparent box drawn twice would be darker.
    @Test func oneObjectDescribedBothWaysIsDrawnOnce() throws {
        let producer = try AnalyticsProducer.load()
        let look: KeyValuePairs<String, String> = ["roi-box-color": "0x80FF0000", "roi-box-width": "0.05"]
        let both = Self.harness(look), once = Self.harness(look)
        let b = try #require(
            Self.push(both, frame: 0) { buffer in
                Self.attachRoi("face", id: 1, 20, 20, 20, 20, confidence: 0.9, to: buffer)
                producer.attach([Object(type: "face", x: 20, y: 20, w: 20, h: 20, confidence: 0.9)], to: buffer)
            })
        let o = try #require(
            Self.push(once, frame: 0) { Self.attachRoi("face", id: 1, 20, 20, 20, 20, confidence: 0.9, to: $0) })
        #expect(Self.planes(b) == Self.planes(o))
        // And a second object described only by analytics is still drawn.
        let two = try #require(
            Self.push(both, frame: 1) { buffer in
                Self.attachRoi("face", id: 1, 20, 20, 20, 20, confidence: 0.9, to: buffer)
                producer.attach([Object(type: "face", x: 50, y: 20, w: 20, h: 20, confidence: 0.9)], to: buffer)
            })
        let plain = try #require(Self.push(Self.harness([:]), frame: 1) { _ in })
        #expect(two.byte(plane: 0, row: 30, offset: 48) != plain.byte(plane: 0, row: 30, offset: 48))
    }

    /// An oriented box (GStreamer 1.26) is hidden by its bounding rectangle: a 40×10 box
    /// turned by 90° covers 10×40 around the same centre.
    @Test func orientedBoxesAreHiddenByTheirBoundingRectangle() throws {
        let producer = try AnalyticsProducer.load()
        guard producer.addOrientedOD != nil else { return }  // 1.24: no oriented boxes
        let h = Self.harness(["roi-fill": "solid", "mask-color": "0xFFFFFFFF"])
        let turned = Object(type: "plate", x: 20, y: 25, w: 40, h: 10, confidence: 1, angle: .pi / 2)
        let frame = try #require(Self.push(h, frame: 0) { producer.attach([turned], to: $0) })
        // Centre (40, 30): the bounding rectangle of the turned box is x 35…45, y 10…50.
        #expect(frame.byte(plane: 0, row: 12, offset: 40) == 235 && frame.byte(plane: 0, row: 47, offset: 40) == 235)
        #expect(frame.byte(plane: 0, row: 30, offset: 24) != 235 && frame.byte(plane: 0, row: 30, offset: 56) != 235)
    }
}
