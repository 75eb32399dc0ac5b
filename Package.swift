// swift-tools-version:6.0
import Foundation
import PackageDescription

// The version, written once: VERSION (wm-gen writes it into the Swift code and the man page).
let version =
    (try? String(contentsOfFile: Context.packageDirectory + "/VERSION", encoding: .utf8))?
    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "0.0.0"

// Every C library comes from the system through pkg-config (Debian's -dev packages);
// the package fetches nothing.

// The blend kernels' second build, for x86-64 CPUs with AVX2 (chosen at run time). Swift
// takes the code generator's CPU features from the C importer's flags.
#if arch(x86_64)
    let avx2: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-mavx2"])]
#else
    let avx2: [SwiftSetting] = []
#endif

let package = Package(
    name: "gst-watermark",
    products: [
        // The file must be libgstwatermark.so: GStreamer derives the plugin's entry symbol
        // (gst_plugin_watermark_get_desc) from the file name and skips anything else.
        .library(name: "gstwatermark", type: .dynamic, targets: ["WatermarkElement"]),
        // Typed Swift API for apps embedding the element (and what the CLI builds on).
        .library(name: "Watermark", targets: ["Watermark"]),
        .executable(name: "gst-watermark", targets: ["gst-watermark"]),
    ],
    targets: [
        .systemLibrary(
            name: "CGStreamer", pkgConfig: "gstreamer-video-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        .systemLibrary(
            name: "CGstPbutils", pkgConfig: "gstreamer-pbutils-1.0",
            providers: [.apt(["libgstreamer-plugins-base1.0-dev"])]),
        .systemLibrary(
            name: "CGstApp", pkgConfig: "gstreamer-app-1.0",
            providers: [.apt(["libgstreamer-plugins-base1.0-dev"])]),
        // Types only: gst-rtsp-server and libsoup are opened at run time, by `stream rtsp://`
        // and `--control` (an export loads neither, nor what they bring).
        .systemLibrary(name: "CGstRtspServer"),
        .systemLibrary(name: "CSoup", pkgConfig: "gio-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(
            name: "CGstController", pkgConfig: "gstreamer-controller-1.0",
            providers: [.apt(["libgstreamer1.0-dev"])]),
        .systemLibrary(
            name: "CGstCheck", pkgConfig: "gstreamer-check-1.0",
            providers: [.apt(["libgstreamer1.0-dev"])]),
        .systemLibrary(
            name: "CPangoCairo", pkgConfig: "pangocairo",
            providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        // Types only: librsvg is opened at run time on the first SVG.
        .systemLibrary(name: "CRsvg"),
        // Types only: libass is opened at run time on the first subtitle file.
        .systemLibrary(name: "CAss"),
        // Types only: CUDA is reached through GStreamer's libgstcuda, opened at run time.
        .systemLibrary(name: "CCuda"),
        // Types only: GStreamer's analytics library (1.24 and later) is opened at run time
        // where it exists, for the detections it attaches.
        .systemLibrary(name: "CAnalytics"),
        .systemLibrary(
            name: "CGdkPixbuf", pkgConfig: "gdk-pixbuf-2.0",
            providers: [.apt(["libgdk-pixbuf-2.0-dev"])]),
        .systemLibrary(
            name: "CWebP", pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"])]),
        // FFmpeg's headers only: the element opens the libraries when it first decodes an APNG
        // logo, the CLI when an export first reads its input's capture metadata (neither links them).
        .systemLibrary(name: "CAVTypes"),
        .systemLibrary(name: "CGLib", pkgConfig: "glib-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // Header-only compiler builtins for the blender (no library, no GStreamer include).
        .systemLibrary(name: "CPrefetch"),
        .target(
            name: "CShim",
            dependencies: ["CGStreamer"],
            cSettings: [
                .define("PACKAGE", to: "\"gst-watermark\""),
                .define("VERSION", to: "\"\(version)\""),
            ]
        ),

        // The layers, each importing only those above it in this list. The model and the
        // blender use no C module (but the header-only prefetch): they build and test
        // without GStreamer or cairo on the include path.
        // 0. Opening the C libraries only some jobs need, with dlopen, the first time they are needed.
        .target(name: "WatermarkSharedLibrary"),
        // 1. Pure values: layout, orientation, colours, pixel layouts, timing, keyframes,
        //    the JSON reader, layer specs and config validation, the property table.
        .target(name: "WatermarkModel"),
        // 2. Drawing with cairo, pango, librsvg and gdk-pixbuf: block renderer, text layout,
        //    raster operations, image decoding.
        .target(
            name: "WatermarkRender",
            dependencies: [
                "WatermarkModel", "WatermarkSharedLibrary", "CPangoCairo", "CRsvg", "CAss", "CGdkPixbuf", "CWebP",
                "CAVTypes",
            ]),
        // 3. Rendered pixels converted to a frame format's planes, and the per-frame blend; its
        //    per-run loops built twice, for the baseline CPU and for AVX2 (one source file).
        // Telemetry files (GoPro GPMF in MP4, GPX, DJI logs) read into timed data; GLib only
        // for GMarkup.
        .target(name: "WatermarkTelemetry", dependencies: ["WatermarkModel", "CGLib"]),
        .target(name: "WatermarkBlendKernels"),
        .target(name: "WatermarkBlendKernelsAVX2", swiftSettings: avx2),
        .target(
            name: "WatermarkBlend",
            dependencies: ["WatermarkModel", "WatermarkBlendKernels", "WatermarkBlendKernelsAVX2", "CPrefetch"]),
        // A layer whose text changes every frame, drawn and converted again only where it
        //    changed (rendering and blending together).
        .target(name: "WatermarkChangingText", dependencies: ["WatermarkModel", "WatermarkRender", "WatermarkBlend"]),
        // 4. The GStreamer element: glue, properties, loading, streaming (libgstwatermark.so).
        .target(
            name: "WatermarkElement",
            dependencies: [
                "WatermarkModel", "WatermarkSharedLibrary", "WatermarkRender", "WatermarkBlend",
                "WatermarkChangingText",
                "WatermarkTelemetry", "CShim", "CGStreamer", "CCuda", "CAnalytics",
            ]
        ),
        // The typed Swift API for applications: value types and WatermarkOverlay.
        .target(
            name: "Watermark",
            dependencies: ["WatermarkModel", "WatermarkElement", "CShim", "CGStreamer"]
        ),
        // The files written from the property table (schema, man page section, README table,
        // the Swift API's WatermarkLayer), and `wm-gen`, which writes them.
        .target(name: "WatermarkGen", dependencies: ["WatermarkModel"]),
        .executableTarget(name: "wm-gen", dependencies: ["WatermarkGen"]),
        .executableTarget(
            name: "watermark-swift-example",
            dependencies: ["Watermark", "CGStreamer"],
            path: "examples/swift"
        ),
        // glibc's allocator settings for batch runs: the tool's own, not the plugin's.
        .target(name: "CMallocTuning"),
        // The command-line tool's logic: options, pipeline plans rendered to gst-launch text,
        // export, capture, stream, batch, the control server. Package access: the executable
        // and WatermarkCLITests use it.
        .target(
            name: "WatermarkCLI",
            dependencies: [
                "CMallocTuning", "Watermark", "WatermarkModel", "WatermarkSharedLibrary", "WatermarkTelemetry", "CShim",
                "CGStreamer",
                "CGstPbutils", "CGstApp",
                "CGstRtspServer", "CAVTypes", "CGstController", "CSoup",
            ]
        ),
        // `gst-watermark`: main and one small file per command.
        .executableTarget(
            name: "gst-watermark",
            dependencies: ["WatermarkCLI", "Watermark", "WatermarkModel", "CGStreamer"]
        ),
        .executableTarget(
            name: "blend-bench",
            dependencies: ["WatermarkModel", "WatermarkRender", "WatermarkBlend", "WatermarkChangingText"],
            path: "Benchmarks/BlendBench"
        ),
        .executableTarget(
            name: "roi-bench",
            dependencies: ["CGStreamer"],
            path: "Benchmarks/RoiBench"
        ),
        .executableTarget(
            name: "wm-fuzz",
            dependencies: ["WatermarkModel", "WatermarkBlend", "WatermarkTelemetry"],
            path: "Fuzz/Sources"
        ),
        // Test helpers: TestSupport needs only Foundation; GstTestSupport runs GStreamer.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .target(
            name: "GstTestSupport",
            dependencies: ["TestSupport", "Watermark", "CShim", "CGStreamer", "CGstCheck", "CPangoCairo"],
            path: "Tests/GstTestSupport"
        ),
        // One test target per layer (`swift test --filter WatermarkModelTests` and so on).
        // The model and blend tests build without GStreamer or cairo headers.
        .testTarget(name: "WatermarkSharedLibraryTests", dependencies: ["WatermarkSharedLibrary"]),
        .testTarget(name: "WatermarkModelTests", dependencies: ["WatermarkModel", "TestSupport"]),
        .testTarget(
            name: "WatermarkTelemetryTests", dependencies: ["WatermarkTelemetry", "WatermarkModel", "TestSupport"]),
        .testTarget(name: "WatermarkGenTests", dependencies: ["WatermarkGen", "WatermarkModel", "TestSupport"]),
        .testTarget(
            name: "WatermarkBlendTests",
            dependencies: [
                "WatermarkBlend", "WatermarkBlendKernels", "WatermarkBlendKernelsAVX2", "WatermarkModel", "CPrefetch",
                "TestSupport",
            ]),
        .testTarget(
            name: "WatermarkRenderTests",
            dependencies: [
                "WatermarkRender", "WatermarkModel", "WatermarkBlend", "WatermarkChangingText", "GstTestSupport",
                "CPangoCairo", "CGdkPixbuf",
            ]
        ),
        .testTarget(
            name: "WatermarkElementTests",
            dependencies: [
                "WatermarkElement", "WatermarkRender", "WatermarkBlend", "WatermarkModel", "GstTestSupport",
                "CShim", "CGStreamer", "CGstCheck", "CAnalytics", "WatermarkSharedLibrary",
            ]
        ),
        .testTarget(name: "WatermarkCLITests", dependencies: ["WatermarkCLI", "WatermarkModel", "TestSupport"]),
        .testTarget(
            name: "CLITests",
            dependencies: ["Watermark", "GstTestSupport", "CShim", "CGStreamer", "CPangoCairo"]
        ),
    ]
)
