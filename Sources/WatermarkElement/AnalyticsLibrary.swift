// GStreamer's analytics metadata (GstAnalyticsRelationMeta, GStreamer 1.24 and later): the
// object detections that onnxinference + ssdobjectdetector, the YOLO tensor decoders and DL
// Streamer attach, followed by the same layers as GstVideoRegionOfInterestMeta. The library
// (libgstanalytics-1.0) is opened the first time a frame carries such a meta: a GStreamer
// without it (1.22) never has one, and a stream without detections never opens it.

import CAnalytics
import CGStreamer
import CShim
import WatermarkModel
import WatermarkSharedLibrary

/// The functions of libgstanalytics-1.0 the element calls, with the prototypes of its 1.24
/// headers (1.26 and 1.28 only add `const` and new functions).
struct AnalyticsLibrary: @unchecked Sendable {
    typealias Meta = UnsafeMutableRawPointer  // GstAnalyticsRelationMeta *
    let iterate:
        @convention(c) (
            Meta?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?, WMAnalyticsMtdType,
            UnsafeMutablePointer<WMAnalyticsMtd>?
        ) -> gboolean
    let getRelation: @convention(c) (Meta?, guint, guint) -> Int32
    let odType: WMAnalyticsMtdType
    let odLocation:
        @convention(c) (
            UnsafePointer<WMAnalyticsMtd>?, UnsafeMutablePointer<gint>?, UnsafeMutablePointer<gint>?,
            UnsafeMutablePointer<gint>?, UnsafeMutablePointer<gint>?, UnsafeMutablePointer<gfloat>?
        ) -> gboolean
    let odObjectType: @convention(c) (UnsafePointer<WMAnalyticsMtd>?) -> GQuark
    let clsType: WMAnalyticsMtdType
    let clsLength: @convention(c) (UnsafePointer<WMAnalyticsMtd>?) -> gsize
    let clsLevel: @convention(c) (UnsafePointer<WMAnalyticsMtd>?, gsize) -> gfloat
    let clsQuark: @convention(c) (UnsafePointer<WMAnalyticsMtd>?, gsize) -> GQuark
    let trackingType: WMAnalyticsMtdType
    let trackingInfo:
        @convention(c) (
            UnsafePointer<WMAnalyticsMtd>?, UnsafeMutablePointer<guint64>?, UnsafeMutablePointer<GstClockTime>?,
            UnsafeMutablePointer<GstClockTime>?, UnsafeMutablePointer<gboolean>?
        ) -> gboolean

    /// The meta API's registered name: a process in which nothing registered it has no such meta.
    static let apiName = "GstAnalyticsRelationMetaAPI"

    /// The library, or why it cannot be used (opened on first use, once per process).
    static let shared = Result { () throws(LibraryUnavailable) in
        let lib = try SharedLibrary("libgstanalytics-1.0.so.0")
        let odType: @convention(c) () -> WMAnalyticsMtdType = try lib.function("gst_analytics_od_mtd_get_mtd_type")
        let clsType: @convention(c) () -> WMAnalyticsMtdType = try lib.function("gst_analytics_cls_mtd_get_mtd_type")
        let trackingType: @convention(c) () -> WMAnalyticsMtdType = try lib.function(
            "gst_analytics_tracking_mtd_get_mtd_type")
        let loaded = AnalyticsLibrary(
            iterate: try lib.function("gst_analytics_relation_meta_iterate"),
            getRelation: try lib.function("gst_analytics_relation_meta_get_relation"),
            odType: odType(),
            odLocation: try lib.function("gst_analytics_od_mtd_get_location"),
            odObjectType: try lib.function("gst_analytics_od_mtd_get_obj_type"),
            clsType: clsType(),
            clsLength: try lib.function("gst_analytics_cls_mtd_get_length"),
            clsLevel: try lib.function("gst_analytics_cls_mtd_get_level"),
            clsQuark: try lib.function("gst_analytics_cls_mtd_get_quark"),
            trackingType: trackingType(),
            trackingInfo: try lib.function("gst_analytics_tracking_mtd_get_info"))
        gst_watermark_log(nil, GST_LEVEL_INFO, "GStreamer's analytics library opened: following its detections")
        return loaded
    }

    /// A detection of `meta`: its class (the top class of a classification related to it, else
    /// its own type), the tracking id related to it (else its entry's id), its box (an oriented
    /// box's bounding rectangle) and confidence.
    func detection(_ od: WMAnalyticsMtd, in meta: Meta) -> (region: RegionOfInterest, quark: GQuark)? {
        var od = od
        var x: gint = 0, y: gint = 0, w: gint = 0, h: gint = 0, confidence: gfloat = 0
        guard odLocation(&od, &x, &y, &w, &h, &confidence) != 0 else { return nil }
        var quark = odObjectType(&od)
        var id = Int64(od.id)
        var state: UnsafeMutableRawPointer?
        var other = WMAnalyticsMtd()
        var best: gfloat = -1
        while iterate(meta, &state, clsType, &other) != 0 {
            guard related(od.id, other.id, in: meta) else { continue }
            for i in 0..<clsLength(&other) where clsLevel(&other, i) > best {
                best = clsLevel(&other, i)
                quark = clsQuark(&other, i)
            }
        }
        state = nil
        while iterate(meta, &state, trackingType, &other) != 0 {
            guard related(od.id, other.id, in: meta) else { continue }
            var tracking: guint64 = 0, first: GstClockTime = 0, last: GstClockTime = 0, lost: gboolean = 0
            if trackingInfo(&other, &tracking, &first, &last, &lost) != 0 {
                id = Int64(truncatingIfNeeded: tracking)
                break
            }
        }
        let name = g_quark_to_string(quark).map { String(cString: $0) } ?? ""
        let region = RegionOfInterest(
            type: name, id: id, x: Int(x), y: Int(y), width: Int(w), height: Int(h),
            confidence: confidence.isFinite ? Double(confidence) : nil)
        return (region, quark)
    }

    /// Whether two entries are related, either way round (producers relate a detection to its
    /// class and its track in either direction).
    private func related(_ a: guint, _ b: guint, in meta: Meta) -> Bool {
        getRelation(meta, a, b) != WM_ANALYTICS_REL_TYPE_NONE || getRelation(meta, b, a) != WM_ANALYTICS_REL_TYPE_NONE
    }
}
