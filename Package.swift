// swift-tools-version:6.0
import PackageDescription

// Every C library comes from the system through pkg-config (Debian's -dev packages);
// the package fetches nothing.
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
        .systemLibrary(name: "CGStreamer", pkgConfig: "gstreamer-video-1.0",
                       providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        .systemLibrary(name: "CGstPbutils", pkgConfig: "gstreamer-pbutils-1.0",
                       providers: [.apt(["libgstreamer-plugins-base1.0-dev"])]),
        .systemLibrary(name: "CGstRtspServer", pkgConfig: "gstreamer-rtsp-server-1.0",
                       providers: [.apt(["libgstrtspserver-1.0-dev"])]),
        .systemLibrary(name: "CGstController", pkgConfig: "gstreamer-controller-1.0",
                       providers: [.apt(["libgstreamer1.0-dev"])]),
        .systemLibrary(name: "CGstCheck", pkgConfig: "gstreamer-check-1.0",
                       providers: [.apt(["libgstreamer1.0-dev"])]),
        .systemLibrary(name: "CPangoCairo", pkgConfig: "pangocairo",
                       providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        // Types only: librsvg is opened at run time on the first SVG.
        .systemLibrary(name: "CRsvg"),
        .systemLibrary(name: "CGdkPixbuf", pkgConfig: "gdk-pixbuf-2.0",
                       providers: [.apt(["libgdk-pixbuf-2.0-dev"])]),
        .target(
            name: "CShim",
            dependencies: ["CGStreamer"],
            cSettings: [
                .define("PACKAGE", to: "\"gst-watermark\""),
                .define("VERSION", to: "\"0.1.0\""),
            ]
        ),
        .target(
            name: "WatermarkElement",
            dependencies: ["CShim", "CGStreamer", "CPangoCairo", "CRsvg", "CGdkPixbuf"]
        ),
        .target(
            name: "Watermark",
            dependencies: ["WatermarkElement", "CShim", "CGStreamer"]
        ),
        .executableTarget(
            name: "watermark-swift-example",
            dependencies: ["Watermark", "CGStreamer"],
            path: "examples/swift"
        ),
        .executableTarget(
            name: "gst-watermark",
            dependencies: ["Watermark", "WatermarkElement", "CShim", "CGStreamer", "CGstPbutils", "CGstRtspServer", "CGstController"]
        ),
        .executableTarget(
            name: "blend-bench",
            dependencies: ["WatermarkElement", "CGStreamer"],
            path: "Benchmarks/BlendBench"
        ),
        .executableTarget(
            name: "wm-fuzz",
            dependencies: ["WatermarkElement"],
            path: "Fuzz/Sources"
        ),
        .testTarget(
            name: "WatermarkTests",
            dependencies: ["Watermark", "WatermarkElement", "CShim", "CGStreamer", "CGstCheck", "CPangoCairo", "CGdkPixbuf"]
        ),
    ]
)
