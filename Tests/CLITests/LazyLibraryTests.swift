import Foundation
import GstTestSupport
import Testing

/// The libraries only some jobs need are opened the first time one needs them, not linked:
/// the plugin and the tool start without them, and a job that does not use one neither
/// loads it nor fails for want of it.
@Suite(.serialized) struct LazyLibraryTests {
    private static func needed(_ path: String) throws -> [Substring] {
        let (status, dynamic) = TestEnv.run(["readelf", "-d", path])
        try #require(status == 0, "\(dynamic)")
        return dynamic.split(separator: "\n").filter { $0.contains("(NEEDED)") }
    }

    /// The plugin opens FFmpeg (animated PNG), librsvg (SVG), libass (subtitles) and CUDA on
    /// first use: linked, libavcodec alone would bring over a hundred codec libraries (~30 MB
    /// resident) into every pipeline with a PNG logo. The tool opens FFmpeg (an export's
    /// capture metadata), libsoup (`--control`) and gst-rtsp-server (`stream rtsp://`) so.
    @Test func neitherThePluginNorTheToolLinksThem() throws {
        let bin = try #require(CLI.binary)
        let plugin = URL(fileURLWithPath: bin).deletingLastPathComponent().appendingPathComponent(
            "libgstwatermark.so"
        ).path
        let lazy = ["libav", "librsvg", "libass", "libcuda", "libgstcuda", "libnvrtc", "libsoup", "libgstrtspserver"]
        for path in [plugin, bin] {
            let needed = try Self.needed(path)
            #expect(needed.count > 5, "\(path): \(needed)")
            #expect(!needed.contains { line in lazy.contains { line.contains($0) } }, "\(path): \(needed)")
        }
    }

    /// Where FFmpeg's libraries cannot be opened (here: libavformat replaced by an empty file
    /// in a private mount namespace), an export of a file GStreamer decodes without them
    /// still runs, and says what it leaves out; `--burn-subtitles`, which needs FFmpeg to
    /// read the track, is a one-line error naming it.
    @Test func anExportWithoutFFmpegSaysWhatItLeavesOut() throws {
        let bin = try #require(CLI.binary)
        let input = TestEnv.path("noffmpeg-in.webm")
        let (made, log) = TestEnv.run([
            "gst-launch-1.0", "-q", "videotestsrc", "num-buffers=30", "!", "video/x-raw,width=320,height=240",
            "!", "vp8enc", "!", "webmmux", "!", "filesink", "location=\(input)",
        ])
        try #require(made == 0, "\(log)")
        let output = TestEnv.path("noffmpeg-out.mp4")
        let script = """
            \(bin) export \(input) \(output) --text hi || exit 1
            \(bin) export \(input) \(TestEnv.path("noffmpeg-burn.mp4")) --burn-subtitles && exit 2
            exit 0
            """
        guard
            let (rc, out) = TestEnv.runWithout(
                library: "libavformat.so.59", script,
                environment: ["GST_REGISTRY": TestEnv.path("noffmpeg-registry.bin")])
        else { return }
        #expect(rc == 0, "\(out)")
        #expect(
            out.contains("reading the input's capture metadata and tracks needs FFmpeg's libavformat")
                && out.contains("the input's capture metadata and extra tracks are not kept"), "\(out)")
        #expect(out.contains("--burn-subtitles: reading the input's capture metadata"), "\(out)")
        #expect(MediaCount.of(output)?.videoFrames == 30, "\(out)")
    }
}
